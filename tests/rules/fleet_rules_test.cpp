// The fleet rules (ranks that are silent, stalled, failed, unreadable, of another version) and
// cluster-node-differs: each fires on the case it names and stays quiet otherwise.
#include <gtest/gtest.h>

#include "queries/node_digest.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

FleetFacts fleet_of(std::vector<FleetRankState> states) {
  FleetFacts f;
  f.size = static_cast<int>(states.size());
  f.root_version = "0.1.0";
  f.timeout_s = 8;
  for (std::size_t i = 0; i < states.size(); ++i) {
    FleetRank r;
    r.rank = static_cast<int>(i);
    r.state = states[i];
    r.host = "h" + std::to_string(i);
    r.tool_version = "0.1.0";
    r.node = states[i] == FleetRankState::kOk ? static_cast<int>(i) : -1;
    f.ranks.push_back(r);
  }
  return f;
}

RuleOutcome run_fleet_rule(const std::string& id, const FleetFacts& f) {
  std::vector<NodeFacts> nodes;
  for (const FleetRank& r : f.ranks) nodes.push_back(healthy_nd_h100("n" + std::to_string(r.rank)));
  RuleContext ctx{nullptr, &nodes, &Catalog::builtin()};
  const ClusterNodes cluster = cluster_nodes_of(nodes, nullptr);  // the nodes' labels
  ctx.cluster = &cluster;
  ctx.fleet = &f;
  return find_rule(id)->evaluate(ctx);
}

const FleetFacts kAllOk = fleet_of({FleetRankState::kOk, FleetRankState::kOk});

}  // namespace

TEST(FleetRules, EachBadStateIsAFindingAboutThatRank) {
  const std::vector<std::pair<std::string, FleetRankState>> cases = {
      {"fleet-rank-silent", FleetRankState::kSilent},
      {"fleet-rank-stalled", FleetRankState::kStalled},
      {"fleet-rank-failed", FleetRankState::kFailed},
      {"fleet-facts-unreadable", FleetRankState::kUnreadable}};
  for (const auto& [id, state] : cases) {
    FleetFacts f = fleet_of({FleetRankState::kOk, state, FleetRankState::kOk});
    f.ranks[1].detail = "why";
    RuleOutcome o = run_fleet_rule(id, f);
    ASSERT_EQ(o.findings.size(), 1u) << id;
    EXPECT_EQ(o.findings[0].node, "rank 1 (h1)") << id;
    EXPECT_NE(o.findings[0].message.find("rank 1"), std::string::npos) << id;
    EXPECT_TRUE(run_fleet_rule(id, kAllOk).findings.empty()) << id << " quiet when all answer";
  }
}

TEST(FleetRules, VersionMixedWarnsAndErrsWhenTheFormatIsUnread) {
  FleetFacts f =
      fleet_of({FleetRankState::kOk, FleetRankState::kOk, FleetRankState::kIncompatible});
  f.ranks[1].tool_version = "0.0.9";
  f.ranks[2].tool_version = "9.0.0";
  f.ranks[2].detail = "message format 2";
  RuleOutcome o = run_fleet_rule("fleet-version-mixed", f);
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(o.findings[0].node, "n1");
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_TRUE(run_fleet_rule("fleet-version-mixed", kAllOk).findings.empty());
}

TEST(ClusterNodeDiffers, NamesTheNodeWhosePortTrainedSlower) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(healthy_nd_h100("n" + std::to_string(i)));
  nodes[3].ib.value.devices[2].ports[0].rate_gbps.value = 200;
  RuleOutcome o = run_cluster_rule("cluster-node-differs", nodes);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].nodes, std::vector<std::string>{"n3"});
  EXPECT_NE(o.findings[0].message.find("4 nodes agree"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("1 differs: n3"), std::string::npos);
}

TEST(ClusterNodeDiffers, QuietWhenAllAgreeOrTooFewNodes) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(healthy_nd_h100("n" + std::to_string(i)));
  EXPECT_TRUE(run_cluster_rule("cluster-node-differs", nodes).findings.empty());
  nodes.resize(3);
  nodes[1].ib.value.devices[2].ports[0].rate_gbps.value = 200;
  RuleOutcome o = run_cluster_rule("cluster-node-differs", nodes);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
}

TEST(ClusterPkeyMismatch, NamesTheOddNodeOutOfAMajority) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(healthy_nd_h100("n" + std::to_string(i)));
  for (auto& d : nodes[2].ib.value.devices)
    if (d.name != "mlx5_an0") d.ports[0].pkey0.value = "0x8002";
  RuleOutcome o = run_cluster_rule("cluster-pkey-mismatch", nodes);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].nodes, std::vector<std::string>{"n2"});
  EXPECT_NE(o.findings[0].message.find("3 nodes agree on 0x8001; 1 differs: n2 (0x8002)"),
            std::string::npos);
}
