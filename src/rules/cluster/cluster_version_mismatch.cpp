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
      DigestKey key;  // facts/node_digest.h
      std::string consequence;
    };
    std::vector<Component> components = {
        {"NVIDIA driver", DigestKey::kDriverVersion,
         "Different drivers change CUDA/NCCL behaviour and peer-memory support between nodes; a "
         "hang or slowdown "
         "on one node then looks like a network fault."},
        {"OFED", DigestKey::kOfedVersion,
         "Mixed RDMA stacks (OFED vs inbox, or different OFED releases) are a known cause of "
         "multi-node hangs "
         "(e.g. NVIDIA/nccl-tests#200: HPC-X/MLNX_OFED mismatch)."},
        {"NCCL", DigestKey::kNcclVersion,
         "Ranks of one communicator must run compatible NCCL versions; different protocol versions "
         "make NCCL "
         "fail at init or hang (\"receiving N bytes instead of M\", NVIDIA/nccl#1328)."},
    };
    // Azure HPC images (Azure/azhpc-images) record what they installed; the same image everywhere
    // is the first thing to check when nodes disagree. Only keys some node's file has.
    const ClusterNodes& nodes = *ctx.cluster;
    for (std::size_t i = 0; i < std::size(kImageComponentKeys); ++i) {
      const auto key =
          static_cast<DigestKey>(static_cast<std::size_t>(DigestKey::kImageVersion) + i);
      bool any = false;
      for (const NodeDigest& d : nodes.digests) any |= d[key].known;
      if (!any) continue;
      const std::string k = kImageComponentKeys[i];
      components.push_back(
          {"Azure HPC image " + k + " (component_versions.txt)", key,
           k == "ImageVersion"
               ? std::string("The nodes run different Azure HPC image versions, so driver, CUDA, "
                             "RDMA stack and NCCL may all differ.")
               : "The images installed different " + k +
                     " versions (what the image shipped; a container may bring its own)."});
    }
    RuleOutcome out;
    int known = 0;
    for (const Component& c : components) {
      Grouping g = group_nodes(nodes, c.key);
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
