// ib-write-bw-low: an `ib_write_bw` capture below the per-HCA figure Azure's node health checks
// hold the VM size to (AzNHC check_ib_bw_gdr: ib_write_bw from GPU memory, 8 MiB messages,
// "BW average" in Gb/s; the floor is in the catalog as ib_write_bw_gdr_gbits_per_s). The levels
// come from queries/sku_levels.h: AzNHC's pass line is the repair level; where the catalog holds
// a published two-level entry for the metric, a run between Warn and repair is a warning.
#include <cstdio>
#include <utility>

#include "queries/node_queries.h"
#include "queries/sku_levels.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// AzNHC runs ib_write_bw with -s 8388608; much smaller messages do not reach line rate.
constexpr std::uint64_t kAznhcMessageBytes = 8388608;
constexpr std::uint64_t kSmallMessageBytes = 1048576;

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

class IbWriteBwLow final : public Rule {
 public:
  std::string_view id() const override { return "ib-write-bw-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "ib_write_bw below the per-HCA floor of the VM size";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.ib_write_bw.ok()) {
      // A measurement the user runs and passes in, not a fact of every node: without one there
      // is nothing to judge, which is not a check that failed to run.
      return RuleOutcome::does_not_apply(
          "no ib_write_bw run given (`doctor --capture ib_write_bw=FILE`)");
    }
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why + "; the floor depends on the VM size");
    const std::optional<SkuLevel> level = sku_level(*sku, kMetricIbWriteBwGdr, "vm");
    if (!level)
      return RuleOutcome::skip("the catalog has no per-HCA ib_write_bw floor for " + sku->name +
                               " (Azure's node health checks define none for it)");
    const double floor = level->repair_below;
    RuleOutcome out;
    Finding f = finding("");
    int low = 0;
    int repair = 0;
    bool all_small = true;
    bool any_host = false;
    bool any_ethernet = false;
    bool any_bidir = false;
    std::string worst;
    double worst_ratio = 2;
    for (const IbWriteBwRun& r : n.ib_write_bw->runs) {
      // A bidirectional run (-b) reports both directions summed: the floor is per direction.
      const double per_direction = r.bidirectional ? r.average_gbps / 2 : r.average_gbps;
      const LevelVerdict v = judge_level(*level, per_direction);
      if (v == LevelVerdict::kOk) continue;
      const double run_floor =
          (r.bidirectional ? 2 : 1) *
          (v == LevelVerdict::kRepair ? floor : level->warn_below.value_or(floor));
      ++low;
      if (v == LevelVerdict::kRepair) ++repair;
      if (r.bytes >= kSmallMessageBytes) all_small = false;
      any_host |= !r.gpu_memory;
      any_ethernet |= r.link_type == "Ethernet";
      any_bidir |= r.bidirectional;
      const double ratio = r.average_gbps / run_floor;
      const std::string dev = r.device.empty() ? std::string("(device not printed)") : r.device;
      std::string text =
          dev + ": " + num(r.average_gbps) + " Gb/s average (peak " + num(r.peak_gbps) + ") at " +
          std::to_string(r.bytes) + " B, " + num(ratio) + "x of " + num(run_floor) + " Gb/s; " +
          (r.gpu_memory
               ? "GPU memory" + (r.gpu_name.empty() ? std::string() : " (" + r.gpu_name + ")")
               : std::string("host memory")) +
          ", link type " + (r.link_type.empty() ? "?" : r.link_type) +
          (r.qps > 0 ? ", " + std::to_string(r.qps) + " QP" : std::string()) +
          (r.bidirectional ? ", bidirectional" : "") +
          (r.unit_text != "Gb/sec" ? ", converted from " + r.unit_text : "");
      f.evidence.push_back({text, r.where});
      if (ratio < worst_ratio) {
        worst_ratio = ratio;
        worst = dev + " " + num(r.average_gbps) + " Gb/s";
      }
    }
    if (low == 0) return out;
    if (all_small || repair == 0) f.severity = Severity::kWarning;
    f.message =
        std::to_string(low) + " of " + std::to_string(n.ib_write_bw->runs.size()) +
        " ib_write_bw run" + (n.ib_write_bw->runs.size() == 1 ? "" : "s") + " below " +
        (repair == 0 ? num(level->warn_below.value_or(floor)) + " Gb/s per HCA, the Warn level of "
                     : num(floor) + " Gb/s per HCA, the floor of ") +
        sku->name + " (lowest: " + worst + ")";
    f.evidence.push_back({"levels: " + describe_level(*level, *ctx.catalog), {"catalog", 0}});
    std::string cause =
        "Azure's node health checks expect at least " + num(floor) +
        " Gb/s from ib_write_bw on "
        "every InfiniBand HCA of " +
        sku->name + " (check_ib_bw_gdr: GPU memory, " + std::to_string(kAznhcMessageBytes) +
        "-byte messages, the BW average column). An HCA "
        "below it slows every all-reduce that crosses it: a port trained at a lower rate or "
        "width, a PCIe link below its capability, GPUDirect RDMA going through host memory, or "
        "a faulty cable or HCA.";
    if (any_host)
      cause +=
          " A run from host memory did not exercise GPUDirect RDMA; it should still reach "
          "the floor.";
    if (any_ethernet)
      cause +=
          " A run used an Ethernet (RoCE) device: on Azure that is the front-end "
          "accelerated-networking NIC (mlx5_an0), not an InfiniBand HCA; run it on mlx5_ib*.";
    if (any_bidir)
      cause +=
          " A bidirectional run (-b) adds both directions, so it is judged against twice the "
          "floor.";
    if (all_small)
      cause +=
          " Every low run used messages under 1 MiB, which may not reach line rate: rerun "
          "with -s 8388608 before concluding.";
    f.cause = cause;
    f.fix =
        "Check the HCA's port (ibstat: rate, width) and PCIe link (pcie-link-degraded), then run "
        "AzNHC's test: `ib_write_bw -s 8388608 -x 0 -F --report_gbits --perform_warm_up "
        "--use_cuda=<gpu> -d <hca>` in loopback (server and client on the same HCA, pinned with "
        "numactl to its NUMA node). If one HCA stays below the floor, take the node out and "
        "report it.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_write_bw_low() { return std::make_unique<IbWriteBwLow>(); }

}  // namespace trainready
