// roce-link-down: ibdev2netdev shows a RoCE port's netdev (Ethernet, a bond) Down. IPoIB netdevs
// ("ib*") are not judged: their Up/Down is the IP interface, not the InfiniBand port, which
// ibstat / ibv_devinfo report.
#include <cctype>

#include "queries/rdma_link_guess.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// The link layer of device/port when an ibstat / ibstatus / ibv_devinfo capture says it.
std::string link_layer_of(const NodeFacts& n, const std::string& device, int port) {
  if (!n.ib.ok()) return {};
  for (const auto& d : n.ib->devices) {
    if (d.name != device) continue;
    for (const auto& p : d.ports)
      if (p.number == port && p.link_layer.ok()) return p.link_layer.value;
  }
  return {};
}

// "enp27s0f1np1" -> "enp27s0": the PCI slot part of a predictable netdev name, shared by the
// ports (functions f0, f1) of one dual-port card.
std::string slot_of(const std::string& netdev) {
  for (std::size_t i = netdev.size(); i-- > 1;)
    if (netdev[i] == 'f' && i + 1 < netdev.size() &&
        std::isdigit(static_cast<unsigned char>(netdev[i + 1])) &&
        std::isdigit(static_cast<unsigned char>(netdev[i - 1])))
      return netdev.substr(0, i);
  return {};
}

class RoceLinkDown final : public Rule {
 public:
  std::string_view id() const override { return "roce-link-down"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "RoCE port's Ethernet link is Down"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.rdma_net.ok() || n.rdma_net->links.empty())
      return RuleOutcome::does_not_apply("no ibdev2netdev capture given (doctor --capture FILE)");
    RuleOutcome out;
    int ipoib_down = 0;
    std::vector<std::string> unknown_down;
    for (const RdmaNetdevLink& l : n.rdma_net->links) {
      if (l.up) continue;
      const std::string layer = link_layer_of(n, l.device, l.port);
      const RdmaLinkGuess guess =
          !layer.empty() ? (layer == "Ethernet" ? RdmaLinkGuess::kRoce : RdmaLinkGuess::kInfiniband)
                         : link_by_name(l.device, l.netdev);
      if (guess == RdmaLinkGuess::kInfiniband) {
        ++ipoib_down;
        continue;
      }
      if (guess == RdmaLinkGuess::kUnknown) {
        unknown_down.push_back(l.device + "/" + std::to_string(l.port) + " (" + l.netdev + ")");
        continue;
      }
      Finding f = finding("RoCE port " + l.device + "/" + std::to_string(l.port) + " (" + l.netdev +
                          ") is Down");
      f.node = n.label;
      f.evidence.push_back(
          {l.device + " port " + std::to_string(l.port) + " ==> " + l.netdev + " (Down)", l.where});
      f.evidence.push_back(
          {layer.empty()
               ? "RoCE by its names: " + std::string(l.device.find("_bond") != std::string::npos
                                                         ? "a bonded RDMA device"
                                                         : "an Ethernet netdev, not IPoIB (ib*)")
               : "link layer " + layer + " (from the InfiniBand capture)",
           l.where});
      const std::string slot = slot_of(l.netdev);
      std::string sibling_up;
      for (const RdmaNetdevLink& o : n.rdma_net->links)
        if (!slot.empty() && o.up && slot_of(o.netdev) == slot) sibling_up = o.netdev;
      if (!sibling_up.empty()) {
        // The other port of the same card is up: often a second port nobody cabled.
        f.severity = Severity::kWarning;
        f.evidence.push_back(
            {"the other port of the same card, " + sibling_up + ", is Up", l.where});
      }
      f.cause =
          std::string(sibling_up.empty() ? ""
                                         : "This may be the unused second port of a dual-port "
                                           "card (its sibling is Up). If it is meant to carry "
                                           "traffic: ") +
          "RoCE runs over the Ethernet netdev: with it Down the port has no link, so NCCL "
          "and perftest cannot use this HCA (NCCL skips it or the job fails on it). A "
          "cable, transceiver or switch port is down, the interface is administratively "
          "down, or (for a bond) every member link is down.";
      f.fix = "`ip link show " + l.netdev + "` and `ethtool " + l.netdev +
              "` (Link detected, speed); `ip link set " + l.netdev +
              " up` if it is only administratively down; for a bond `cat "
              "/proc/net/bonding/" +
              l.netdev +
              "` lists its members. Check the switch port; replace the cable or transceiver if "
              "the link does not come up. A port that is not meant to be used: leave it out of "
              "NCCL_IB_HCA.";
      out.findings.push_back(std::move(f));
    }
    if (!unknown_down.empty()) {
      std::string list;
      for (const auto& u : unknown_down) list += (list.empty() ? "" : ", ") + u;
      out.notes.push_back(
          "Down, link layer unknown from the names (pass ibstat or ibv_devinfo "
          "with ibdev2netdev to judge them): " +
          list);
    }
    if (ipoib_down > 0)
      out.notes.push_back(std::to_string(ipoib_down) +
                          " IPoIB netdev(s) are Down: that is the IP interface, not the "
                          "InfiniBand port (NCCL's IB transport does not use it); the port's "
                          "state is in ibstat / ibv_devinfo");
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_roce_link_down() { return std::make_unique<RoceLinkDown>(); }

}  // namespace trainready
