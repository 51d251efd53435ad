// cluster-version-mismatch: GPU driver, OFED or NCCL versions differ between nodes; on Azure HPC
// images also the image version and the components /opt/azurehpc/component_versions.txt records.
#include <vector>

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
      std::string name;
      std::function<std::optional<NodeValue>(const NodeFacts&, std::string&)> get;
      std::string consequence;
    };
    std::vector<Component> components = {
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
    // Azure HPC images (Azure/azhpc-images) record what they installed; the same image everywhere
    // is the first thing to check when nodes disagree. Only keys some node's file has.
    for (const char* key :
         {"ImageVersion", "NVIDIA", "CUDA", "OFED", "MOFED", "DOCA", "NCCL", "HPCX"}) {
      bool any = false;
      for (const NodeFacts& n : *ctx.nodes)
        any |= n.image_components.ok() && n.image_components->versions.count(key) > 0;
      if (!any) continue;
      const std::string k = key;
      components.push_back(
          {"Azure HPC image " + k + " (component_versions.txt)",
           [k](const NodeFacts& n, std::string& why) -> std::optional<NodeValue> {
             if (!n.image_components.ok()) {
               why = n.image_components.describe();
               return std::nullopt;
             }
             auto it = n.image_components->versions.find(k);
             if (it == n.image_components->versions.end()) {
               why = "no " + k + " entry in " + n.image_components.where.str();
               return std::nullopt;
             }
             return NodeValue{it->second, n.image_components.where};
           },
           k == "ImageVersion"
               ? std::string("The nodes run different Azure HPC image versions, so driver, CUDA, "
                             "RDMA stack and NCCL may all differ.")
               : "The images installed different " + k +
                     " versions (what the image shipped; a container may bring its own)."});
    }
    RuleOutcome out;
    int known = 0;
    for (const Component& c : components) {
      Grouping g = group_nodes(*ctx.nodes, c.get);
      for (const auto& u : g.unknown) out.notes.push_back(c.name + " on " + u);
      if (!g.nodes_by_value.empty()) ++known;
      if (g.nodes_by_value.size() < 2) continue;
      Finding f = finding(c.name + " versions differ: " + describe_groups(g));
      f.nodes = odd_nodes(g);
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
