// ib-port-rate-low: an active InfiniBand port negotiated less than the size's line rate.
#include "facts/queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IbPortRateLow final : public Rule {
 public:
  std::string_view id() const override { return "ib-port-rate-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand port rate below the size's line rate";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, *ctx.catalog, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    if (!sku->has_infiniband()) return out;
    if (!n.ib.ok()) return RuleOutcome::skip("InfiniBand devices " + n.ib.describe());
    for (const PortRef& r : infiniband_ports(*n.ib)) {
      const IbPort& p = *r.port;
      if (!p.state.ok() || p.state.value != "ACTIVE") continue;  // a down port's rate means nothing
      if (!p.rate_gbps.ok()) {
        out.notes.push_back(r.name() + ": rate " + p.rate_gbps.describe());
        continue;
      }
      if (p.rate_gbps.value + 1e-6 >= sku->ib_rate_gbits_per_s) continue;
      Finding f =
          finding("InfiniBand port " + r.name() + " runs at " + fmt_gbps(p.rate_gbps.value) + ", " +
                  sku->name + " expects " + fmt_gbps(sku->ib_rate_gbits_per_s));
      f.evidence.push_back(
          {"rate: " + (p.rate_text.empty() ? fmt_gbps(p.rate_gbps.value) : p.rate_text),
           p.rate_gbps.where});
      f.evidence.push_back({sku->name + ": " + std::to_string(sku->ib_ports) + " x " +
                                fmt_gbps(sku->ib_rate_gbits_per_s) + " " + sku->ib_generation +
                                " (catalog: " + sku->source + ")",
                            {"catalog", 0}});
      f.cause =
          "The link trained at a lower speed or width (a degraded cable/transceiver, a switch port "
          "forced to a "
          "lower speed, or a lane down). A ring all-reduce runs at the pace of its slowest link, "
          "so this one port "
          "lowers the bus bandwidth of every job that uses the node.";
      f.fix =
          "Take the node out of the job and deallocate/start it to move to another host; on bare "
          "metal reseat or "
          "replace the cable and check the switch port. Azure's node health checks fail a node for "
          "this "
          "(check_hw_ib).";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_port_rate_low() { return std::make_unique<IbPortRateLow>(); }

}  // namespace trainready
