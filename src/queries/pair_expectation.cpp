#include "queries/pair_expectation.h"

#include <cstdio>
#include <string>

#include "queries/sku_levels.h"

namespace trainready {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

}  // namespace

Mnnvl mnnvl_for(const SkuEntry* sku, bool nccl, const char* env_value) {
  if (!sku || !nccl || sku->nvlink_domain_vms <= 1) return Mnnvl::kNotApplicable;
  if (env_value == nullptr || std::string(env_value) == "0") return Mnnvl::kDisabled;
  return Mnnvl::kEnabled;
}

PairExpectation pair_expectation(const SkuEntry* sku, bool nccl, int rails,
                                 const RunOptions& options, std::uint64_t pair_bytes, Mnnvl mnnvl) {
  PairExpectation e;
  if (!sku) {
    e.why_unknown = "the VM size is not known (no IMDS answer; give --sku)";
    return e;
  }
  if (!nccl) {
    e.why_unknown =
        "MPI on host memory: the catalog's figures are GPU collectives, and which NICs carry "
        "an MPI message is the MPI library's choice (UCX: up to UCX_MAX_RNDV_RAILS HCAs for a "
        "large message, 2 by default, so neither node-wide nor one rail); cells are judged "
        "against their peers";
    return e;
  }
  if (!sku->has_infiniband()) {
    e.why_unknown = sku->name + " has no InfiniBand: no per-rail figure in the catalog";
    return e;
  }
  if (rails != sku->gpu_count || sku->ib_ports != sku->gpu_count) {
    e.why_unknown = "per-rail figures need one rank per GPU with one HCA each (" +
                    std::to_string(rails) + " ranks per node, " + sku->name + " has " +
                    std::to_string(sku->gpu_count) + " GPUs and " + std::to_string(sku->ib_ports) +
                    " HCAs)";
    return e;
  }
  if (pair_bytes < kPairFigureMinBytes) {
    e.why_unknown = "pairs of " + std::to_string(pair_bytes >> 20) +
                    " MiB (--quick) are judged against their peers only: the catalog's per-rail "
                    "figure is a large-message rate, applied from " +
                    std::to_string(kPairFigureMinBytes >> 20) + " MiB (--bandwidth, --full)";
    return e;
  }
  if (mnnvl == Mnnvl::kEnabled) {
    e.why_unknown = "NVLink, not IB: " + sku->name + " joins " +
                    std::to_string(sku->nvlink_domain_vms) +
                    " VMs a rack over NVLink and NCCL_MNNVL_ENABLE is set to other than 0, so "
                    "pairs inside a rack run over multi-node NVLink, not their HCAs; cells are "
                    "judged against their peers only (unset it, or set 0, for per-HCA rails)";
    return e;
  }
  // Where Azure's health checks hold one HCA to a level (AzNHC check_ib_bw_gdr, through the
  // shared two-level query), a rail is held to the same figure; otherwise line rate x efficiency.
  if (const std::optional<SkuLevel> hca = sku_level(*sku, kMetricIbWriteBwGdr, "vm")) {
    const double v = hca->repair_below / 8.0;
    e.gbytes_per_s = v;
    e.formula = sku->name + ": one HCA per rail, held to the per-HCA level of the size, " +
                fmt(hca->repair_below) + " " + hca->unit + " / 8 = " + fmt(v) +
                " GB/s per direction (" + hca->scope + ", catalog source " + hca->source + ")";
  } else {
    const double v = sku->ib_rate_gbits_per_s / 8.0 * options.efficiency;
    e.gbytes_per_s = v;
    e.formula = sku->name + ": one HCA per rail, " + fmt(sku->ib_rate_gbits_per_s) +
                " Gb/s / 8 x " + fmt(options.efficiency * 100) + "% = " + fmt(v) +
                " GB/s per direction";
  }
  if (mnnvl == Mnnvl::kDisabled)
    e.formula += " (run with NCCL_MNNVL_ENABLE=0: InfiniBand, not the rack's multi-node NVLink)";
  return e;
}

}  // namespace trainready
