// nccl-topo-file-unset: an Azure ND/NC size that has a published NCCL topology file, but
// NCCL_TOPO_FILE is not set (typical of custom images).
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class NcclTopoFileUnset final : public Rule {
 public:
  std::string_view id() const override { return "nccl-topo-file-unset"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override {
    return "NCCL_TOPO_FILE unset on a size with a published topology file";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    if (!n.nccl.ok()) return RuleOutcome::skip("NCCL settings " + n.nccl.describe());
    RuleOutcome out;
    if (sku->nccl_topo_file.empty() || !n.nccl->topo_file.empty()) return out;
    Finding f = finding("NCCL_TOPO_FILE is not set on " + sku->name);
    f.evidence.push_back({"NCCL_TOPO_FILE not in the environment", n.nccl->env_source});
    f.evidence.push_back({"NCCL_TOPO_FILE not in nccl.conf", n.nccl->conf_source});
    if (n.imds.ok() && !n.imds->image_publisher.empty()) {
      f.evidence.push_back(
          {"image " + n.imds->image_publisher + ":" + n.imds->image_offer + ":" + n.imds->image_sku,
           n.imds.where});
    } else if (n.imds.ok() && !n.imds->image_id.empty()) {
      f.evidence.push_back({"custom image " + n.imds->image_id, n.imds.where});
    }
    f.cause =
        "Inside the VM NCCL cannot see the real PCIe/NUMA placement of GPUs and HCAs; Azure "
        "publishes it as " +
        sku->nccl_topo_file +
        " and its HPC images set NCCL_TOPO_FILE in /etc/nccl.conf. Custom images "
        "usually lack both. On ND A100 v4 this costs bandwidth (NVIDIA/nccl#513); on ND H100/H200 "
        "v5 recent "
        "NCCL detects the topology well and Azure's own health check runs without the file "
        "(azurehpc-health-checks#142).";
    f.fix = "Copy " + sku->nccl_topo_file +
            " from Azure/azhpc-images (topology/) into the image and set "
            "NCCL_TOPO_FILE=" +
            sku->nccl_topo_file +
            " in /etc/nccl.conf, then compare all_reduce_perf busbw with and "
            "without it.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_topo_file_unset() { return std::make_unique<NcclTopoFileUnset>(); }

}  // namespace trainready
