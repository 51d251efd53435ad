#pragma once
// Two levels per VM size (issue 32, item 3): below "warn" re-test, below "repair" take the node
// out and report it (Microsoft's baselines: "If below GHR: Drain the node and file an Azure
// Guest Health Report"). One query for doctor, fleet and the health mode, over the two forms the
// catalog holds:
//   published_thresholds: Microsoft's two-level tables (Expected, Warn, GHR), as published;
//   health_floors: AzNHC's one pass line per check (check_ib_bw_gdr, check_nccl_allreduce),
//     used as the repair level with no warn level, since AzNHC publishes none.
// A published entry wins over an AzNHC floor for the same metric and layout.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace trainready {

// Metric keys (the unit is in the name, and in SkuLevel::unit).
inline constexpr std::string_view kMetricAllreduceBusbw = "nccl_allreduce_busbw_gbytes_per_s";
inline constexpr std::string_view kMetricIbWriteBwGdr = "ib_write_bw_gdr_gbits_per_s";
inline constexpr std::string_view kMetricGemm = "gemm_tflops_per_gpu";

// Layouts a level applies to: "vm" (one VM: AzNHC's single-VM all-reduce, one HCA's
// ib_write_bw), "nvlink_domain" (VMs of one NVLink rack), "across_domains" (VMs over
// InfiniBand), "gpu" (per GPU).
struct SkuLevel {
  std::string metric;
  std::string applies;
  std::string unit;     // "GB/s", "Gb/s", "TFLOP/s"
  std::string scope;    // as published
  std::string message;  // nccl-tests message size it was measured at, "" when none
  std::optional<double> expected;
  std::optional<double> warn_below;  // unset: no warn level published
  double repair_below = 0;           // GHR: drain, collect, report to Azure
  std::string source;                // catalog source key of every number above
  std::string origin;                // "published" (two levels) or "aznhc" (one pass line)
};

enum class LevelVerdict { kOk, kWarn, kRepair };

// The level of `metric` for `applies` on `sku`, or nullopt when the catalog has none.
std::optional<SkuLevel> sku_level(const SkuEntry& sku, std::string_view metric,
                                  std::string_view applies);
// Every level the catalog holds for `sku` (`catalog` and the health mode list them).
std::vector<SkuLevel> sku_levels(const SkuEntry& sku);

LevelVerdict judge_level(const SkuLevel& level, double value);
const char* verdict_name(LevelVerdict v);  // "ok", "warn", "repair"

// "Warn below 400 GB/s, repair (GHR) below 300 GB/s (source text)", for evidence lines.
std::string describe_level(const SkuLevel& level, const Catalog& catalog);

}  // namespace trainready
