// nccl-ib-relaxed-ordering-off: a size whose Azure HPC image sets NCCL_IB_PCI_RELAXED_ORDERING=1
// in /etc/nccl.conf (ND A100 v4, ND H100/H200 v5), but this node disables it or leaves it to
// NCCL's detection.
#include "core/text.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

constexpr const char* kKey = "NCCL_IB_PCI_RELAXED_ORDERING";

class NcclIbRelaxedOrderingOff final : public Rule {
 public:
  std::string_view id() const override { return "nccl-ib-relaxed-ordering-off"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL_IB_PCI_RELAXED_ORDERING not 1 where Azure's image sets it";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    auto want = sku->image_nccl_conf.find(kKey);
    if (want == sku->image_nccl_conf.end()) return out;
    if (!n.nccl.ok()) return RuleOutcome::skip("NCCL settings " + n.nccl.describe());
    const auto got = n.nccl->lookup(kKey);
    const std::string value = got ? std::string(trim(got->first)) : "";
    if (value == want->second) return out;
    const bool off = value == "0";
    Finding f = finding(
        off ? std::string(kKey) + "=0 disables PCIe relaxed ordering on " + sku->name
            : std::string(kKey) + " is " + (value.empty() ? "not set" : "\"" + value + "\"") +
                  " on " + sku->name + "; Azure's image sets it to " + want->second);
    if (!off) f.severity = Severity::kInfo;
    if (got) {
      f.evidence.push_back({std::string(kKey) + "=" + value, got->second});
    } else {
      f.evidence.push_back({std::string(kKey) + " not in the environment", n.nccl->env_source});
      f.evidence.push_back({std::string(kKey) + " not in nccl.conf", n.nccl->conf_source});
    }
    f.evidence.push_back({"Azure HPC image for " + sku->name + ": " + kKey + "=" + want->second +
                              " (" + ctx.catalog->source_text(sku->image_source) + ")",
                          {"catalog", 0}});
    f.cause =
        "Relaxed ordering lets the HCA's PCIe writes to GPU memory complete out of order; NCCL "
        "documents it as a large gain for InfiniBand in virtualized environments. NCCL's "
        "default (2) uses it only when it detects support, and Azure's HPC images force 1 on "
        "this size in /etc/nccl.conf (so do Azure's node health checks when they measure "
        "all-reduce). " +
        std::string(off ? "0 turns it off: expect lower inter-node bus bandwidth."
                        : "Without the setting this node depends on NCCL's detection inside the "
                          "VM: usually a custom image without Azure's /etc/nccl.conf.");
    f.fix = std::string("Set ") + kKey + "=" + want->second +
            " in /etc/nccl.conf (or the job's environment), as Azure's HPC image does, and "
            "compare all_reduce_perf busbw across nodes before and after.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_relaxed_ordering_off() {
  return std::make_unique<NcclIbRelaxedOrderingOff>();
}

}  // namespace trainready
