// ib-port-rate-low: an active InfiniBand port negotiated less than the size's line rate, or,
// whatever the size, less than (or a different width from) the other ports of the same node.
#include <algorithm>
#include <map>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

constexpr const char* kCause =
    "The link trained at a lower speed or width (a degraded cable/transceiver, a switch port "
    "forced to a lower speed, or a lane down). A ring all-reduce runs at the pace of its slowest "
    "link, so this one port lowers the bus bandwidth of every job that uses the node.";
constexpr const char* kFix =
    "Take the node out of the job and deallocate/start it to move to another host; on bare metal "
    "reseat or replace the cable and check the switch port. Azure's node health checks fail a "
    "node for this (check_hw_ib).";

std::string width_text(int w) { return std::to_string(w) + "X"; }

class IbPortRateLow final : public Rule {
 public:
  std::string_view id() const override { return "ib-port-rate-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand port rate below the size's line rate or its peers";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    RuleOutcome out;
    if (sku != nullptr && !sku->has_infiniband()) return out;
    if (!n.ib.ok()) return RuleOutcome::skip("InfiniBand devices " + n.ib.describe());
    std::vector<const PortRef*> active;
    const auto ports = infiniband_ports(*n.ib);
    for (const PortRef& r : ports) {
      const IbPort& p = *r.port;
      if (!p.state.ok()) {
        // Without its state a port's rate cannot be judged (a down port's rate means nothing):
        // that part of the check did not run, and says so.
        out.notes.push_back(r.name() + ": rate not judged, state " + p.state.describe());
        continue;
      }
      if (p.state.value != "ACTIVE") continue;  // a down port's rate means nothing
      if (!p.rate_gbps.ok()) {
        out.notes.push_back(r.name() + ": rate " + p.rate_gbps.describe());
        continue;
      }
      active.push_back(&r);
    }
    // The reference: the size's line rate when the catalog knows the size, else the fastest
    // port of this node (a bare-metal node, a snapshot without IMDS): ports of one node are
    // built alike, so one slower port is a finding either way.
    if (active.empty() && !out.notes.empty())
      return RuleOutcome::skip(
          "no InfiniBand port rate could be judged: " + out.notes.front() +
          (out.notes.size() > 1 ? " (and " + std::to_string(out.notes.size() - 1) + " more)" : ""));
    double expected = 0;
    std::string basis;
    const PortRef* fastest = nullptr;
    for (const PortRef* r : active) {
      if (fastest == nullptr || r->port->rate_gbps.value > fastest->port->rate_gbps.value)
        fastest = r;
    }
    if (sku != nullptr) {
      expected = sku->ib_rate_gbits_per_s;
      basis = sku->name + " expects " + fmt_gbps(expected);
    } else if (active.size() >= 2) {
      expected = fastest->port->rate_gbps.value;
      basis = "other ports of this node run at " + fmt_gbps(expected) +
              " (VM size unknown: " + why + ")";
    } else {
      return RuleOutcome::skip(why + "; and fewer than two ACTIVE InfiniBand ports to compare");
    }
    std::vector<const PortRef*> slow;
    for (const PortRef* r : active) {
      const IbPort& p = *r->port;
      if (p.rate_gbps.value + 1e-6 >= expected) continue;
      slow.push_back(r);
      Finding f = finding("InfiniBand port " + r->name() + " runs at " +
                          fmt_gbps(p.rate_gbps.value) + ", " + basis);
      f.evidence.push_back(
          {"rate: " + (p.rate_text.empty() ? fmt_gbps(p.rate_gbps.value) : p.rate_text),
           p.rate_gbps.where});
      if (sku != nullptr) {
        f.evidence.push_back({sku->name + ": " + std::to_string(sku->ib_ports) + " x " +
                                  fmt_gbps(sku->ib_rate_gbits_per_s) + " " + sku->ib_generation +
                                  " (catalog: " + sku->source + ")",
                              {"catalog", 0}});
      } else {
        const IbPort& q = *fastest->port;
        f.evidence.push_back({fastest->name() + " rate: " +
                                  (q.rate_text.empty() ? fmt_gbps(q.rate_gbps.value) : q.rate_text),
                              q.rate_gbps.where});
      }
      f.cause = kCause;
      f.fix = kFix;
      out.findings.push_back(std::move(f));
    }
    // Mixed widths (a 4X port among 1X, or 2X among 4X) are a lane fault even where the rates
    // happen to match; widths come from the sysfs rate text "(4X NDR)".
    std::map<int, int> widths;
    for (const PortRef* r : active) {
      if (r->port->link_width > 0) ++widths[r->port->link_width];
    }
    if (widths.size() > 1) {
      const int common =
          std::max_element(widths.begin(), widths.end(), [](const auto& a, const auto& b) {
            return a.second < b.second || (a.second == b.second && a.first < b.first);
          })->first;
      for (const PortRef* r : active) {
        const IbPort& p = *r->port;
        if (p.link_width == 0 || p.link_width == common) continue;
        if (std::find(slow.begin(), slow.end(), r) != slow.end()) continue;  // already reported
        Finding f =
            finding("InfiniBand port " + r->name() + " trained at " + width_text(p.link_width) +
                    " while the other ports of this node are " + width_text(common));
        f.evidence.push_back({"rate: " + p.rate_text, p.rate_gbps.where});
        f.cause = kCause;
        f.fix = kFix;
        out.findings.push_back(std::move(f));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_port_rate_low() { return std::make_unique<IbPortRateLow>(); }

}  // namespace trainready
