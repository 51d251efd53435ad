#include "queries/deployment_queries.h"

#include <cctype>

#include "core/text.h"
#include "queries/node_queries.h"

namespace trainready {

SizeClass classify_size(const std::string& vm_size, const Catalog& catalog) {
  SizeClass c;
  if (vm_size.empty()) return c;
  if (const SkuEntry* s = catalog.find(vm_size)) {
    c.known = true;
    c.sku = s;
    c.gpu = s->gpu_count > 0;
    c.infiniband = s->has_infiniband();
    return c;
  }
  if (auto rdma = n_series_has_rdma(vm_size)) {
    c.known = true;
    c.gpu = true;
    c.infiniband = *rdma;
    return c;
  }
  // H-series (HB120rs_v3, HC44rs, HX176rs): InfiniBand when 'r' is among the letters.
  std::string s = to_lower(vm_size);
  if (s.rfind("standard_", 0) == 0) s.erase(0, 9);
  if (s.size() > 2 && s[0] == 'h') {
    std::size_t i = 1;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      std::string letters = s.substr(i, s.find('_', i) - i);
      c.known = true;
      c.infiniband = letters.find('r') != std::string::npos;
      return c;
    }
  }
  // Any other family (D, E, F, ...) is a CPU size without InfiniBand.
  c.known = std::isalpha(static_cast<unsigned char>(s[0])) != 0;
  return c;
}

bool has_infiniband(const DeploymentResource& r, const Catalog& catalog) {
  return r.vm_size.is_known() && classify_size(r.vm_size.value, catalog).infiniband;
}

std::optional<long long> vm_count(const DeploymentResource& r) {
  if (r.count.is_known()) return r.count.value;
  if (r.count.is_unset())
    return r.kind == ResourceKind::kVirtualMachine ? std::optional<long long>(1) : std::nullopt;
  return std::nullopt;
}

std::string label(const DeploymentResource& r) {
  std::string s = std::string(resource_kind_name(r.kind)) + " '" + r.name + "'";
  if (r.address != r.name && !r.address.empty() && r.format == "terraform-plan")
    s += " (" + r.address + ")";
  return s;
}

Finding deployment_finding(Finding f, const DeploymentResource& r, const Provenance& where) {
  f.resource = r.address.empty() ? r.name : r.address;
  f.location = where.source.empty() ? r.where : where;
  return f;
}

std::vector<std::string> deployment_unresolved(const DeploymentFacts& facts,
                                               const Catalog& catalog) {
  std::vector<std::string> out = facts.unread;
  auto unresolved = [&](const DeploymentResource& r, const char* what, const auto& s) {
    out.push_back(s.where.str() + ": " + label(r) + " " + what + " " + s.raw + " not resolved");
  };
  for (const auto& r : facts.resources) {
    if (r.deployed) continue;
    if (r.kind != ResourceKind::kVirtualMachine && r.kind != ResourceKind::kScaleSet &&
        r.kind != ResourceKind::kAksNodePool)
      continue;
    if (r.vm_size.is_unknown()) {
      unresolved(r, "VM size", r.vm_size);
      continue;
    }
    if (!has_infiniband(r, catalog)) continue;
    if (r.count.is_unknown()) unresolved(r, "count", r.count);
    if (r.kind == ResourceKind::kVirtualMachine) {
      if (r.availability_set.is_unknown()) unresolved(r, "availability set", r.availability_set);
      if (r.scale_set.is_unknown()) unresolved(r, "scale set", r.scale_set);
    }
  }
  return out;
}

}  // namespace trainready
