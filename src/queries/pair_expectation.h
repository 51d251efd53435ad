#pragma once
// What one cell of the pair matrix should reach on a VM size, where the catalog says.
//   NCCL, one rank per GPU and as many GPUs as the size has: rail g of one VM talks to rail g of
//   the other through GPU g's own HCA (Azure's ND sizes pair GPU and HCA one to one, the
//   NCCL_TOPO_FILE the image ships), so a rail carries one HCA's line rate / 8 x the InfiniBand
//   efficiency (the same share as the all-reduce expectation, docs/busbw.md) in each direction.
//   MPI on host memory: which HCAs carry a message is the MPI library's choice (UCX spreads
//   large messages over the HCAs it finds; the TCP BTL over the interfaces it is given), and the
//   catalog measures GPUs, not host memory: no expectation, the cells are judged against their
//   peers only.
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "rules/run_options.h"

namespace trainready {

struct PairExpectation {
  std::optional<double> gbytes_per_s;
  std::string formula;      // the numbers, when known
  std::string why_unknown;  // when not
};

PairExpectation pair_expectation(const SkuEntry* sku, bool nccl, int rails,
                                 const RunOptions& options);

}  // namespace trainready
