// cluster-version-mismatch: GPU driver, OFED or NCCL versions differ between nodes.
#include "queries/node_grouping.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ClusterVersionMismatch final : public Rule {
 public:
  std::string_view id() const override { return "cluster-version-mismatch"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "Driver, OFED or NCCL versions differ between nodes";
  }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    struct Component {
      const char* name;
      std::function<std::optional<NodeValue>(const NodeFacts&, std::string&)> get;
      const char* consequence;
    };
    const Component components[] = {
        {"NVIDIA driver",
         [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
           if (!n.gpus.ok() || !n.gpus->driver_loaded) {
             why = n.gpus.ok() ? n.gpus->no_driver_reason : n.gpus.describe();
             return std::nullopt;
           }
           return NodeValue{n.gpus->driver_version, n.gpus.where};
         },
         "Different drivers change CUDA/NCCL behaviour and peer-memory support between nodes; a "
         "hang or slowdown "
         "on one node then looks like a network fault."},
        {"OFED",
         [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
           if (!n.ofed_version.ok()) {
             why = n.ofed_version.describe();
             return std::nullopt;
           }
           return NodeValue{n.ofed_version.value, n.ofed_version.where};
         },
         "Mixed RDMA stacks (OFED vs inbox, or different OFED releases) are a known cause of "
         "multi-node hangs "
         "(e.g. NVIDIA/nccl-tests#200: HPC-X/MLNX_OFED mismatch)."},
        {"NCCL",
         [](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
           if (!n.nccl_version.ok()) {
             why = n.nccl_version.describe();
             return std::nullopt;
           }
           return NodeValue{n.nccl_version.value, n.nccl_version.where};
         },
         "Ranks of one communicator must run compatible NCCL versions; different protocol versions "
         "make NCCL "
         "fail at init or hang (\"receiving N bytes instead of M\", NVIDIA/nccl#1328)."},
    };
    RuleOutcome out;
    int known = 0;
    for (const Component& c : components) {
      Grouping g = group_nodes(*ctx.nodes, c.get);
      for (const auto& u : g.unknown) out.notes.push_back(std::string(c.name) + " on " + u);
      if (!g.nodes_by_value.empty()) ++known;
      if (g.nodes_by_value.size() < 2) continue;
      Finding f = finding(std::string(c.name) + " versions differ: " + describe_groups(g));
      f.evidence = g.evidence;
      f.cause = c.consequence;
      f.fix =
          "Build every node from the same image version (pin the marketplace image version or "
          "gallery image) "
          "and the same container; reimage the odd node out.";
      out.findings.push_back(std::move(f));
    }
    if (known == 0) return RuleOutcome::skip("no driver, OFED or NCCL version known on any node");
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_version_mismatch() {
  return std::make_unique<ClusterVersionMismatch>();
}

}  // namespace trainready
