#pragma once
// The bus bandwidth an nccl-tests run should reach on its hardware, and how it was worked out:
//   one VM:      the catalog's single-VM all-reduce figure (Azure's node health check floor);
//   several VMs: min(that figure, HCAs per VM x per-HCA line rate / 8 x efficiency), or the
//                front-end NIC for sizes without InfiniBand; VMs that fit in one NVLink
//                domain (GB200 NVL72: 18 VMs per rack) keep the one-VM figure.
// docs/busbw.md explains the formulas.
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "catalog/vm_network.h"
#include "facts/nccl_tests_facts.h"
#include "rules/run_options.h"

namespace trainready {

struct BusbwExpectation {
  bool known = false;
  std::string why_unknown;  // what is missing, and the flag that supplies it
  const SkuEntry* sku = nullptr;
  std::string sku_origin;  // "--sku", "matched from the GPUs in 'Using devices'"
  int nodes = 0;
  std::string nodes_origin;
  double intra_gbytes = 0;             // single-VM figure
  std::optional<double> inter_gbytes;  // network bound, several VMs only
  double expected_gbytes = 0;
  double efficiency = 0;
  std::string formula;  // the numbers, as a line
};

BusbwExpectation expected_busbw(const NcclTestsFacts& t, const Catalog& catalog,
                                const RunOptions& options);

// A catalog size whose GPU model and count per VM match the "Using devices" lines, or null.
const SkuEntry* match_sku_from_devices(const NcclTestsFacts& t, const Catalog& catalog);

}  // namespace trainready
