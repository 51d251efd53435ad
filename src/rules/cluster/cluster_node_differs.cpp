// cluster-node-differs: most nodes agree on a hardware or software property and a few do not:
// HCA firmware, InfiniBand port rates and active ports, GPU model and count, PCIe links of GPUs
// and NICs, kernel. Versions, pkeys, placement and VM size have rules of their own (which also
// name the odd nodes out); this one covers what those do not.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "queries/node_grouping.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

using Getter = std::function<std::optional<NodeValue>(const NodeFacts&, std::string&)>;

// "8 x 400 Gb/s" from a multiset of values.
std::string tally(const std::map<std::string, int>& m) {
  std::string s;
  for (const auto& [v, n] : m) s += (s.empty() ? "" : ", ") + std::to_string(n) + " x " + v;
  return s;
}

std::optional<NodeValue> ib_value(
    const NodeFacts& n, std::string& why,
    const std::function<void(const PortRef&, std::map<std::string, int>&)>& add) {
  if (!n.ib.ok()) {
    why = "InfiniBand devices " + n.ib.describe();
    return std::nullopt;
  }
  std::map<std::string, int> m;
  const std::vector<PortRef> ports = infiniband_ports(*n.ib);
  if (ports.empty()) {
    why = "no InfiniBand port";
    return std::nullopt;
  }
  for (const PortRef& r : ports) add(r, m);
  return NodeValue{tally(m), ports.front().device->where};
}

std::optional<NodeValue> pci_value(const NodeFacts& n, std::string& why, PciKind kind,
                                   const char* what) {
  if (!n.pci.ok()) {
    why = "PCI devices " + n.pci.describe();
    return std::nullopt;
  }
  std::map<std::string, int> m;
  Provenance where;
  for (const PciDevice& d : n.pci->devices) {
    if (d.kind != kind || d.virtual_function || d.link_width <= 0) continue;
    ++m["x" + std::to_string(d.link_width) + (d.link_speed.empty() ? "" : " " + d.link_speed)];
    if (where.source.empty()) where = d.where;
  }
  if (m.empty()) {
    why = std::string("no ") + what + " with a PCIe link width";
    return std::nullopt;
  }
  return NodeValue{tally(m), where};
}

struct Property {
  std::string name;
  Getter get;
  std::string consequence;
};

std::vector<Property> properties() {
  return {
      {"HCA firmware",
       [](const NodeFacts& n, std::string& why) {
         return ib_value(n, why, [](const PortRef& r, std::map<std::string, int>& m) {
           if (r.port->number == r.device->ports.front().number) ++m[r.device->fw_ver];
         });
       },
       "Different ConnectX firmware behaves differently under load (adaptive routing, congestion "
       "control); the odd node can be the slow or flaky one."},
      {"InfiniBand port rates",
       [](const NodeFacts& n, std::string& why) {
         return ib_value(n, why, [](const PortRef& r, std::map<std::string, int>& m) {
           ++m[r.port->rate_gbps.ok() ? fmt_gbps(r.port->rate_gbps.value) : "unknown rate"];
         });
       },
       "A port that trained at a lower rate (a bad cable or transceiver) makes that node's "
       "rail the slowest link of every collective."},
      {"active InfiniBand ports",
       [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
         auto v = ib_value(n, why, [](const PortRef& r, std::map<std::string, int>& m) {
           const bool active = r.port->state.ok() && r.port->state.value.find("ACTIVE") == 0;
           ++m[active ? "ACTIVE" : "not ACTIVE"];
         });
         return v;
       },
       "A node with fewer active ports has fewer rails: NCCL spreads its traffic over fewer "
       "NICs, or fails to connect the rail that is down."},
      {"GPUs",
       [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
         if (!n.gpus.ok() || !n.gpus->driver_loaded) {
           why = n.gpus.ok() ? n.gpus->no_driver_reason : "GPUs " + n.gpus.describe();
           return std::nullopt;
         }
         std::map<std::string, int> m;
         for (const Gpu& g : n.gpus->gpus) ++m[g.name];
         return NodeValue{m.empty() ? std::string("no GPU") : tally(m), n.gpus.where};
       },
       "A node with a GPU missing or of another model changes the job's world size or speed; "
       "a GPU that fell off the bus is the usual reason."},
      {"GPU PCIe links",
       [](const NodeFacts& n, std::string& why) {
         return pci_value(n, why, PciKind::kNvidiaGpu, "NVIDIA GPU");
       },
       "A GPU whose PCIe link trained narrower or slower copies to and from the host (and to "
       "its NIC without NVLink) at a fraction of the others' rate."},
      {"NIC PCIe links",
       [](const NodeFacts& n, std::string& why) {
         return pci_value(n, why, PciKind::kMellanox, "Mellanox NIC");
       },
       "A NIC on a degraded PCIe link cannot reach its line rate: that node's rail is slow."},
      {"kernel",
       [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
         if (!n.host.ok() || n.host->kernel.empty()) {
           why = "kernel " + n.host.describe();
           return std::nullopt;
         }
         return NodeValue{n.host->kernel, n.host.where};
       },
       "Another kernel usually means another image, so drivers and RDMA modules may differ "
       "too."},
  };
}

class ClusterNodeDiffers final : public Rule {
 public:
  std::string_view id() const override { return "cluster-node-differs"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A few nodes differ from the rest of the cluster";
  }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    if (ctx.nodes->size() < kMajorityMinNodes)
      return RuleOutcome::does_not_apply("a majority needs at least " +
                                         std::to_string(kMajorityMinNodes) + " nodes");
    RuleOutcome out;
    for (const Property& p : properties()) {
      Grouping g = group_nodes(*ctx.nodes, p.get);
      const std::optional<Majority> m = majority_of(g);
      if (!m || m->differ.empty()) continue;
      Finding f = finding(p.name + ": " + describe_groups(g));
      f.nodes = odd_nodes(g);
      // The odd nodes' evidence, and one majority node's for comparison (not 62 equal lines).
      bool majority_shown = false;
      for (const Evidence& e : g.evidence) {
        const std::string node = e.text.substr(0, e.text.find(": "));
        if (std::find(f.nodes.begin(), f.nodes.end(), node) != f.nodes.end()) {
          f.evidence.push_back(e);
        } else if (!majority_shown) {
          f.evidence.push_back({"(majority) " + e.text, e.where});
          majority_shown = true;
        }
      }
      f.cause = p.consequence;
      f.fix =
          "Compare the odd nodes with a majority node (trainready doctor on both); reimage or "
          "service them, or leave them out of the job until they match.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_node_differs() { return std::make_unique<ClusterNodeDiffers>(); }

}  // namespace trainready
