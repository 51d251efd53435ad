#pragma once
// What the health rules conclude from a node's health state, and the repair each conclusion
// calls for. The rules (health-*.cpp beside this) turn verdicts into findings; `health` maps the
// findings it reports back to these verdicts to plan the repair (drain, evidence, GHR, reboot).
// No file is read here.
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "facts/health_facts.h"

namespace trainready {

// In the order of how far they go; a node's plan takes the furthest of its failing findings.
enum class RepairAction {
  kIgnore,      // nothing to do now (watch)
  kRestartJob,  // the job, not the node (NVIDIA's RESTART_APP)
  kResetGpu,    // nvidia-smi -r, or a reboot (RESET_GPU)
  kReboot,      // the VM (RESTART_BM)
  kRedeploy,    // deallocate and start: the VM moves to other hardware (RESTART_VM)
  kReportAzure  // drain, evidence, Guest Health Report (Unhealthy: out for repair, the host is
                // replaced), then reboot or redeploy
};

std::string_view to_string(RepairAction a);

// Microsoft Learn, "Impact categories for Guest Health Reporting (preview)"
// (learn.microsoft.com/azure/virtual-machines/guest-health-impact-categories, ms.date
// 2025-09-18).
inline constexpr std::string_view kGhrCategoriesSource =
    "learn.microsoft.com/azure/virtual-machines/guest-health-impact-categories";

struct HealthVerdict {
  std::string rule_id;
  Severity severity = Severity::kInfo;
  RepairAction action = RepairAction::kIgnore;
  std::string ghr_category;  // Resource.Hpc.Unhealthy.* when action is kReportAzure
  std::string subject;       // "mlx5_0/1", "GPU 0000:9b:00"
  std::string message;
  std::vector<Evidence> evidence;
  std::string cause;
  std::string fix;
};

// What to do for an action, in words (Azure's order for report-azure).
std::string repair_fix(RepairAction a, const std::string& ghr);

// The GPU-series and probe rules (health_judge_gpu.cpp): health-gpu-nvlink-errors,
// health-gpu-ecc, health-gpu-pcie-replay, health-gpu-throttle, health-probe-hung.
void health_gpu_verdicts(const HealthFacts& f, std::string_view rule_id,
                         std::vector<HealthVerdict>& out);

// The verdicts of one health rule over the state.
std::vector<HealthVerdict> health_verdicts(const HealthFacts& f, std::string_view rule_id);

}  // namespace trainready
