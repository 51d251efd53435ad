#pragma once
// The bus bandwidth an nccl-tests run should reach on its hardware, and how it was worked out.
// The catalog's figures are all-reduce, so each collective gets only what they support:
//   all_reduce, one VM:    the single-VM figure (Azure's node health check floor; NVLS on
//                          NVSwitch sizes);
//   all_reduce, all_gather, reduce_scatter, several VMs: a ring through every VM,
//                          min(the ring's NVLink figure, the VM's network: HCAs x line rate / 8 x
//                          efficiency, or the front-end NIC x the Ethernet efficiency);
//   alltoall, several VMs: the VM's network shared by what leaves the VM,
//                          B_vm x (n-1) / (g x (n-g)), about one NIC per GPU;
//   sendrecv, several VMs: one NIC per GPU, B_vm / g;
//   VMs inside one NVLink domain (GB200 NVL72 rack): the one-VM all-reduce figure;
//   all_reduce on a size with published two-level levels (ND GB300 v6: intra-rack and
//   inter-rack, Warn and GHR) and no single-VM floor: those levels, as published;
//   anything else: not judged, and the reason says so.
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
  std::string collective;   // "all_reduce", ... (all_reduce when the output does not say)
  const SkuEntry* sku = nullptr;
  std::string sku_origin;  // "--sku", "matched from the GPUs in 'Using devices'"
  int nodes = 0;
  std::string nodes_origin;
  double intra_gbytes = 0;             // single-VM all-reduce figure (NVLS where it applies)
  double ring_gbytes = 0;              // ring figure through NVLink (= intra without NVLS)
  std::optional<double> inter_gbytes;  // network bound, several VMs only
  double expected_gbytes = 0;
  double efficiency = 0;  // of the network term: InfiniBand, or Ethernet for sizes without it
  std::string formula;    // the numbers, as a line
  // Set when the figure is a level the vendor publishes in two steps (Microsoft's ND GB300 v6
  // baselines): below warn_below a warning (re-test), below error_below an error (drain and
  // file a Guest Health Report), judged at `threshold_message` (nccl-tests size) or larger.
  std::optional<double> warn_below_gbytes;
  std::optional<double> error_below_gbytes;
  std::string threshold_message;
};

BusbwExpectation expected_busbw(const NcclTestsFacts& t, const Catalog& catalog,
                                const RunOptions& options);

// A catalog size whose GPU model and count per VM match the "Using devices" lines, or null.
const SkuEntry* match_sku_from_devices(const NcclTestsFacts& t, const Catalog& catalog);

}  // namespace trainready
