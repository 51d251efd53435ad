// slurm-node-unavailable: slurmctld holds a node out of scheduling (DRAIN, DOWN, FAIL, INVAL,
// not responding), from a `scontrol show node` or `sinfo -R` capture; the drain reason is read
// against what the usual setters (Slurm itself, LBNL NHC, Azure's AzNHC) mean by it.
#include <array>
#include <string_view>

#include "core/text.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// What a reason means, by a substring of it (first match wins: the NHC checks come before
// Slurm's own reasons, whose words an NHC message may contain). Knowledge with its source.
struct ReasonMeaning {
  std::string_view match;  // matched case-insensitively anywhere in the reason
  std::string_view meaning;
  std::string_view fix;
  std::string_view source;
};

constexpr std::array<ReasonMeaning, 20> kReasons{{
    {"gres/gpu count reported lower",
     "slurmd found fewer GPUs than slurm.conf / gres.conf declare for the node, so slurmctld "
     "set it INVAL/DRAIN at registration: a GPU fell off the bus or the NVIDIA driver did not "
     "load, or the configured count is wrong for this node (a MIG layout change also lowers it).",
     "On the node: `nvidia-smi -L` and `dmesg | grep -i -e xid -e 'fallen off'`. If GPUs are "
     "missing, reset or reboot the node (Azure: deallocate/start, then report it); if the "
     "config is wrong, fix the node's Gres= / gres.conf. Then `scontrol update "
     "nodename=NODE state=resume`.",
     "SchedMD slurm src/common/gres.c (\"gres/%s count reported lower than configured\"); "
     "awslabs/awsome-distributed-ai#195; ComputeCanada/puppet-magic_castle#361"},
    {"gres/gpu GRES core s",
     "slurmd's GPU-to-core binding (Cores= of gres.conf or AutoDetect) does not match the socket "
     "boundaries slurmctld expects: a configuration or slurmd version problem, not a GPU fault.",
     "Compare gres.conf Cores= with `slurmd -G` on the node; a known slurmd bug (SchedMD 22498) "
     "needs the fixed release. Resume the node once the config matches.",
     "hpc-community.unige.ch/t/3909 (SchedMD bug 22498)"},
    {"check_hw_ib",
     "LBNL NHC's InfiniBand check failed: an HCA port is missing, not ACTIVE/LinkUp or below "
     "the configured rate.",
     "On the node: `ibstat` / `ibv_devinfo` (pass them to `trainready doctor --capture`); a "
     "port that is down needs its link or the node replaced (Azure: report the node, "
     "deallocate/start).",
     "mej/nhc scripts/lbnl_hw.nhc check_hw_ib"},
    {"check_ib_link_flapping",
     "AzNHC saw several InfiniBand link-down events in its time window (FaultCode NHC2005): a "
     "flapping cable, transceiver or switch port.",
     "Report the node to Azure support with the fault code; deallocate/start to move hosts.",
     "Azure/azurehpc-health-checks customTests/azure_ib_link_flapping.nhc (NHC2005)"},
    {"check_ib_bw", "AzNHC's ib_write_bw test measured an HCA below the VM size's floor.",
     "Run `ib_write_bw` per HCA (pass the output to `doctor --capture ib_write_bw=FILE`); "
     "report the node with the AzNHC fault code.",
     "Azure/azurehpc-health-checks customTests/azure_ib_write_bw_gdr.nhc"},
    {"check_gpu_count", "AzNHC counted fewer GPUs than the VM size has (FaultCode NHC2009).",
     "`nvidia-smi -L`, `dmesg | grep -i xid`; deallocate/start the VM, report it if GPUs stay "
     "missing.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_count.nhc (NHC2009)"},
    {"check_gpu_xid", "AzNHC found a recent Xid error in the kernel log (FaultCode NHC2001).",
     "Pass the kernel log to `trainready doctor --capture dmesg=FILE` to decode the Xid; most "
     "need a GPU reset or a node swap.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_xid.nhc (NHC2001)"},
    {"check_gpu_bw",
     "AzNHC's GPU bandwidth test (nvbandwidth) measured a copy below its threshold (FaultCode "
     "NHC2020): a PCIe link trained down or a GPU/NVLink fault.",
     "Check `lspci -vv` link width/speed of the GPU (pass it to `doctor --capture`); report the "
     "node if the link is degraded.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_bandwidth.nhc (NHC2020)"},
    {"check_nvlink", "AzNHC found NVLink links down or missing.",
     "`nvidia-smi nvlink --status`; check Fabric Manager; report the node.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_nvlink.nhc"},
    {"check_gpu_ecc",
     "AzNHC found GPU memory errors (uncorrectable ECC, row remap pending or failed).",
     "`nvidia-smi -q -d ECC,ROW_REMAPPER` (pass it to `doctor --capture`); a pending remap "
     "needs a GPU reset, a failed one a node swap.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_ecc.nhc"},
    {"check_ps_service", "LBNL NHC found a required service not running (named in the reason).",
     "Start the service (`systemctl start ...`) and find why it stopped.",
     "mej/nhc scripts/lbnl_ps.nhc check_ps_service"},
    {"check_fs_mount", "LBNL NHC found a required filesystem not mounted.",
     "Mount it (`mount -a`, check the NFS/Lustre server), then let NHC re-run.",
     "mej/nhc scripts/lbnl_fs.nhc check_fs_mount"},
    {"Kill task failed",
     "slurmd could not kill a job step's processes within UnkillableStepTimeout: a process "
     "stuck in the kernel (D state), typically on a hung filesystem, a GPU in error or a "
     "driver call that does not return.",
     "On the node: `ps -eo pid,stat,wchan:32,cmd | awk '$2 ~ /D/'` and `dmesg | tail`. A GPU "
     "in error (Xid) or a hung mount needs a reboot; resume the node after it.",
     "slurm.conf(5) UnkillableStepTimeout; awslabs/awsome-distributed-ai#185"},
    {"Not responding",
     "slurmctld has not heard from slurmd for SlurmdTimeout: the node is down, hung, off the "
     "network, or slurmd is not running.",
     "Reach the node (ssh, the cloud console); `systemctl status slurmd`; check munge and the "
     "clock. Slurm returns it by itself when slurmd answers again (ReturnToService), otherwise "
     "`scontrol update nodename=NODE state=resume`.",
     "slurm.conf(5) SlurmdTimeout, ReturnToService"},
    {"Node unexpectedly rebooted",
     "The node rebooted without Slurm asking it to (a crash, a host event, a watchdog); with "
     "ReturnToService=1 Slurm keeps it DOWN until someone looks.",
     "Read the previous boot's log (`journalctl -b -1 -p err`) for the cause; resume the node "
     "if it is healthy.",
     "slurm.conf(5) ReturnToService"},
    {"Prolog error",
     "The node's Prolog script failed (non-zero exit) before a job: Slurm drains the node so "
     "the next job does not fail the same way.",
     "Run the Prolog by hand on the node and read slurmd.log; fix it, then resume the node.",
     "slurm.conf(5) Prolog"},
    {"Epilog error",
     "The node's Epilog script failed after a job: the node may be left dirty (processes, "
     "mounts, GPU state).",
     "Read slurmd.log for the Epilog's output; clean up, then resume the node.",
     "slurm.conf(5) Epilog"},
    {"Low RealMemory",
     "slurmd reports less memory than RealMemory= in slurm.conf: a DIMM is missing or the "
     "configured value is too high for this node.",
     "Compare `slurmd -C` with the node's line in slurm.conf; fix one of them.",
     "slurm.conf(5) RealMemory"},
    {"Low socket*core*thre",
     "slurmd reports fewer CPUs than configured for the node (CPUs or sockets/cores/threads).",
     "Compare `slurmd -C` with the node's line in slurm.conf; fix one of them.",
     "slurm.conf(5) NodeName CPUs/Sockets/CoresPerSocket/ThreadsPerCore"},
    {"trainready:",
     "Set by `trainready fleet --slurm-health --drain` after a failed check on this node.",
     "Read the check named after 'trainready:' and fix it; `trainready fleet --slurm-health "
     "--drain` resumes a node it drained once the check passes again.",
     "docs/fleet.md"},
}};

