// imex-not-running: a size whose NVLink domain spans VMs (ND GB200 v6, ND GB300 v6: 18 VMs a
// rack) without the nvidia-imex daemon. NCCL uses multi-node NVLink (MNNVL) between the VMs of a
// rack only when the IMEX service runs; without it NCCL falls back to InfiniBand inside the rack
// (NCCL troubleshooting guide, "MNNVL"), and CUDA fabric memory handles cannot be shared.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ImexNotRunning final : public Rule {
 public:
  std::string_view id() const override { return "imex-not-running"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Multi-node NVLink size without the nvidia-imex service running";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    RuleOutcome not_judged;
    const SkuEntry* sku = multi_node_nvlink_sku(n, ctx, not_judged);
    if (sku == nullptr) return not_judged;
    if (!n.imex_daemon.ok()) return RuleOutcome::skip("nvidia-imex " + n.imex_daemon.describe());
    RuleOutcome out;
    if (*n.imex_daemon) return out;
    Finding f = finding("the nvidia-imex daemon is not running on this " + sku->name + " VM");
    f.evidence.push_back(
        {"no process named nvidia-imex in " + n.imex_daemon.where.source, n.imex_daemon.where});
    f.evidence.push_back({sku->name + ": NVLink domain of " +
                              std::to_string(sku->nvlink_domain_vms) + " VMs (" +
                              ctx.catalog->source_text(sku->nvlink_domain_source) + ")",
                          {"catalog", 0}});
    f.cause =
        "NCCL carries traffic between the VMs of one NVLink rack over multi-node NVLink (MNNVL) "
        "only through the IMEX (Internode Memory Exchange) service; without it NCCL falls back to "
        "InfiniBand inside the rack, and the all-reduce reads low with no GPU or NVLink fault. "
        "Azure's image installs nvidia-imex and enables nvidia-imex.service. (In a container "
        "without the host's PID namespace the daemon is not visible: run the doctor on the host.)";
    f.fix =
        "sudo systemctl status nvidia-imex; sudo journalctl -u nvidia-imex; check "
        "/etc/nvidia-imex/nodes_config.cfg lists the rack's VMs, then sudo systemctl enable --now "
        "nvidia-imex. GB200 MNNVL also needs NCCL 2.25.2 or later.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_imex_not_running() { return std::make_unique<ImexNotRunning>(); }

}  // namespace trainready
