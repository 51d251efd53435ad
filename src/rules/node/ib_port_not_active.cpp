// ib-port-not-active: an InfiniBand port is not ACTIVE / LinkUp. RDMA ports whose link layer is
// Ethernet (RoCE, RoCE LAG bonds mlx5_bond_N, Azure's mlx5_an0) are judged as RoCE: their state
// follows the Ethernet link, so they get RoCE's cause and fix, at warning.
#include <map>

#include "catalog/ib_placement.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// `others_active`: ports of this VM that are ACTIVE / LinkUp. Placement decides a partition
// for the whole VM, so a Polling port beside ACTIVE ones is a link fault, not placement.
std::string cause_for(const std::string& state, const std::string& phys, int others_active) {
  if (phys.empty()) {
    return "The port is " + state +
           "; the capture does not show its physical state (`ibv_devinfo` without -v): Polling "
           "would mean no link partner (cable, switch port, or placement), Disabled an "
           "administrative disable, LinkUp a port the subnet manager has not activated.";
  }
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

// RoCE: no subnet manager, no partition keys, no placement; the port follows its netdev.
constexpr const char* kRoceCause =
    "A RoCE port (RDMA over Converged Ethernet, link layer Ethernet) follows the Ethernet link of "
    "its network interface: the interface is down or administratively disabled, the cable or "
    "transceiver has no link, or the switch port is shut. InfiniBand's causes (subnet manager, "
    "partition keys, placement) do not apply. NCCL leaves a RoCE device that is not ACTIVE out, "
    "or hangs at connection setup when NCCL_IB_HCA names it.";
constexpr const char* kRoceFix =
    "Find its interface (`ibdev2netdev` or `rdma link show`), then `ip link show <if>` and "
    "`ethtool <if>`: bring it up (`ip link set <if> up`) or fix the cable / switch port; for a "
    "RoCE LAG bond (mlx5_bond_N) check `cat /proc/net/bonding/bondN` for the slave that is "
    "down. If the job does not use this port (a second port left unconnected), leave it out with "
    "NCCL_IB_HCA.";

std::string roce_what(const IbDevice& d) {
  return d.name.rfind("mlx5_bond", 0) == 0 ? "RoCE bond port " : "RoCE port ";
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
      if (!p.state.ok()) {
        out.notes.push_back(r.name() + ": state " + p.state.describe() + ", phys_state " +
                            p.phys_state.describe());
        continue;
      }
      ++readable;
      // `ibv_devinfo` without -v shows no physical state: the logical state is judged alone.
      const std::string phys = p.phys_state.ok() ? p.phys_state.value : "";
      if (p.state.value == "ACTIVE" && (phys == "LinkUp" || phys.empty())) {
        ++active;
        continue;
      }
      bad[{p.state.value, phys}].push_back(&r);
    }
    // A port whose link layer the capture cut off: InfiniBand or RoCE cannot be told.
    for (const IbDevice& d : n.ib->devices) {
      for (const IbPort& p : d.ports) {
        if (p.link_layer.ok() || !p.state.ok() || p.state.value == "ACTIVE") continue;
        out.notes.push_back(d.name + "/" + std::to_string(p.number) + " is " + p.state.value +
                            (p.phys_state.ok() ? " / " + p.phys_state.value : "") +
                            ", link layer " + p.link_layer.describe() +
                            ": not judged as InfiniBand or RoCE");
      }
    }
    judge_roce(*n.ib, out);
    for (const auto& [key, refs] : bad) {
      const auto& [state, phys] = key;
      std::string names;
      for (const PortRef* r : refs) names += (names.empty() ? "" : ", ") + r->name();
      const std::string shown =
          phys.empty() ? state + " (physical state not captured)" : state + " / " + phys;
      Finding f = finding(refs.size() == 1 ? "InfiniBand port " + names + " is " + shown
                                           : std::to_string(refs.size()) + " of " +
                                                 std::to_string(ports.size()) +
                                                 " InfiniBand ports are " + shown + ": " + names);
      const IbPort& first = *refs.front()->port;
      f.evidence.push_back({refs.front()->name() + " state: " + state, first.state.where});
      f.evidence.push_back({refs.front()->name() + " phys_state: " +
                                (phys.empty() ? first.phys_state.describe() : phys),
                            first.phys_state.where});
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
    if (!ports.empty() && readable == 0 && out.findings.empty())
      return RuleOutcome::skip("no InfiniBand port state could be read: " + out.notes.front());
    return out;
  }

 private:
  // One finding per (state, phys_state) of the RoCE ports that are not ACTIVE.
  void judge_roce(const IbFacts& ib, RuleOutcome& out) const {
    std::map<std::pair<std::string, std::string>, std::vector<PortRef>> bad;
    for (const IbDevice& d : ib.devices) {
      for (const IbPort& p : d.ports) {
        if (!p.link_layer.ok() || p.link_layer.value != "Ethernet" || !p.state.ok()) continue;
        const std::string phys = p.phys_state.ok() ? p.phys_state.value : "";
        if (p.state.value == "ACTIVE" && (phys == "LinkUp" || phys.empty())) continue;
        bad[{p.state.value, phys}].push_back({&d, &p});
      }
    }
    for (const auto& [key, refs] : bad) {
      const auto& [state, phys] = key;
      std::string names;
      for (const PortRef& r : refs) names += (names.empty() ? "" : ", ") + r.name();
      const std::string shown = phys.empty() ? state : state + " / " + phys;
      Finding f = finding(
          refs.size() == 1
              ? roce_what(*refs.front().device) + names + " (link layer Ethernet) is " + shown
              : std::to_string(refs.size()) + " RoCE ports (link layer Ethernet) are " + shown +
                    ": " + names);
      f.severity = Severity::kWarning;
      const IbPort& first = *refs.front().port;
      f.evidence.push_back({refs.front().name() + " link_layer: Ethernet", first.link_layer.where});
      f.evidence.push_back({refs.front().name() + " state: " + shown, first.state.where});
      f.cause = kRoceCause;
      f.fix = kRoceFix;
      out.findings.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_port_not_active() { return std::make_unique<IbPortNotActive>(); }

}  // namespace trainready
