#pragma once
// What one cell of the pair matrix should reach on a VM size, where the catalog says.
//   NCCL, one rank per GPU and as many GPUs as the size has: rail g of one VM talks to rail g of
//   the other through GPU g's own HCA (Azure's ND sizes pair GPU and HCA one to one, the
//   NCCL_TOPO_FILE the image ships), so a rail carries one HCA's line rate / 8 x the InfiniBand
//   efficiency (the same share as the all-reduce expectation, docs/busbw.md) in each direction.
//   MPI on host memory: which HCAs carry a message is the MPI library's choice (UCX spreads
//   a large message over up to UCX_MAX_RNDV_RAILS HCAs, 2 by default; the TCP BTL over the
//   interfaces it is given), and the catalog measures GPUs, not host memory: no expectation,
//   the cells are judged against their peers only.
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "rules/run_options.h"

namespace trainready {

// A size whose NVLink domain spans VMs (ND GB200 v6: NVL72, 18 VMs a rack): inside a rack NCCL
// talks between VMs over multi-node NVLink (MNNVL), not InfiniBand, unless NCCL_MNNVL_ENABLE=0
// (NCCL troubleshooting guide, "MNNVL"). The fleet's rail matrix sets it to 0 so a rail is an
// HCA again; a user who set it otherwise gets cells marked "NVLink, not IB".
enum class Mnnvl { kNotApplicable, kDisabled, kEnabled };
// env_value: NCCL_MNNVL_ENABLE as the ranks will see it (nullptr when unset: trainready sets 0).
Mnnvl mnnvl_for(const SkuEntry* sku, bool nccl, const char* env_value);

struct PairExpectation {
  std::optional<double> gbytes_per_s;
  std::string formula;      // the numbers, when known
  std::string why_unknown;  // when not
};

// The per-rail figure is a large-message rate. At --quick's 4 MiB a transfer at 48 GB/s takes
// ~87 us, and NCCL p2p setup plus the per-exchange polling are a sizeable part of that; no
// source shows the figure holds there. So it applies only when the matrices judged (the largest
// size) are at least 64 MiB, the --bandwidth size; smaller pairs are judged against their peers.
inline constexpr std::uint64_t kPairFigureMinBytes = std::uint64_t{64} << 20;

PairExpectation pair_expectation(const SkuEntry* sku, bool nccl, int rails,
                                 const RunOptions& options,
                                 std::uint64_t pair_bytes = kPairFigureMinBytes,
                                 Mnnvl mnnvl = Mnnvl::kNotApplicable);

}  // namespace trainready
