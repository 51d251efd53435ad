// gpu-xid-errors: the NVIDIA driver logged Xid errors in the kernel log. Each code is read with
// NVIDIA's Xid catalog (meaning and immediate action) and with Azure's node health checks, which
// fail a node on a fixed list of codes. Only Xids of the current boot and within --xid-window
// (2 h, as AzNHC) are judged; older ones are info, ones whose time cannot be placed a warning at
// most, so `fleet --slurm-health --drain` never drains a node for an error a reboot dealt with.
#include <algorithm>
#include <ctime>
#include <map>
#include <set>
#include <utility>

#include "catalog/xid_catalog.h"
#include "core/text.h"
#include "core/units.h"
#include "core/utc_time.h"
#include "core/utf8.h"
#include "rules/node/xid_judgement.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// "0000:9b:00", "00000000:9B:00.0" -> "0:9b:00": the driver's Xid form and NVML's bus id agree.
std::string pci_key(std::string_view pci) {
  std::string s = to_lower(pci);
  if (auto dot = s.rfind('.'); dot != std::string::npos && s.size() - dot <= 2) s.resize(dot);
  auto first = s.find(':');
  if (first == std::string::npos || s.find(':', first + 1) == std::string::npos) return s;
  std::string domain = s.substr(0, first);
  while (domain.size() > 1 && domain.front() == '0') domain.erase(0, 1);
  return domain + s.substr(first);
}

bool severe_bucket(std::string_view b) {
  return b == "RESET_GPU" || b == "RESTART_BM" || b == "RESTART_VM" || b == "CONTACT_SUPPORT" ||
         b == "CHECK_MECHANICALS" || b == "WORKFLOW_XID_48" || b.rfind("WORKFLOW_NVLINK", 0) == 0;
}

Severity severity_of(int code, const std::optional<XidInfo>& info) {
  if (aznhc_fails_on_xid(code)) return Severity::kError;
  if (!info) return Severity::kWarning;
  if (severe_bucket(info->immediate)) return Severity::kError;
  // RESTART_APP; UPDATE_SWFW (driver/firmware); CHECK_UVM; no bucket yet (codes 162-172): the
  // catalog gives no action, so it is not dismissed as information.
  if (info->immediate == "RESTART_APP" || info->immediate == "UPDATE_SWFW" ||
      info->immediate == "CHECK_UVM" || info->immediate.empty())
    return Severity::kWarning;
  return Severity::kInfo;  // IGNORE, WORKFLOW_XID_45 (follows another Xid), XID_154
}

std::string action_of(const std::optional<XidInfo>& info) {
  if (!info) return "Look the code up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors).";
  std::string_view b = info->immediate;
  if (b == "RESTART_APP")
    return "Restart the job: NVIDIA's catalog points at the application or CUDA code first "
           "(investigation: " +
           std::string(info->investigatory) +
           "). The same code on the same GPU across different jobs points at the GPU.";
  if (b == "RESET_GPU")
    return "Reset the GPU (no process on it: `nvidia-smi -r -i <index>`; on NVSwitch sizes such "
           "as ND A100 v4 and ND H100/H200 v5 the GPUs reset together: stop "
           "nvidia-fabricmanager, `nvidia-smi -r`, start it again) or reboot the VM before the "
           "next job; if the code comes back, take the node out and report it.";
  if (b == "RESTART_BM" || b == "RESTART_VM")
    return "The GPU is unusable until the machine restarts: reboot. On Azure, deallocate and "
           "start the VM (it moves to other hardware) and report the node if it recurs.";
  if (b == "WORKFLOW_XID_48")
    return "Uncorrectable ECC error: reset the GPU or reboot so the row is remapped, then check "
           "`nvidia-smi -q -d ROW_REMAPPER` (gpu-memory-errors); a failed remap needs service.";
  if (b.rfind("WORKFLOW_NVLINK", 0) == 0)
    return "Reset the GPUs of the NVLink domain (restart nvidia-fabricmanager on NVSwitch sizes) "
           "and check `nvidia-smi nvlink -s`; if links stay down or errors recur, report the node.";
  if (b == "WORKFLOW_XID_45")
    return "Xid 45 follows another error (the driver cleaned up channels): act on the other Xid; "
           "alone, NVIDIA's catalog says restart Fabric Manager.";
  if (b == "CONTACT_SUPPORT") return "Take the node out and report it.";
  if (b == "CHECK_MECHANICALS")
    return "The GPU board's power is not as it should be: take the node out and report it (on "
           "Azure, deallocate and start the VM to move it to other hardware).";
  if (b == "UPDATE_SWFW")
    return "Update the NVIDIA driver / GPU firmware to a supported pair (NVIDIA's catalog: "
           "UPDATE_SWFW), then restart the job.";
  if (b == "CHECK_UVM")
    return "NVIDIA's catalog points at unified memory (CHECK_UVM): check the nvidia-uvm module "
           "and the application's managed-memory use; restart the job.";
  if (b.empty())
    return "NVIDIA's catalog gives no action for this code yet (" + std::string(info->description) +
           "); if it comes with another Xid, act on that one; if it recurs, report the node.";
  return "No action by itself (NVIDIA's catalog: " + std::string(b) +
         "); watch for it recurring or with other codes.";
}

