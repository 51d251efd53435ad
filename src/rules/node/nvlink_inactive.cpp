// nvlink-inactive: a GPU with fewer active NVLinks than the other GPUs of the node (or none on
// a size with NVLink), or NVLink recovery errors. Link state per GPU from NVML.
#include <algorithm>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class NvlinkInactive final : public Rule {
 public:
  std::string_view id() const override { return "nvlink-inactive"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "NVLink links inactive or in error recovery"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    if (!n.gpus->driver_loaded)
      return RuleOutcome::skip("no NVIDIA driver: " + n.gpus->no_driver_reason);
    RuleOutcome out;
    const auto& gpus = n.gpus->gpus;
    if (gpus.size() < 2) return out;  // one GPU: nothing for NVLink to join
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    const bool nvlink_size =
        sku != nullptr && sku->gpu_link.find("NVLink") != std::string::npos && sku->gpu_count > 1;
    int most = -1;
    int reported = 0;
    std::vector<std::string> missing;
    for (const Gpu& g : gpus) {
      if (!g.nvlink_active) {
        missing.push_back("GPU " + std::to_string(g.index) + " (" + g.pci_bus_id +
                          "): NVML reports no NVLink state");
        continue;
      }
      ++reported;
      most = std::max(most, *g.nvlink_active);
    }
    if (reported == 0) {
      if (nvlink_size)
        return RuleOutcome::skip("NVML reports no NVLink state for the GPUs of this " + sku->name +
                                 " (nvmlDeviceGetNvLinkState)");
      return out;
    }
    out.notes = std::move(missing);  // the GPUs judged are judged; the others were not
    // GPUs of one node are built alike: compare each with the best of them. (NC80adis_H100_v5's
    // H100 NVL cards use 12 of 18 links by design, AzNHC#162: counting links against 18 would
    // fail every such node.)
    std::vector<const Gpu*> fewer;
    for (const Gpu& g : gpus) {
      if (g.nvlink_active && (*g.nvlink_active < most || most == 0)) fewer.push_back(&g);
    }
    if (!fewer.empty() && (most > 0 || nvlink_size)) {
      Finding f = finding(most == 0 ? "no NVLink is active on any GPU of this " +
                                          (sku != nullptr ? sku->name : std::string("node"))
                                    : std::to_string(fewer.size()) +
                                          " GPU(s) have fewer active NVLinks than the " +
                                          "others (" + std::to_string(most) + ")");
      for (const Gpu* g : fewer)
        f.evidence.push_back({"GPU " + std::to_string(g->index) + " (" + g->pci_bus_id +
                                  "): " + std::to_string(*g->nvlink_active) + " of " +
                                  std::to_string(g->nvlink_links.value_or(0)) + " links active",
                              n.gpus.where});
      f.cause =
          "An inactive NVLink lowers the GPU's bandwidth to its peers and can break NVLS and "
          "CUDA peer-to-peer: the single-node all-reduce falls below the health-check floor and "
          "every job on the node runs at its pace. Azure's node health checks fail a node for "
          "this (check_nvlink_status, fault NHC2016 NvLink).";
      f.fix =
          "Take the node out of the job; check `nvidia-smi nvlink --status` and, on NVSwitch "
          "sizes, Fabric Manager (see fabric-manager-not-ready). A GPU reset or "
          "deallocate/start may recover it; otherwise report the node.";
      out.findings.push_back(std::move(f));
    }
    std::vector<const Gpu*> recovering;
    for (const Gpu& g : gpus) {
      if (g.nvlink_recovery_errors.value_or(0) > 0) recovering.push_back(&g);
    }
    if (!recovering.empty()) {
      Finding f =
          finding(std::to_string(recovering.size()) + " GPU(s) report NVLink recovery errors");
      f.severity = Severity::kWarning;
      for (const Gpu* g : recovering)
        f.evidence.push_back({"GPU " + std::to_string(g->index) + ": " +
                                  std::to_string(*g->nvlink_recovery_errors) + " recovery, " +
                                  std::to_string(g->nvlink_crc_errors.value_or(0)) +
                                  " CRC errors (summed over links, since driver load)",
                              n.gpus.where});
      f.cause =
          "A link in error recovery retrains while traffic waits; repeated recoveries point to a "
          "marginal link. The counters accumulate since the driver loaded.";
      f.fix =
          "Watch whether the counts grow under load (`nvidia-smi nvlink -e`); if they do, take "
          "the node out and report it.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nvlink_inactive() { return std::make_unique<NvlinkInactive>(); }

}  // namespace trainready