bool unavailable_state(const std::string& state) {
  for (std::string_view w : {"DRAIN", "DRAINED", "DRAINING", "DOWN", "FAIL", "FAILING", "INVAL",
                             "NOT_RESPONDING", "MAINT", "REBOOT_REQUESTED", "REBOOT_ISSUED"}) {
    // Words of State are joined by '+'; "DOWN*" marks not responding.
    std::size_t start = 0;
    while (start <= state.size()) {
      std::size_t end = state.find('+', start);
      if (end == std::string::npos) end = state.size();
      std::string_view word = std::string_view(state).substr(start, end - start);
      while (!word.empty() &&
             (word.back() == '*' || word.back() == '~' || word.back() == '#' ||
              word.back() == '!' || word.back() == '%' || word.back() == '$' || word.back() == '@'))
        word.remove_suffix(1);
      if (iequals(word, w)) return true;
      start = end + 1;
    }
  }
  return !state.empty() && state.find('*') != std::string::npos;
}

// A reason cut by sinfo's column width matches an entry that starts with what is left of it.
const ReasonMeaning* meaning_of(const std::string& reason, bool truncated) {
  for (const auto& m : kReasons) {
    if (icontains(reason, m.match)) return &m;
    if (truncated && reason.size() >= 8 && reason.size() < m.match.size() &&
        iequals(m.match.substr(0, reason.size()), reason))
      return &m;
  }
  return nullptr;
}

