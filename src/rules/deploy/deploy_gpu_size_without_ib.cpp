// deploy-gpu-size-without-ib: an N-series size without InfiniBand (NC40ads/NC80adis H100 v5,
// NC A100 v4, ...) used where several VMs form one cluster: NCCL between them runs over the
// front-end Ethernet.
#include "queries/deployment_queries.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployGpuSizeWithoutIb final : public Rule {
 public:
  std::string_view id() const override { return "deploy-gpu-size-without-ib"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "GPU size without InfiniBand used for a multi-VM cluster";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    const auto& rs = ctx.deployment->resources;
    // Several single VMs of such sizes also form a cluster.
    long long single_vms = 0;
    for (const auto& r : rs) {
      if (r.kind != ResourceKind::kVirtualMachine || !r.vm_size.is_known()) continue;
      SizeClass c = classify_size(r.vm_size.value, *ctx.catalog);
      if (c.gpu && !c.infiniband) single_vms += vm_count(r).value_or(1);
    }
    for (const auto& r : rs) {
      if (r.kind != ResourceKind::kVirtualMachine && r.kind != ResourceKind::kScaleSet &&
          r.kind != ResourceKind::kAksNodePool)
        continue;
      if (r.vm_size.is_unknown()) {
        out.notes.push_back(label(r) + ": VM size " + r.vm_size.raw + " not resolved (" +
                            r.vm_size.where.str() + ")");
        continue;
      }
      if (!r.vm_size.is_known()) continue;
      SizeClass c = classify_size(r.vm_size.value, *ctx.catalog);
      if (!c.gpu || c.infiniband) continue;
      auto n = vm_count(r);
      bool cluster = (n && *n > 1) || (r.kind == ResourceKind::kVirtualMachine && single_vms > 1);
      if (!cluster) continue;
      out.findings.push_back(make(r, c, n, single_vms, *ctx.catalog));
    }
    return out;
  }

 private:
  Finding make(const DeploymentResource& r, const SizeClass& c, std::optional<long long> n,
               long long single_vms, const Catalog& catalog) const {
    std::string size = r.vm_size.value;
    std::string how_many = n && *n > 1 ? std::to_string(*n) + " x " : "";
    Finding f = finding(label(r) + ": " + how_many + size +
                        " has no InfiniBand, so multi-VM training runs over Ethernet");
    f.evidence.push_back(setting_evidence("VM size", r.vm_size));
    if (n && *n > 1) {
      f.evidence.push_back(setting_evidence("count", r.count));
    } else {
      f.evidence.push_back({std::to_string(single_vms) +
                                " VMs of N-series sizes without InfiniBand in this deployment",
                            r.where});
    }
    std::string nic = c.sku != nullptr && c.sku->frontend_nic_gbits_per_s > 0
                          ? " (" + fmt_gbps(c.sku->frontend_nic_gbits_per_s) + " per VM)"
                          : "";
    f.cause = size +
              " has no 'r' (RDMA) size and no InfiniBand; between VMs NCCL falls back to "
              "TCP sockets over the front-end NIC" +
              nic +
              " (NCCL log: \"NET/Socket\"), so every gradient all-reduce waits on the network.";
    std::string alt = "an InfiniBand size such as Standard_ND96isr_H100_v5";
    if (c.sku != nullptr && !c.sku->multi_node_alternative.empty()) {
      alt = c.sku->multi_node_alternative;
      if (const SkuEntry* a = catalog.find(alt))
        alt += " (" + std::to_string(a->gpu_count) + " x " + a->gpu_model + ", " +
               std::to_string(a->ib_ports) + " x " + fmt_gbps(a->ib_rate_gbits_per_s) +
               " InfiniBand)";
    }
    f.fix = "For multi-VM training set the size to " + alt +
            " in one scale set with singlePlacementGroup true; keep " + size +
            " for jobs that fit on one VM.";
    return deployment_finding(std::move(f), r, r.vm_size.where);
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_gpu_size_without_ib() {
  return std::make_unique<DeployGpuSizeWithoutIb>();
}

}  // namespace trainready
