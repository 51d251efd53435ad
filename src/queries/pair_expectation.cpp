#include "queries/pair_expectation.h"

#include <cstdio>

namespace trainready {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

}  // namespace

PairExpectation pair_expectation(const SkuEntry* sku, bool nccl, int rails,
                                 const RunOptions& options) {
  PairExpectation e;
  if (!sku) {
    e.why_unknown = "the VM size is not known (no IMDS answer; give --sku)";
    return e;
  }
  if (!nccl) {
    e.why_unknown =
        "MPI on host memory: the catalog's figures are GPU collectives, and which NICs carry "
        "an MPI message is the MPI library's choice; cells are judged against their peers";
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
  const double v = sku->ib_rate_gbits_per_s / 8.0 * options.efficiency;
  e.gbytes_per_s = v;
  e.formula = sku->name + ": one HCA per rail, " + fmt(sku->ib_rate_gbits_per_s) + " Gb/s / 8 x " +
              fmt(options.efficiency * 100) + "% = " + fmt(v) + " GB/s per direction";
  return e;
}

}  // namespace trainready
