// vm-size-no-infiniband: the VM size has no InfiniBand, so it cannot join multi-node training
// over InfiniBand, whatever is installed on it.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class VmSizeNoInfiniband final : public Rule {
 public:
  std::string_view id() const override { return "vm-size-no-infiniband"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "VM size has no InfiniBand"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    Fact<std::string> size = vm_size_of(n, ctx.run_options);
    if (!size.ok()) return RuleOutcome::skip(size.reason);
    RuleOutcome out;
    const SkuEntry* sku = ctx.catalog->find(size.value);
    std::string detail;
    std::string alternative = "an ND size with 'r' in its name, such as Standard_ND96isr_H100_v5";
    if (sku != nullptr) {
      if (sku->has_infiniband() || sku->gpu_count == 0) return out;
      detail = sku->name + " (" + std::to_string(sku->gpu_count) + " x " + sku->gpu_model +
               ") has no InfiniBand; its only network is the front-end Ethernet at " +
               fmt_gbps(sku->frontend_nic_gbits_per_s) + " per VM (catalog: " + sku->source + ")";
      if (!sku->multi_node_alternative.empty()) {
        if (const SkuEntry* alt = ctx.catalog->find(sku->multi_node_alternative)) {
          alternative = alt->name + " (" + std::to_string(alt->gpu_count) + " x " + alt->gpu_model +
                        ", " + std::to_string(alt->ib_ports) + " x " +
                        fmt_gbps(alt->ib_rate_gbits_per_s) + " " + alt->ib_generation +
                        " InfiniBand with GPUDirect RDMA)";
        }
      }
    } else {
      auto rdma = n_series_has_rdma(size.value);
      if (!rdma)
        return RuleOutcome::skip("VM size " + size.value +
                                 " is not in the catalog and is not an N-series name");
      if (*rdma) return out;
      detail = size.value +
               " is an N-series size without 'r' (RDMA) in its capability letters, so it has no "
               "InfiniBand";
    }
    Finding f = finding(size.value + " cannot join multi-node training over InfiniBand");
    f.evidence.push_back({"vmSize = " + size.value, size.where});
    f.cause = detail +
              ". Gradient all-reduce between such VMs goes over TCP sockets, typically 100x slower "
              "than InfiniBand, so GPUs spend most of each step waiting on the network.";
    f.fix = "For multi-node training deploy " + alternative +
            " in one scale set with singlePlacementGroup=true (or one availability set). Keep " +
            size.value + " for single-node jobs.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_vm_size_no_infiniband() {
  return std::make_unique<VmSizeNoInfiniband>();
}

}  // namespace trainready
