// ib-hca-missing: the size should have InfiniBand HCAs, but fewer (or none) are on the PCI bus.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IbHcaMissing final : public Rule {
 public:
  std::string_view id() const override { return "ib-hca-missing"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "InfiniBand HCAs missing from the PCI bus"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    if (!sku->has_infiniband()) return out;
    if (!n.pci.ok()) return RuleOutcome::skip("PCI devices " + n.pci.describe());
    if (!n.pci->excerpt.empty())
      return RuleOutcome::skip("the capture shows only part of the PCI devices (" + n.pci->excerpt +
                               "): HCAs are not counted");
    int hcas = 0;
    for (const auto& d : n.pci->devices) {
      // InfiniBand controllers (class 0x0207); the Ethernet VF of accelerated networking is 0x0200.
      if (d.kind == PciKind::kMellanox && (d.class_code >> 8) == 0x0207) ++hcas;
    }
    if (hcas >= sku->ib_ports) return out;
    Finding f = finding(std::to_string(hcas) + " of " + std::to_string(sku->ib_ports) +
                        " InfiniBand HCAs expected on " + sku->name + " are on the PCI bus");
    f.evidence.push_back(
        {std::to_string(hcas) +
             " Mellanox InfiniBand controllers (class 0x0207) under /sys/bus/pci/devices",
         n.pci.where});
    f.evidence.push_back({sku->name + " has " + std::to_string(sku->ib_ports) + " x " +
                              fmt_gbps(sku->ib_rate_gbits_per_s) + " " + sku->ib_generation +
                              " (catalog: " + sku->source + ")",
                          {"catalog", 0}});
    f.cause = hcas == 0
                  ? "The host did not attach the InfiniBand virtual functions to this VM (a "
                    "host-side fault or a "
                    "deployment that disabled them), so there is nothing for the driver to bind to."
                  : "Some InfiniBand virtual functions were not attached by the host: the VM would "
                    "run NCCL "
                    "with fewer rails, or NCCL would hang waiting for the missing ones.";
    f.fix =
        "Deallocate and start the VM (a reboot keeps the same host); if HCAs are still missing, "
        "report the node "
        "with Azure Guest Health Reporting / a support request and take it out of the job.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_hca_missing() { return std::make_unique<IbHcaMissing>(); }

}  // namespace trainready
