#pragma once
// Pure queries over DeploymentFacts that the deployment rules share: classifying a VM size,
// counting VMs, quoting a Setting as evidence and labelling a resource.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "facts/deployment_facts.h"

namespace trainready {

struct SizeClass {
  bool known = false;  // the size could be classified
  bool gpu = false;    // N-series
  bool infiniband = false;
  const SkuEntry* sku = nullptr;  // catalog entry, when there is one
};

// Catalog first; otherwise the name: N-series sizes with 'r' (RDMA) in their capability letters
// have InfiniBand (H-series with 'r' too, as CPU HPC sizes).
SizeClass classify_size(const std::string& vm_size, const Catalog& catalog);

// True when the resource's VM size is known and has InfiniBand.
bool has_infiniband(const DeploymentResource& r, const Catalog& catalog);

// VMs the resource stands for: count when known, else nullopt.
std::optional<long long> vm_count(const DeploymentResource& r);

// "scale set 'computeVmss'" / "virtual machine 'node' (x10)".
std::string label(const DeploymentResource& r);

// `name = value` (or the raw expression) with its file:line, for Finding::evidence.
template <class T>
Evidence setting_evidence(const std::string& name, const Setting<T>& s) {
  std::string text = name + " = ";
  if (s.is_unset()) {
    text += "(not set)";
  } else if (s.is_unknown()) {
    text += s.raw + " (not resolved)";
  } else {
    text += s.raw.empty() ? "(set)" : s.raw;
  }
  return Evidence{text, s.where};
}

// What of the deployment could not be resolved and may hide a finding, one line each with the
// expression and its file:line: linked templates not read, compute resources whose VM size is
// unknown, InfiniBand (or unknown) sizes whose count or scale set / availability set is unknown.
std::vector<std::string> deployment_unresolved(const DeploymentFacts& facts,
                                               const Catalog& catalog);

// A finding located at `where` (falling back to the resource) and naming the resource.
Finding deployment_finding(Finding f, const DeploymentResource& r, const Provenance& where);

}  // namespace trainready
