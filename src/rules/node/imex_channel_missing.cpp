// imex-channel-missing: a size whose NVLink domain spans VMs (ND GB200 v6, ND GB300 v6) without
// the IMEX channel device /dev/nvidia-caps-imex-channels/channel0. CUDA needs an IMEX channel to
// export and import fabric memory between VMs; Azure's image loads the driver with
// NVreg_CreateImexChannel0=1 and its tests check this device (Azure/azhpc-images
// install_nvidiagpudriver.sh, tests/test-definitions.sh).
#include <algorithm>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ImexChannelMissing final : public Rule {
 public:
  std::string_view id() const override { return "imex-channel-missing"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Multi-node NVLink size without IMEX channel 0";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    RuleOutcome not_judged;
    const SkuEntry* sku = multi_node_nvlink_sku(n, ctx, not_judged);
    if (sku == nullptr) return not_judged;
    if (!n.imex_channels.ok())
      return RuleOutcome::skip("IMEX channels " + n.imex_channels.describe());
    const auto& c = *n.imex_channels;
    RuleOutcome out;
    if (std::find(c.begin(), c.end(), "channel0") != c.end()) return out;
    Finding f = finding("no IMEX channel device /dev/nvidia-caps-imex-channels/channel0 on this " +
                        sku->name + " VM");
    std::string seen;
    for (const std::string& x : c) seen += (seen.empty() ? "" : ", ") + x;
    f.evidence.push_back(
        {n.imex_channels.where.source + ": " + (c.empty() ? std::string("absent or empty") : seen),
         n.imex_channels.where});
    f.cause =
        "CUDA shares GPU memory across the VMs of an NVLink rack through an IMEX channel; with no "
        "channel device, multi-node NVLink (MNNVL) cannot be used and NCCL falls back to "
        "InfiniBand inside the rack. The driver creates channel 0 when loaded with "
        "NVreg_CreateImexChannel0=1 (Azure's image sets it in /etc/modprobe.d).";
    f.fix =
        "grep -r CreateImexChannel0 /etc/modprobe.d; add `options nvidia "
        "NVreg_CreateImexChannel0=1`, then reload the driver or reboot; ls -l "
        "/dev/nvidia-caps-imex-channels/ should show channel0.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_imex_channel_missing() { return std::make_unique<ImexChannelMissing>(); }

}  // namespace trainready
