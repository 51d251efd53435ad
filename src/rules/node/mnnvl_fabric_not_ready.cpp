// mnnvl-fabric-not-ready: a size whose NVLink domain spans VMs (ND GB200 v6, ND GB300 v6) whose
// GPUs have not joined the multi-node NVLink fabric: NVML's GPU fabric state is not "completed",
// the registration failed, or the cluster UUID is zero / the clique id missing. NCCL enables
// MNNVL only when every rank's fabric state is completed and the cluster UUID is non-zero (NCCL
// src/mnnvl.cc ncclMnnvlCheck: "MNNVL disabled: rank %d fabric state %d is not completed", "A
// zero UUID means we don't have MNNVL fabric info - disable MNNVL"); GPUs of one NVLink
// partition share a cluster UUID and clique id.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

bool zero_uuid(const std::optional<std::string>& u) {
  if (!u) return true;
  for (char c : *u)
    if (c != '0') return false;
  return true;
}

std::string state_of(const Gpu& g) {
  std::string s = "fabric state " + g.fabric_state.value_or("not reported") + ", status " +
                  std::to_string(g.fabric_status.value_or(0));
  s += ", cluster UUID " + (g.fabric_cluster_uuid ? *g.fabric_cluster_uuid : "not reported");
  s += ", clique " + (g.fabric_clique_id ? std::to_string(*g.fabric_clique_id) : "not reported");
  return s;
}

class MnnvlFabricNotReady final : public Rule {
 public:
  std::string_view id() const override { return "mnnvl-fabric-not-ready"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "GPUs not registered with the multi-node NVLink fabric";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    RuleOutcome not_judged;
    const SkuEntry* sku = multi_node_nvlink_sku(n, ctx, not_judged);
    if (sku == nullptr) return not_judged;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    if (!n.gpus->driver_loaded)
      return RuleOutcome::skip("no NVIDIA driver: " + n.gpus->no_driver_reason);
    if (n.gpus->gpus.empty()) return RuleOutcome::skip("NVML lists no GPUs");
    std::vector<const Gpu*> bad;
    bool any_state = false;
    for (const Gpu& g : n.gpus->gpus) {
      any_state = any_state || g.fabric_state.has_value();
      const bool ok = g.fabric_state == std::optional<std::string>("completed") &&
                      g.fabric_status.value_or(0) == 0 && !zero_uuid(g.fabric_cluster_uuid) &&
                      g.fabric_clique_id.has_value();
      if (!ok) bad.push_back(&g);
    }
    if (!any_state)
      return RuleOutcome::skip(
          "NVML reports no GPU fabric state (driver before R530?); check `nvidia-smi -q | grep "
          "-A6 Fabric` for State Completed and a ClusterUUID");
    RuleOutcome out;
    if (bad.empty()) return out;
    Finding f = finding(std::to_string(bad.size()) + " of " + std::to_string(n.gpus->gpus.size()) +
                        " GPUs have not joined the multi-node NVLink fabric (GPU " +
                        std::to_string(bad.front()->index) + ": " + state_of(*bad.front()) + ")");
    for (const Gpu* g : bad)
      f.evidence.push_back(
          {"GPU " + std::to_string(g->index) + " (" + g->pci_bus_id + "): " + state_of(*g),
           n.gpus.where});
    f.evidence.push_back({sku->name + ": NVLink domain of " +
                              std::to_string(sku->nvlink_domain_vms) + " VMs (" +
                              ctx.catalog->source_text(sku->nvlink_domain_source) + ")",
                          {"catalog", 0}});
    f.cause =
        "NCCL uses multi-node NVLink between the VMs of a rack only when every GPU's fabric "
        "registration completed with a non-zero cluster UUID; otherwise it disables MNNVL and "
        "the rack's VMs talk over InfiniBand. Usual causes: the NVLink switch trays' fabric "
        "(NVIDIA NMX / fabric manager on the switches) has not configured this VM's GPUs yet, "
        "or a GPU's NVLinks are down.";
    f.fix =
        "nvidia-smi -q | grep -A6 Fabric (State Completed, Status Success, a ClusterUUID and "
        "CliqueId shared by the rack's VMs); wait a few minutes after boot and check again; if it "
        "stays so, deallocate/start the VM or report it (Azure Guest Health Report, "
        "category nvlink_down).";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_mnnvl_fabric_not_ready() {
  return std::make_unique<MnnvlFabricNotReady>();
}

}  // namespace trainready
