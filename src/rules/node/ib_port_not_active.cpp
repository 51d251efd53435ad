// ib-port-not-active: an InfiniBand port is not ACTIVE / LinkUp.
#include <map>

#include "catalog/ib_placement.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// `others_active`: ports of this VM that are ACTIVE / LinkUp. Placement decides a partition
// for the whole VM, so a Polling port beside ACTIVE ones is a link fault, not placement.
std::string cause_for(const std::string& state, const std::string& phys, int others_active) {
  if (phys == "Polling") {
    if (others_active > 0)
      return "The port is Polling: it sees no link partner. Other ports of this VM are ACTIVE, so "
             "the VM's placement is not the cause (placement and partition keys apply to the "
             "whole VM): this link (cable, transceiver, switch port or HCA) is down.";
    return "The port is Polling: it sees no link partner. Two causes, to check in this order: "
           "(1) placement: the VM is not in one placement group with its peers (one scale set "
           "that is a single placement group, or one availability set); (2) a link fault: on a "
           "correctly placed VM Azure's diagnostics (azhpc-diagnostics#76) treat a Polling port "
           "as a link to report. On bare metal: a cable or switch port is down.";
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
    return "The link is up but the port is not yet activated (state Initializing). This is often "
           "transient shortly after boot or a fabric change; it is not proof of a missing subnet "
           "manager (an ND A100 v4 port was seen Initializing with a subnet manager LID set, "
           "azhpc-diagnostics#59). On-premises, a fabric with no running subnet manager also "
           "leaves ports here.";
  }
  if (state == "ARMED")
    return "The subnet manager configured the port but did not activate it (ARMED).";
  if (state == "DOWN")
    return "The logical port is DOWN although the physical link reports " + phys + ".";
  return "The port is in state " + state + " / " + phys + ".";
}

std::string fix_for(const std::string& state, const std::string& phys, int others_active) {
  if (phys == "Polling" && others_active > 0)
    return "Take the node out of the job and report it (Azure: a support request or Azure's "
           "node health checks, fault NHC2004 IBPortDown, then deallocate/start to move to "
           "another host); on bare metal reseat or replace the cable and check the switch port.";
  if (phys == "Polling")
    return std::string(
               "First check placement: compare this VM's vmScaleSetName and placementGroupId "
               "(IMDS) and the partition keys of its peers (`trainready doctor --root a --root "
               "b`); if they differ, redeploy the job as ") +
           kIbOneGroupSettings +
           ". If the VM is correctly placed with its peers, the link is down: report the node "
           "(support request / NHC2004 IBPortDown) and deallocate/start it. Sources: " +
           kIbPlacementSources + "; Azure/azhpc-diagnostics#76.";
  if (state == "INIT")
    return "Re-check in a minute (`cat /sys/class/infiniband/*/ports/*/state`). If the port stays "
           "Initializing, report the node (support request) and deallocate/start it; "
           "on-premises, check that a subnet manager (opensm / UFM) runs on the fabric.";
  return "Deallocate and start the VM to move it to a healthy host; on bare metal check the "
         "cable, switch port and `ibportstate`. Take the node out of the job until its ports are "
         "ACTIVE / LinkUp.";
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
    int active = 0;
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
      if (p.state.value == "ACTIVE" && p.phys_state.value == "LinkUp") {
        ++active;
        continue;
      }
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
      f.cause = cause_for(state, phys, active) +
                " NCCL either leaves these rails out, hangs at connection setup, or falls back to "
                "sockets.";
      if (phys == "Polling")
        f.evidence.push_back({std::to_string(active) + " of " + std::to_string(ports.size()) +
                                  " InfiniBand ports of this VM are ACTIVE / LinkUp",
                              n.ib.where});
      f.fix = fix_for(state, phys, active);
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
