// gpu-xid-errors: the NVIDIA driver logged Xid errors in the kernel log. Each code is read with
// NVIDIA's Xid catalog (meaning and immediate action) and with Azure's node health checks, which
// fail a node on a fixed list of codes.
#include <map>
#include <set>
#include <utility>

#include "catalog/xid_catalog.h"
#include "core/text.h"
#include "core/utf8.h"
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
         b == "WORKFLOW_XID_48" || b.rfind("WORKFLOW_NVLINK", 0) == 0;
}

Severity severity_of(int code, const std::optional<XidInfo>& info) {
  if (aznhc_fails_on_xid(code)) return Severity::kError;
  if (!info) return Severity::kWarning;
  if (severe_bucket(info->immediate)) return Severity::kError;
  if (info->immediate == "RESTART_APP") return Severity::kWarning;
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
  return "No action by itself (NVIDIA's catalog: " + std::string(b) +
         "); watch for it recurring or with other codes.";
}

struct Group {
  int count = 0;
  std::set<std::string> processes;
  const XidEvent* last = nullptr;
};

class GpuXidErrors final : public Rule {
 public:
  std::string_view id() const override { return "gpu-xid-errors"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "NVIDIA driver Xid errors in the kernel log"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.kernel_log.ok()) return RuleOutcome::skip("kernel log " + n.kernel_log.describe());
    const KernelLogFacts& k = *n.kernel_log;
    RuleOutcome out;
    if (k.xids.empty()) return out;
    // GPU index by bus id, when NVML answered.
    std::map<std::string, int> index;
    if (n.gpus.ok())
      for (const Gpu& g : n.gpus->gpus) index[pci_key(g.pci_bus_id)] = g.index;
    std::map<int, std::map<std::string, Group>> by_code;  // code -> pci -> group
    for (const XidEvent& e : k.xids) {
      Group& g = by_code[e.code][e.pci];
      ++g.count;
      if (!e.process.empty()) g.processes.insert(e.process);
      g.last = &e;
    }
    const std::string range =
        k.first_timestamp.empty()
            ? ""
            : " (the log runs from " + k.first_timestamp + " to " + k.last_timestamp + ")";
    for (const auto& [code, gpus] : by_code) {
      std::optional<XidInfo> info = xid_info(code);
      Finding f = finding("");
      f.severity = severity_of(code, info);
      int total = 0;
      std::string where_gpus;
      for (const auto& [pci, g] : gpus) {
        total += g.count;
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
      f.cause = "The NVIDIA driver reported Xid " + std::to_string(code) + ": " + meaning +
                ". NVIDIA's Xid catalog gives the immediate action " +
                (info ? std::string(info->immediate) : std::string("(none listed)")) + "." +
                (aznhc_fails_on_xid(code)
                     ? " Azure's node health checks fail a node on this code within the last 2 "
                       "hours (check_gpu_xid, FaultCode NHC2001)."
                     : "") +
                " Read from " + k.source + range +
                "; a log that reaches back before the last reboot or GPU reset may show an "
                "error that was already dealt with: compare the timestamp with the node's uptime.";
      f.fix = action_of(info);
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_xid_errors() { return std::make_unique<GpuXidErrors>(); }

}  // namespace trainready
