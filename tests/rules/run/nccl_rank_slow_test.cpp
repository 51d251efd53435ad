// nccl-rank-slow over NCCL Inspector series built in code.
#include <gtest/gtest.h>

#include "support/node_builder.h"
#include "support/rule_harness.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-rank-slow";

InspectorSeries series(const std::string& comm, int rank, const std::string& host, double busbw) {
  InspectorSeries s;
  s.comm_id = comm;
  s.comm_name = "DP Group " + comm;
  s.rank = rank;
  s.nranks = 2;
  s.nnodes = 2;
  s.host = host;
  s.collective = "AllReduce";
  s.msg_size_bytes = 1 << 28;
  s.count = 10;
  s.busbw_median_gbs = busbw;
  s.where = {comm + ".log", 1};
  return s;
}

RuleOutcome judge(const CollectiveProgressFacts& f, const std::vector<NodeFacts>& nodes = {}) {
  RuleContext ctx{nullptr, &nodes, &Catalog::builtin()};
  ctx.progress = &f;
  return find_rule(kId)->evaluate(ctx);
}

// Four 2-node data-parallel groups; the one that has node-e is at half speed.
CollectiveProgressFacts four_groups(double slow) {
  CollectiveProgressFacts f;
  const char* hosts[4][2] = {
      {"node-a", "node-b"}, {"node-c", "node-d"}, {"node-a", "node-e"}, {"node-c", "node-b"}};
  for (int g = 0; g < 4; ++g)
    for (int r = 0; r < 2; ++r)
      f.inspector.push_back(
          series("0x" + std::to_string(g + 1), r, hosts[g][r], g == 2 ? slow : 48.0 + g));
  return f;
}

TEST(NcclRankSlow, NamesTheNodeOnlyTheSlowCommunicatorUses) {
  NodeFacts e = healthy_nd_h100("node-e");
  e.ib.value.devices[0].ports[0].state = Fact<std::string>::present("INIT");
  RuleOutcome o = judge(four_groups(24.0), {e});
  ASSERT_EQ(o.findings.size(), 1u);
  const std::string& m = o.findings[0].message;
  EXPECT_NE(m.find("AllReduce of DP Group 0x3 moves 24.0 GB/s"), std::string::npos) << m;
  EXPECT_NE(m.find("node(s) only it uses: node-e"), std::string::npos) << m;
  EXPECT_NE(m.find("node-e: IB port mlx5_ib0/1 INIT"), std::string::npos) << m;
}

TEST(NcclRankSlow, QuietWhenTheGroupsMoveAlike) {
  EXPECT_TRUE(judge(four_groups(47.0)).findings.empty());
}

TEST(NcclRankSlow, DoesNotApplyWithOneCommunicator) {
  CollectiveProgressFacts f;
  f.inspector.push_back(series("0x1", 0, "a", 40));
  f.inspector.push_back(series("0x1", 1, "b", 10));
  RuleOutcome o = judge(f);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
}

}  // namespace
}  // namespace trainready::test
