#pragma once
// Queries over facts that rules share (pure functions: no I/O).
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "facts/node_facts.h"
#include "rules/rule.h"

namespace trainready {

// The VM size the rules compare against: --sku when given, else what IMDS reports.
Fact<std::string> vm_size_of(const NodeFacts& n, const RunOptions* options);
// The catalog entry for the node's VM size, or nullptr with `why` saying what is missing.
const SkuEntry* sku_of(const NodeFacts& n, const RuleContext& ctx, std::string& why);
// The catalog entry of a size whose NVLink domain spans VMs (ND GB200 v6, ND GB300 v6), or nullptr
// with `outcome` set to what a multi-node-NVLink rule returns instead (skipped: the size is not
// known; does not apply: its NVLink domain is one VM).
const SkuEntry* multi_node_nvlink_sku(const NodeFacts& n, const RuleContext& ctx,
                                      RuleOutcome& outcome);

struct PortRef {
  const IbDevice* device;
  const IbPort* port;
  std::string name() const { return device->name + "/" + std::to_string(port->number); }
};
// Ports whose link_layer is InfiniBand (Ethernet RDMA ports such as Azure's mlx5_an0 excluded).
std::vector<PortRef> infiniband_ports(const IbFacts& ib);

// True for Azure N-series names whose capability letters include 'r' (RDMA): ND96isr_H100_v5.
// nullopt when the name is not an N-series size.
std::optional<bool> n_series_has_rdma(const std::string& vm_size);

std::string fmt_gbps(double v);  // "400 Gb/s"

}  // namespace trainready
