#include "queries/node_queries.h"

#include <cctype>
#include <cmath>

#include "core/text.h"

namespace trainready {

Fact<std::string> vm_size_of(const NodeFacts& n, const RunOptions* options) {
  if (options && options->sku) return Fact<std::string>::present(*options->sku, {"--sku", 0});
  return n.vm_size();
}

const SkuEntry* sku_of(const NodeFacts& n, const RuleContext& ctx, std::string& why) {
  const Catalog& c = *ctx.catalog;
  Fact<std::string> size = vm_size_of(n, ctx.run_options);
  if (!size.ok()) {
    why = size.reason;
    return nullptr;
  }
  const SkuEntry* e = c.find(size.value);
  if (e == nullptr) why = "VM size " + size.value + " is not in the catalog (" + c.origin() + ")";
  return e;
}

const SkuEntry* multi_node_nvlink_sku(const NodeFacts& n, const RuleContext& ctx,
                                      RuleOutcome& outcome) {
  std::string why;
  const SkuEntry* sku = sku_of(n, ctx, why);
  if (sku == nullptr) {
    outcome = RuleOutcome::skip(why);
    return nullptr;
  }
  if (sku->nvlink_domain_vms <= 1) {
    outcome = RuleOutcome::does_not_apply(sku->name + " has no NVLink domain across VMs");
    return nullptr;
  }
  return sku;
}

std::vector<PortRef> infiniband_ports(const IbFacts& ib) {
  std::vector<PortRef> out;
  for (const auto& d : ib.devices) {
    for (const auto& p : d.ports) {
      if (p.link_layer.ok() && p.link_layer.value == "InfiniBand") out.push_back({&d, &p});
    }
  }
  return out;
}

std::optional<bool> n_series_has_rdma(const std::string& vm_size) {
  std::string s = to_lower(vm_size);
  if (s.rfind("standard_", 0) == 0) s.erase(0, 9);
  if (s.size() < 3 || s[0] != 'n' || !std::isalpha(static_cast<unsigned char>(s[1])))
    return std::nullopt;
  std::size_t i = 2;
  if (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])) && s[1] == 'c' && s[i] == 'c')
    ++i;  // NCC (confidential)
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  std::size_t end = s.find('_', i);
  std::string letters = s.substr(i, end == std::string::npos ? std::string::npos : end - i);
  return letters.find('r') != std::string::npos;
}

std::string fmt_gbps(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9)
    std::snprintf(buf, sizeof(buf), "%.0f Gb/s", v);
  else
    std::snprintf(buf, sizeof(buf), "%.1f Gb/s", v);
  return buf;
}

}  // namespace trainready
