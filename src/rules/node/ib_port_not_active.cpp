// ib-port-not-active: an InfiniBand port is not ACTIVE / LinkUp.
#include <map>

#include "facts/queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

std::string cause_for(const std::string& state, const std::string& phys) {
  if (phys == "Polling") {
    return "The port is Polling: it looks for a link partner and finds none it may talk to. On "
           "Azure this is what a VM "
           "sees when it is not in one scale set with singlePlacementGroup=true, or one "
           "availability set, with its "
           "peers (it lands on another InfiniBand fabric or partition); on bare metal, a cable or "
           "switch port is down.";
  }
  if (phys == "Disabled") {
    return "The port is administratively Disabled (by firmware, ibportstate, or the host). No "
           "traffic can pass.";
  }
  if (phys == "Sleep") return "The port is asleep (no link): the HCA is not trained to a switch.";
  if (phys == "LinkErrorRecovery" || phys == "PortConfigurationTraining") {
    return "The link is still training or recovering from errors: a flapping cable/transceiver or "
           "a fabric fault.";
  }
  if (state == "INIT") {
    return "The link is up but no subnet manager has configured the port (state Initializing). On "
           "Azure the fabric "
           "assigns LIDs and partitions shortly after boot; if it stays INIT the VM is not in a "
           "placement group with "
           "an InfiniBand partition. On-premises: no opensm is running on the fabric.";
  }
  if (state == "ARMED")
    return "The subnet manager configured the port but did not activate it (ARMED).";
  if (state == "DOWN")
    return "The logical port is DOWN although the physical link reports " + phys + ".";
  return "The port is in state " + state + " / " + phys + ".";
}

class IbPortNotActive final : public Rule {
 public:
  std::string_view id() const override { return "ib-port-not-active"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "InfiniBand port not ACTIVE / LinkUp"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.ib.ok()) return RuleOutcome::skip("InfiniBand devices " + n.ib.describe());
    RuleOutcome out;
    const auto ports = infiniband_ports(*n.ib);
    std::size_t readable = 0;
    // One finding per (state, phys_state): eight Polling ports are one problem, not eight.
    std::map<std::pair<std::string, std::string>, std::vector<const PortRef*>> bad;
    for (const PortRef& r : ports) {
      const IbPort& p = *r.port;
      if (!p.state.ok() || !p.phys_state.ok()) {
        out.notes.push_back(r.name() + ": state " + p.state.describe() + ", phys_state " +
                            p.phys_state.describe());
        continue;
      }
      ++readable;
      if (p.state.value == "ACTIVE" && p.phys_state.value == "LinkUp") continue;
      bad[{p.state.value, p.phys_state.value}].push_back(&r);
    }
    for (const auto& [key, refs] : bad) {
      const auto& [state, phys] = key;
      std::string names;
      for (const PortRef* r : refs) names += (names.empty() ? "" : ", ") + r->name();
      Finding f = finding(
          refs.size() == 1 ? "InfiniBand port " + names + " is " + state + " / " + phys
                           : std::to_string(refs.size()) + " of " + std::to_string(ports.size()) +
                                 " InfiniBand ports are " + state + " / " + phys + ": " + names);
      const IbPort& first = *refs.front()->port;
      f.evidence.push_back({refs.front()->name() + " state: " + state, first.state.where});
      f.evidence.push_back({refs.front()->name() + " phys_state: " + phys, first.phys_state.where});
      f.cause = cause_for(state, phys) +
                " NCCL either leaves these rails out, hangs at connection setup, or falls back to "
                "sockets.";
      if (phys == "Polling" || state == "INIT") {
        f.fix =
            "Deploy all VMs of the job in ONE virtual machine scale set with "
            "singlePlacementGroup=true (at most 100 "
            "VMs by default, 300 after a support request) or one availability set, then redeploy "
            "this VM into it. "
            "If it is already there, deallocate/start it; if the ports stay down, report the node.";
      } else {
        f.fix =
            "Deallocate and start the VM to move it to a healthy host; on bare metal check the "
            "cable, switch port "
            "and `ibportstate`. Take the node out of the job until its ports are ACTIVE / LinkUp.";
      }
      out.findings.push_back(std::move(f));
    }
    if (!ports.empty() && readable == 0)
      return RuleOutcome::skip("no InfiniBand port state could be read: " + out.notes.front());
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_port_not_active() { return std::make_unique<IbPortNotActive>(); }

}  // namespace trainready
