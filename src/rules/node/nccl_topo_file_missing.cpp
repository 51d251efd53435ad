// nccl-topo-file-missing: NCCL_TOPO_FILE names a file that does not exist.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class NcclTopoFileMissing final : public Rule {
 public:
  std::string_view id() const override { return "nccl-topo-file-missing"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "NCCL_TOPO_FILE points to a missing file"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.nccl.ok()) return RuleOutcome::skip("NCCL settings " + n.nccl.describe());
    RuleOutcome out;
    const NcclSettings& s = *n.nccl;
    if (s.topo_file.empty()) return out;
    if (!s.topo_file_exists.ok())
      return RuleOutcome::skip("NCCL_TOPO_FILE " + s.topo_file_exists.describe());
    if (s.topo_file_exists.value) return out;
    Finding f = finding("NCCL_TOPO_FILE=" + s.topo_file + " does not exist");
    f.evidence.push_back({"NCCL_TOPO_FILE=" + s.topo_file, s.topo_file_origin});
    f.evidence.push_back({s.topo_file + ": no such file", s.topo_file_exists.where});
    f.cause =
        "NCCL warns \"Could not open XML topology file\" and falls back to detecting the topology "
        "itself. Inside "
        "a Hyper-V VM the PCI tree it sees is flattened, so GPU/NIC affinity can come out wrong "
        "and rings cross "
        "NUMA nodes, costing bandwidth. Often the variable was copied from an Azure HPC image into "
        "a container "
        "that lacks the file.";
    std::string want;
    std::string why;
    if (const SkuEntry* sku = sku_of(n, ctx, why); sku != nullptr && !sku->nccl_topo_file.empty()) {
      want = " For " + sku->name + " the Azure HPC images ship " + sku->nccl_topo_file + ".";
    }
    f.fix =
        "Mount or copy the topology file to that path (e.g. bind-mount /opt/microsoft into the "
        "container), or unset "
        "NCCL_TOPO_FILE." +
        want;
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_topo_file_missing() {
  return std::make_unique<NcclTopoFileMissing>();
}

}  // namespace trainready