class SlurmNodeUnavailable final : public Rule {
 public:
  std::string_view id() const override { return "slurm-node-unavailable"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Slurm holds a node out of scheduling (drained, down, not responding)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.slurm.ok())
      return RuleOutcome::does_not_apply(
          "no scontrol show node or sinfo -R capture given (doctor --capture FILE)");
    RuleOutcome out;
    const bool from_sinfo = n.slurm->source_kind == "sinfo -R";
    const auto& nodes = n.slurm->nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const SlurmNodeRecord& r = nodes[i];
      // sinfo -R lists only nodes that are down, drained, failing or failed, one row per reason
      // and node list: one finding per row.
      if (!from_sinfo && !unavailable_state(r.state)) continue;
      std::string who = "Slurm node " + r.name + " is";
      if (from_sinfo) {
        std::size_t j = i + 1;
        while (j < nodes.size() && nodes[j].where.line == r.where.line) ++j;
        if (j - i > 1) {
          who = "Slurm nodes ";
          for (std::size_t k = i; k < j && k < i + 5; ++k)
            who += (k == i ? "" : ", ") + nodes[k].name;
          if (j - i > 5) who += " and " + std::to_string(j - i - 5) + " more";
          who += " (" + std::to_string(j - i) + ") are";
        }
        i = j - 1;
      }
      std::string what = from_sinfo ? "unavailable" : "in state " + r.state;
      Finding f = finding(who + " " + what +
                          (r.reason.empty() ? std::string(", no reason set")
                                            : ": " + r.reason + (r.reason_truncated ? "..." : "")));
      f.node = n.label;
      std::string ev = from_sinfo ? "sinfo -R: " : "scontrol: State=" + r.state + " ";
      ev += "Reason=" + (r.reason.empty() ? std::string("(none)") : r.reason);
      if (!r.reason_user.empty() || !r.reason_time.empty())
        ev += " [" + r.reason_user + "@" + r.reason_time + "]";
      f.evidence.push_back({ev, r.where});
      if (r.gres_gpus || r.cfg_gpus)
        f.evidence.push_back(
            {"Gres=" + r.gres +
                 (r.cfg_gpus ? ", CfgTRES gres/gpu=" + std::to_string(*r.cfg_gpus) : std::string()),
             r.where});
      if (const ReasonMeaning* m = meaning_of(r.reason, r.reason_truncated)) {
        f.cause = std::string(m->meaning);
        f.fix = std::string(m->fix);
        f.evidence.push_back({"meaning of this reason: " + std::string(m->source), {"catalog", 0}});
      } else if (r.reason.rfind("NHC:", 0) == 0 || r.reason.rfind("NHC ", 0) == 0) {
        f.cause =
            "A node health check (LBNL NHC or a site check run by it) failed; the text "
            "after 'NHC:' names the check and what it saw.";
        f.fix =
            "Run `nhc -v` on the node to see the failing check, fix what it names; NHC "
            "resumes nodes it offlined itself once the check passes.";
      } else if (r.reason.empty()) {
        f.cause =
            "The node is down or drained without a reason: slurmctld lost it (DOWN*, not "
            "responding) or someone drained it without saying why.";
        f.fix = "`scontrol show node NAME` for its state and `journalctl -u slurmd` on the node.";
      } else {
        f.cause =
            "Drained by an administrator or a site script with this reason (who and when "
            "are in the evidence).";
        f.fix = "Ask whoever set it before resuming; `scontrol update nodename=" + r.name +
                " state=resume` when fixed.";
      }
      if (r.reason_truncated)
        f.fix +=
            " sinfo -R cuts the reason at 20 characters: `sinfo -R -o \"%100E %12U %19H "
            "%N\"` or `scontrol show node " +
            r.name + "` shows all of it.";
      out.findings.push_back(std::move(f));
    }
    // Gres against the GPUs: with one node's scontrol record and an nvidia-smi capture of the
    // same node, fewer usable GPUs than Gres= declares is what slurmd will report as "gres/gpu
    // count reported lower than configured" at its next registration.
    if (!from_sinfo && nodes.size() == 1 && nodes[0].gres_gpus && n.gpus.ok() &&
        n.gpus->driver_loaded) {
      int usable = 0;
      for (const Gpu& g : n.gpus->gpus) usable += g.unreadable_fields.empty() ? 1 : 0;
      const SlurmNodeRecord& r = nodes[0];
      if (usable < *r.gres_gpus) {
        Finding f =
            finding("Slurm node " + r.name + " declares " + std::to_string(*r.gres_gpus) +
                    " GPU(s) (Gres=" + r.gres + "), nvidia-smi can use " + std::to_string(usable));
        f.node = n.label;
        f.evidence.push_back({"Gres=" + r.gres, r.where});
        f.evidence.push_back(
            {std::to_string(n.gpus->gpus.size()) + " GPU(s) listed, " +
                 std::to_string(n.gpus->lost.size()) + " lost, " +
                 std::to_string(n.gpus->gpus.size() - static_cast<std::size_t>(usable)) +
                 " unreadable",
             n.gpus.where});
        f.cause =
            "Slurm will place jobs on GPUs this node cannot use: slurmd drains the node "
            "(\"gres/gpu count reported lower than configured\") when it registers, or "
            "jobs that get the missing GPU fail.";
        f.fix =
            "Bring the GPU back (see gpu-unreadable / gpu-count-low) or lower the node's "
            "Gres= / gres.conf until it is repaired; drain the node meanwhile.";
        out.findings.push_back(std::move(f));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_slurm_node_unavailable() {
  return std::make_unique<SlurmNodeUnavailable>();
}

}  // namespace trainready