struct Group {
  int count = 0;
  int repeats = 0;  // lines identical to one already counted (same time, GPU and text)
  std::set<std::string> processes;
  std::set<std::string> seen;
  const XidEvent* last = nullptr;
};

// Where a Xid stands against the current boot and the window (AzNHC's azure_gpu_xid.nhc judges
// only the last 2 hours). Only kCurrent is judged with the catalog's severity.
enum class When { kCurrent, kUnplaced, kOlder, kBeforeBoot };

When when_of(const XidEvent& e, const KernelLogFacts& k, double window_s) {
  if (e.earlier_boot) return When::kBeforeBoot;
  if (e.time == 0) return When::kUnplaced;
  if (k.boot_time != 0 && e.time < k.boot_time) return When::kBeforeBoot;
  if (k.read_at != 0 && static_cast<double>(k.read_at - e.time) > window_s) return When::kOlder;
  if (k.boot_time == 0) return When::kUnplaced;  // recent, but maybe before a reboot
  return When::kCurrent;
}

class GpuXidErrors final : public Rule {
 public:
  std::string_view id() const override { return "gpu-xid-errors"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "NVIDIA driver Xid errors in the kernel log"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.kernel_log.ok()) return RuleOutcome::skip("kernel log " + n.kernel_log.describe());
    const KernelLogFacts& k = *n.kernel_log;
    const double window_s =
        ctx.run_options ? ctx.run_options->xid_window_s : kDefaultXidWindowSeconds;
    RuleOutcome out;
    if (k.xids.empty()) return out;
    // GPU index by bus id, when NVML answered.
    std::map<std::string, int> index;
    if (n.gpus.ok())
      for (const Gpu& g : n.gpus->gpus) index[pci_key(g.pci_bus_id)] = g.index;
    // (when, code) -> pci -> group
    std::map<std::pair<When, int>, std::map<std::string, Group>> by_code;
    for (const XidEvent& e : k.xids) {
      Group& g = by_code[{when_of(e, k, window_s), e.code}][e.pci];
      if (!g.seen.insert(e.timestamp + '\n' + e.detail).second && !e.timestamp.empty()) {
        ++g.repeats;
        continue;
      }
      ++g.count;
      if (!e.process.empty()) g.processes.insert(e.process);
      g.last = &e;
    }
    const std::string range =
        k.first_timestamp.empty()
            ? ""
            : " (the log runs from " + k.first_timestamp + " to " + k.last_timestamp + ")";
    const std::string window = format_duration(window_s);
    const std::string boot =
        k.boot_time != 0 ? "the current boot (" + utc_text(k.boot_time) + ", /proc/stat btime)"
                         : "the current boot";
    for (const auto& [key, gpus] : by_code) {
      const auto [when, code] = key;
      std::optional<XidInfo> info = xid_info(code);
      Finding f = finding("");
      const Severity judged = severity_of(code, info);
      int total = 0;
      int repeats = 0;
      std::int64_t last_time = 0;
      std::string where_gpus;
      for (const auto& [pci, g] : gpus) {
        total += g.count;
        repeats += g.repeats;
        last_time = std::max(last_time, g.last->time);
        std::string gpu = pci.empty() ? std::string("an unnamed GPU") : pci;
        if (auto it = index.find(pci_key(pci)); it != index.end())
          gpu = "GPU " + std::to_string(it->second) + " (" + pci + ")";
        where_gpus += (where_gpus.empty() ? "" : ", ") + gpu;
        std::string procs;
        for (const auto& p : g.processes) procs += (procs.empty() ? "" : ", ") + p;
        std::string text = gpu + ": Xid " + std::to_string(code) + " x" + std::to_string(g.count) +
                           ", last " + (g.last->timestamp.empty() ? "" : g.last->timestamp + " ") +
                           "\"" + clip_text(g.last->detail, 160) + "\"";
        if (!procs.empty()) text += " (process " + procs + ")";
        f.evidence.push_back({text, g.last->where});
      }
      const std::string meaning =
          info ? std::string(info->description) + ", " + std::string(info->mnemonic)
               : std::string("not in the catalog table trainready carries");
      f.message = "Xid " + std::to_string(code) + " (" +
                  (info ? std::string(info->description) : std::string("unknown code")) +
                  ") logged " + std::to_string(total) + " time" + (total == 1 ? "" : "s") + " on " +
                  where_gpus;
      const std::string ago =
          last_time != 0 && k.read_at != 0
              ? ", the last " + format_duration(static_cast<double>(k.read_at - last_time)) +
                    " before the log was read"
              : "";
      std::string timing;
      switch (when) {
        case When::kCurrent:
          f.severity = judged;
          timing = "Logged since " + boot + " and within the last " + window + " (--xid-window)" +
                   ago + ".";
          if (k.read_at == 0) timing += " The window was not applied: " + k.time_note + ".";
          break;
        case When::kUnplaced:
          f.severity = std::min(judged, Severity::kWarning);
          f.message += "; its time could not be placed";
          timing = "When it was logged is not known (" +
                   (k.time_note.empty() ? std::string("the line's timestamp has no form "
                                                      "trainready can place")
                                        : k.time_note) +
                   "), so it may be from before the current boot and is not judged as current: "
                   "a warning at most. On the node, `journalctl -k -b` or `dmesg -T` shows the "
                   "current boot's lines.";
          break;
        case When::kOlder:
          f.severity = Severity::kInfo;
          f.message += ", more than " + window + " ago";
          timing = "Logged since " + boot + " but more than " + window +
                   " before the log was read" + ago +
                   ": past the --xid-window, so reported, not judged (Azure's node health "
                   "checks skip such Xids too).";
          break;
        case When::kBeforeBoot:
          f.severity = Severity::kInfo;
          f.message += ", before the current boot";
          timing = "Logged before " + boot +
                   (last_time == 0 ? std::string(" (the log shows a later boot)") : ago) +
                   ": a reboot or a move to other hardware came after it, so it says nothing "
                   "about this boot's GPUs.";
          break;
      }
      if (repeats > 0)
        timing += " " + std::to_string(repeats) + " identical repeated line" +
                  (repeats == 1 ? " was" : "s were") + " counted once.";
      f.cause = "The NVIDIA driver reported Xid " + std::to_string(code) + ": " + meaning +
                ". NVIDIA's Xid catalog gives the immediate action " +
                (info ? std::string(info->immediate) : std::string("(none listed)")) + "." +
                (aznhc_fails_on_xid(code)
                     ? " Azure's node health checks fail a node on this code within the last 2 "
                       "hours (check_gpu_xid, FaultCode NHC2001)."
                     : "") +
                " " + timing + " Read from " + k.source + range + ".";
      f.fix = when == When::kOlder || when == When::kBeforeBoot
                  ? "Nothing to do for this boot. If the code comes back on the same GPU: " +
                        action_of(info)
                  : action_of(info);
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

Severity xid_severity(int code) { return severity_of(code, xid_info(code)); }
std::string xid_action(int code) { return action_of(xid_info(code)); }

std::unique_ptr<Rule> make_gpu_xid_errors() { return std::make_unique<GpuXidErrors>(); }

}  // namespace trainready
