// pcie-link-degraded: a GPU or network adapter trained its PCIe link below what it supports
// (fewer lanes or a lower generation): a hardware or seating fault that caps its bandwidth.
#include <cctype>

#include "core/text.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// "16.0 GT/s PCIe" (sysfs) or "16GT/s" (lspci) -> 16; nullopt for "unknown" / "Unknown".
std::optional<double> gts(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  return parse_double(std::string_view(s).substr(0, i));
}

class PcieLinkDegraded final : public Rule {
 public:
  std::string_view id() const override { return "pcie-link-degraded"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "GPU or HCA PCIe link below its capability"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.pci.ok()) return RuleOutcome::skip("PCI devices " + n.pci.describe());
    RuleOutcome out;
    for (const PciDevice& d : n.pci->devices) {
      // An excerpt's link lines without their device line: some device's link, judged as such.
      const bool unnamed = d.address.empty();
      if (d.kind != PciKind::kNvidiaGpu && d.kind != PciKind::kAmdGpu &&
          d.kind != PciKind::kMellanox && !unnamed)
        continue;
      // Virtual functions under Hyper-V report "unknown" / x0: nothing to compare.
      const bool narrow =
          d.link_width > 0 && d.max_link_width > 0 && d.link_width < d.max_link_width;
      auto cur = gts(d.link_speed);
      auto max = gts(d.max_link_speed);
      const bool slow = cur && max && *cur + 1e-9 < *max;
      // LnkSta alone, LnkCap not captured: lspci's own "(downgraded)" says it.
      const bool marked = !max && d.link_marked_downgraded;
      if (!narrow && !slow && !marked) continue;
      const std::string what =
          unnamed ? std::string("a PCIe device (its lspci line is not in the capture)")
                  : (d.kind == PciKind::kMellanox ? "network adapter " : "GPU ") + d.address +
                        (d.model.empty() ? "" : " (" + d.model + ")");
      const std::string capable =
          max ? d.max_link_speed + " x" + std::to_string(d.max_link_width)
              : std::string("more (lspci marks it downgraded; LnkCap not captured)");
      Finding f = finding(what + " runs its PCIe link at " + d.link_speed + " x" +
                          std::to_string(d.link_width) + ", capable of " + capable);
      f.evidence.push_back({"current_link_speed " + d.link_speed + ", current_link_width " +
                                std::to_string(d.link_width) + "; max_link_speed " +
                                d.max_link_speed + ", max_link_width " +
                                std::to_string(d.max_link_width),
                            d.where});
      f.cause =
          std::string("The link trained ") +
          (narrow ? "with fewer lanes" : "at a lower generation") +
          " than the device and slot support: a badly seated card or riser, a damaged lane, or a "
          "power-saving state that never recovered. Host-to-device copies and GPUDirect RDMA "
          "through this "
          "device run at a fraction of their bandwidth, and the whole job waits for it.";
      f.fix =
          "Check again under load (links can downtrain when idle on some platforms); if it stays "
          "low, "
          "deallocate/start the VM to move hosts, or on bare metal reseat the device and check "
          "`lspci -vv` LnkSta against LnkCap. Report the node if it persists.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_pcie_link_degraded() { return std::make_unique<PcieLinkDegraded>(); }

}  // namespace trainready
