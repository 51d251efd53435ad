// healthagent-disagrees: Azure CycleCloud healthagent's last background verdict (`health -s`)
// and what trainready read on the same node say different things about the same part. Where a
// CycleCloud cluster runs healthagent, its verdict drains the node (Slurm HealthCheckProgram)
// and files the Guest Health Report; a disagreement is either a transient one of the two caught
// at a different moment, a sticky state (healthagent latches link_downed flaps until restart,
// "strikes"), or a gap in one of the checks: a person should look before a node is drained or
// returned to service on one word. Compared, check by check:
//   network NetworkInterfaceCheck  vs the InfiniBand ports' state and physical state;
//   gpu GpuCountCheck              vs the GPUs NVML sees and the VM size's count;
//   systemd SystemdServiceCheck    vs the daemons running (per service);
//   proc ProcessStateCheck         vs unkillable D-state processes.
#include <algorithm>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

std::string ha_text(const HealthagentCheck& c) {
  std::string s = "healthagent " + c.module + "/" + c.name + ": " + c.status;
  if (!c.description.empty()) s += " (" + c.description + ")";
  if (!c.ghr_category.empty()) s += ", GHR " + c.ghr_category;
  if (!c.last_update.empty()) s += ", last update " + c.last_update;
  return s;
}

class HealthagentDisagrees final : public Rule {
 public:
  std::string_view id() const override { return "healthagent-disagrees"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "CycleCloud healthagent's verdict and trainready's differ";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.healthagent.ok()) {
      if (n.healthagent.status == FactStatus::kMissing)
        return RuleOutcome::does_not_apply("no healthagent `health -s` output (" +
                                           n.healthagent.reason + ")");
      return RuleOutcome::skip("healthagent status " + n.healthagent.describe());
    }
    const HealthagentStatus& ha = *n.healthagent;
    RuleOutcome out;
    auto add = [&](const HealthagentCheck& c, const std::string& ours, const Provenance& where,
                   const std::string& message) {
      Finding f = finding(message);
      f.evidence.push_back({ha_text(c), c.where});
      f.evidence.push_back({"trainready: " + ours, where});
      f.cause =
          "The two read the node at different moments and keep different memory: healthagent "
          "keeps a check in error once it latched (link_downed flaps within 3 hours latch until "
          "the agent restarts; service failures until the service runs again), trainready's "
          "doctor reads the present state (`trainready health` keeps state over time). A "
          "disagreement that persists is a gap in one of the two checks.";
      f.fix =
          "Re-read both now (`health -s`, `trainready doctor`); if healthagent still reports an "
          "error trainready does not see, read its report's details (`health -s` on the node, "
          "/opt/healthagent/healthagent.log) before the node is drained or its GHR filed; if "
          "trainready sees a fault healthagent calls OK, trust the evidence above and drain.";
      out.findings.push_back(std::move(f));
    };

    if (const HealthagentCheck* c = ha.find("network", "NetworkInterfaceCheck"); c && n.ib.ok()) {
      int total = 0;
      std::string down;
      for (const PortRef& p : infiniband_ports(*n.ib)) {
        ++total;
        const bool active = p.port->state.ok() && *p.port->state == "ACTIVE";
        const bool linkup = !p.port->phys_state.ok() || *p.port->phys_state == "LinkUp";
        if (!active || !linkup)
          down += (down.empty() ? "" : ", ") + p.name() + " " +
                  (p.port->state.ok() ? *p.port->state : std::string("?")) + "/" +
                  (p.port->phys_state.ok() ? *p.port->phys_state : std::string("?"));
      }
      if (total > 0 && c->error() && down.empty())
        add(*c, "all " + std::to_string(total) + " InfiniBand ports ACTIVE / LinkUp", n.ib.where,
            "healthagent reports a network error; trainready reads every InfiniBand port up");
      else if (c->status == "OK" && !down.empty())
        add(*c, "InfiniBand ports not up: " + down, n.ib.where,
            "healthagent reports the network OK; trainready reads ports not up (" + down + ")");
    }

    if (const HealthagentCheck* c = ha.find("gpu", "GpuCountCheck");
        c && n.gpus.ok() && n.gpus->driver_loaded) {
      std::string why;
      const SkuEntry* sku = sku_of(n, ctx, why);
      if (sku != nullptr && sku->gpu_count > 0) {
        const int seen = static_cast<int>(n.gpus->gpus.size());
        const std::string ours = std::to_string(seen) + " GPUs through NVML, " + sku->name +
                                 " has " + std::to_string(sku->gpu_count);
        if (c->status == "OK" && seen < sku->gpu_count)
          add(*c, ours, n.gpus.where,
              "healthagent counts the GPUs OK; trainready sees " + std::to_string(seen) + " of " +
                  std::to_string(sku->gpu_count));
        else if (c->error() && seen == sku->gpu_count && n.gpus->lost.empty())
          add(*c, ours, n.gpus.where,
              "healthagent reports a GPU count error; trainready sees all " + std::to_string(seen) +
                  " GPUs");
      }
    }

    if (const HealthagentCheck* c = ha.find("systemd", "SystemdServiceCheck");
        c && n.services.ok() && n.services->processes_known) {
      for (const ServiceState& s : n.services->services) {
        const bool ha_failed = std::find(c->failed_items.begin(), c->failed_items.end(), s.unit) !=
                               c->failed_items.end();
        if (ha_failed && s.running)
          add(*c, "process " + s.process + " is running", n.processes.where,
              "healthagent reports " + s.unit + " failed; trainready finds its daemon running");
      }
    }

    if (const HealthagentCheck* c = ha.find("proc", "ProcessStateCheck"); c && n.processes.ok()) {
      int hung = 0;
      for (const ProcessEntry& p : n.processes->uninterruptible) hung += p.kill_pending ? 1 : 0;
      const bool ha_hung = c->error() && c->description.find("nkillable") != std::string::npos;
      if (ha_hung && hung == 0)
        add(*c, "no D-state process with a kill pending", n.processes.where,
            "healthagent reports unkillable processes; trainready finds none now");
      else if (c->status == "OK" && hung > 0)
        add(*c, std::to_string(hung) + " D-state processes with a kill pending", n.processes.where,
            "healthagent reports processes OK; trainready finds " + std::to_string(hung) +
                " unkillable");
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_healthagent_disagrees() {
  return std::make_unique<HealthagentDisagrees>();
}

}  // namespace trainready
