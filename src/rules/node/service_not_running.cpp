// service-not-running: a daemon the node's kind needs is not running. The anchors watch these
// (CycleCloud healthagent's SystemdServiceCheck: munge, slurmd, nvidia-persistenced, nvidia-imex,
// ...; GPUd's fabric-manager component) but only where the node has them; so does this rule:
//   nvidia-fabricmanager  NVSwitch sizes (the catalog's azure_image.fabric_manager, from the
//                         azhpc-images customisations that wait for it), or enabled at boot;
//   nvidia-persistenced   enabled at boot on a node with NVIDIA GPUs;
//   slurmd                enabled at boot (a Slurm compute node);
//   munge                 installed on a Slurm node (slurmd or slurmctld enabled): auth/munge
//                         is Slurm's default AuthType, and slurmd cannot authenticate without it.
// nvidia-imex is imex-not-running's (GB200/GB300), not this rule's.
#include <algorithm>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ServiceNotRunning final : public Rule {
 public:
  std::string_view id() const override { return "service-not-running"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A service this node's kind needs is not running";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.services.ok()) return RuleOutcome::skip("systemd units " + n.services.describe());
    const ServiceFacts& s = *n.services;
    if (!s.processes_known)
      return RuleOutcome::skip("which daemons run is not known: " + s.processes_why);
    std::string why_sku;
    const SkuEntry* sku = sku_of(n, ctx, why_sku);
    const bool gpus = (n.gpus.ok() && !n.gpus->gpus.empty()) ||
                      (n.pci.ok() && std::any_of(n.pci->devices.begin(), n.pci->devices.end(),
                                                 [](const PciDevice& d) {
                                                   return d.kind == PciKind::kNvidiaGpu;
                                                 }));
    auto enabled = [&](const char* unit) {
      const ServiceState* x = s.find(unit);
      return x != nullptr && x->enabled;
    };
    const bool slurm_node = enabled("slurmd.service") || enabled("slurmctld.service");
    RuleOutcome out;
    for (const ServiceState& svc : s.services) {
      std::string need;
      if (svc.unit == "nvidia-fabricmanager.service") {
        if (sku != nullptr && sku->fabric_manager)
          need = sku->name +
                 " has NVSwitch GPUs: Fabric Manager must run before CUDA can use "
                 "them (catalog: " +
                 ctx.catalog->source_text(sku->image_source) + ")";
        else if (svc.enabled)
          need = "enabled at boot";
      } else if (svc.unit == "nvidia-persistenced.service") {
        if (svc.enabled && gpus) need = "enabled at boot on a node with NVIDIA GPUs";
      } else if (svc.unit == "slurmd.service") {
        if (svc.enabled) need = "enabled at boot: a Slurm compute node";
      } else if (svc.unit == "munge.service") {
        if (svc.installed && slurm_node)
          need = "installed on a Slurm node (auth/munge is Slurm's default AuthType)";
      }
      if (need.empty() || svc.running) continue;
      Finding f = finding(svc.unit + " is not running (" + need + ")");
      f.evidence.push_back({"no process named " + svc.process + " in /proc", n.processes.where});
      if (svc.enabled)
        f.evidence.push_back(
            {"enabled at boot (a link in a *.target.wants directory)", svc.enabled_where});
      else if (svc.installed)
        f.evidence.push_back({svc.unit + " installed, not enabled at boot", {svc.unit_file, 0}});
      else
        f.evidence.push_back({"no unit file found for " + svc.unit, {}});
      if (svc.unit == "nvidia-fabricmanager.service") {
        f.cause =
            "On NVSwitch systems the GPUs join the NVLink fabric only through NVIDIA Fabric "
            "Manager; without it CUDA reports the GPUs busy or unavailable and NCCL cannot use "
            "NVLink (see also fabric-manager-not-ready).";
        f.fix =
            "sudo systemctl status nvidia-fabricmanager; journalctl -u nvidia-fabricmanager "
            "(its version must equal the driver's); sudo systemctl enable --now "
            "nvidia-fabricmanager.";
      } else if (svc.unit == "nvidia-persistenced.service") {
        f.cause =
            "Without the persistence daemon the driver tears the GPUs down when the last client "
            "exits and initialises them again for the next one: seconds per job start, and "
            "settings such as application clocks are lost. The unit is enabled, so it was "
            "meant to run and has stopped or failed.";
        f.fix =
            "sudo systemctl status nvidia-persistenced; sudo systemctl restart "
            "nvidia-persistenced.";
      } else if (svc.unit == "slurmd.service") {
        f.cause =
            "slurmd is enabled at boot but not running: slurmctld marks the node DOWN "
            "(\"Not responding\") and schedules nothing on it.";
        f.fix =
            "sudo systemctl status slurmd; journalctl -u slurmd (a slurm.conf mismatch, a GRES "
            "count the node cannot meet, munge); then sudo systemctl restart slurmd and "
            "`scontrol update nodename=$(hostname -s) state=resume`.";
      } else {
        f.cause =
            "Slurm authenticates every message with MUNGE by default: without munged, slurmd "
            "cannot talk to slurmctld and jobs fail to launch (\"Invalid authentication "
            "credential\").";
        f.fix =
            "sudo systemctl status munge; check /etc/munge/munge.key matches the controller's "
            "(owner munge, mode 0400) and the clocks agree; sudo systemctl restart munge.";
      }
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_service_not_running() { return std::make_unique<ServiceNotRunning>(); }

}  // namespace trainready
