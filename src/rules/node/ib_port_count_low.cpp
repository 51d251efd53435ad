// ib-port-count-low: fewer InfiniBand ports are registered than the size has.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IbPortCountLow final : public Rule {
 public:
  std::string_view id() const override { return "ib-port-count-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Fewer InfiniBand ports than the size has"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    if (!sku->has_infiniband()) return out;
    if (!n.ib.ok()) return RuleOutcome::skip("InfiniBand devices " + n.ib.describe());
    // An excerpt shows some ports; the others were not captured, which is not "missing".
    if (!n.ib->excerpt.empty())
      return RuleOutcome::skip("the capture shows only part of the devices (" + n.ib->excerpt +
                               "): the port count is not judged");
    const auto ports = infiniband_ports(*n.ib);
    const int found = static_cast<int>(ports.size());
    if (found >= sku->ib_ports) return out;
    // With none at all and a readable PCI bus, ib-hca-missing / ib-driver-not-loaded say why.
    if (found == 0 && n.pci.ok()) return out;
    std::string names;
    for (const auto& r : ports) names += (names.empty() ? "" : ", ") + r.name();
    Finding f = finding(std::to_string(found) + " of " + std::to_string(sku->ib_ports) +
                        " InfiniBand ports present on " + sku->name);
    f.evidence.push_back(
        {"InfiniBand link-layer ports: " + (names.empty() ? std::string("none") : names),
         n.ib.where});
    int ethernet = 0;
    for (const auto& d : n.ib->devices) {
      for (const auto& p : d.ports)
        ethernet += p.link_layer.ok() && p.link_layer.value == "Ethernet";
    }
    if (ethernet > 0) {
      f.evidence.push_back({std::to_string(ethernet) +
                                " RDMA port(s) with link_layer Ethernet not counted (e.g. "
                                "Azure's mlx5_an0 accelerated networking)",
                            n.ib.where});
    }
    f.cause =
        "Some HCAs are missing or were not initialised by the driver. NCCL uses one rail per GPU "
        "on this size; "
        "with fewer rails inter-node bandwidth drops by the same fraction, or the job hangs if "
        "ranks disagree "
        "on the rails.";
    f.fix =
        "Check `dmesg | grep mlx5` for initialisation errors; deallocate/start the VM; report the "
        "node if HCAs stay "
        "missing.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_port_count_low() { return std::make_unique<IbPortCountLow>(); }

}  // namespace trainready
