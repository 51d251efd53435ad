// gpu-clocks-throttled: NVML says a GPU's clocks are held down by a hardware slowdown, thermal
// slowdown or power brake (nvmlDeviceGetCurrentClocksEventReasons).
#include <cstdio>
#include <utility>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// nvml.h nvmlClocksEventReason* bits that mean the GPU is slowed by something other than the
// work it is given (idle, application clocks, the software power cap and sync boost are not).
constexpr std::pair<std::uint64_t, const char*> kBad[] = {
    {0x8, "HW slowdown"},
    {0x20, "SW thermal slowdown"},
    {0x40, "HW thermal slowdown"},
    {0x80, "HW power brake slowdown"},
};

class GpuClocksThrottled final : public Rule {
 public:
  std::string_view id() const override { return "gpu-clocks-throttled"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "GPU clocks held down by a slowdown"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    if (!n.gpus->driver_loaded)
      return RuleOutcome::skip("no NVIDIA driver: " + n.gpus->no_driver_reason);
    RuleOutcome out;
    int reported = 0;
    std::vector<std::string> missing;
    Finding f = finding("");
    int slowed = 0;
    for (const Gpu& g : n.gpus->gpus) {
      if (!g.clocks_event_reasons) {
        missing.push_back("GPU " + std::to_string(g.index) + " (" + g.pci_bus_id +
                          "): NVML reports no clocks event reasons");
        continue;
      }
      ++reported;
      std::string reasons;
      for (const auto& [bit, name] : kBad) {
        if (*g.clocks_event_reasons & bit)
          reasons += (reasons.empty() ? "" : ", ") + std::string(name);
      }
      if (reasons.empty()) continue;
      ++slowed;
      char mask[32];
      std::snprintf(mask, sizeof mask, "0x%llx",
                    static_cast<unsigned long long>(*g.clocks_event_reasons));
      f.evidence.push_back({"GPU " + std::to_string(g.index) + " (" + g.pci_bus_id +
                                "): " + reasons + " (clocks event reasons " + mask + ")",
                            n.gpus.where});
    }
    if (reported == 0 && !n.gpus->gpus.empty())
      return RuleOutcome::skip("NVML reports no clocks event reasons for these GPUs");
    out.notes = std::move(missing);  // the GPUs judged are judged; the others were not
    if (slowed == 0) return out;
    f.message = std::to_string(slowed) + " of " + std::to_string(n.gpus->gpus.size()) +
                " GPUs are slowed by a hardware, thermal or power-brake slowdown";
    f.cause =
        "The GPU lowered its clocks because of its temperature, a power-brake signal from the "
        "host or a hardware fault, not because of the work it runs. A slowed GPU holds back "
        "every collective it joins (the job runs at the pace of the slowest rank). Azure's "
        "node health checks test this (check_gpu_clock_throttling).";
    f.fix =
        "Check `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER` under load; if a slowdown "
        "persists, take the node out of the job and report it (deallocate/start moves it to "
        "another host).";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_clocks_throttled() { return std::make_unique<GpuClocksThrottled>(); }

}  // namespace trainready
