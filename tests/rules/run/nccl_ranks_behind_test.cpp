// nccl-ranks-behind over RAS reports, Flight Recorder dumps and Inspector series built from the
// corpus in tests/data/nccl-telemetry, and over facts built in code.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "parsers/flight_recorder.h"
#include "parsers/nccl_inspector.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_ras.h"
#include "support/node_builder.h"
#include "support/rule_harness.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-ranks-behind";

std::string data(const std::string& rel) {
  return std::string(TR_TEST_DATA) + "/nccl-telemetry/" + rel;
}
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RuleOutcome judge(const CollectiveProgressFacts& f, const std::vector<NodeFacts>& nodes = {},
                  const NcclRunFacts* log = nullptr, const WatchFacts* watch = nullptr) {
  const Rule* r = find_rule(kId);
  RuleContext ctx{nullptr, &nodes, &Catalog::builtin(), log};
  ctx.progress = &f;
  ctx.watch = watch;
  return r->evaluate(ctx);
}

CollectiveProgressFacts ras_only(const std::string& rel) {
  CollectiveProgressFacts f;
  f.ras.push_back(parse_ras_output(slurp(data(rel)), rel));
  return f;
}

TEST(NcclRanksBehind, Nccl1911NamesTheThirtyBehindNotTheTwoAhead) {
  RuleOutcome o = judge(ras_only("ras-text-2.26.2-nccl1911-allgather-two-ranks-ahead.txt"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_EQ(x.rule_id, kId);
  EXPECT_NE(x.message.find("30 rank(s) behind in AllGather of communicator fa93daea854b060b"),
            std::string::npos)
      << x.message;
  EXPECT_NE(x.message.find("every rank but 12, 13"), std::string::npos) << x.message;
  EXPECT_NE(x.evidence[0].text.find("2 rank(s) (12, 13) launched 641 AllGather operations"),
            std::string::npos)
      << x.evidence[0].text;
}

TEST(NcclRanksBehind, TextNamesTheRankAloneBehindWithItsNode) {
  RuleOutcome o = judge(ras_only("ras-text-2.29.7-rank5-behind-allreduce.txt"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message,
            "1 rank(s) behind in AllReduce of communicator 9c2f6a1e0b7d4e35: rank 5 on 10.0.0.5 "
            "(GPU 1)");
}

TEST(NcclRanksBehind, JoinsInspectorHostNamesAndTheNodeSnapshot) {
  CollectiveProgressFacts f = ras_only("job-rank5-behind/ras-status.json");
  std::vector<std::string> notes;
  for (const char* h : {"ndh100-a01-pid4100.log", "ndh100-b01-pid5101.log"})
    parse_nccl_inspector(slurp(data(std::string("job-rank5-behind/") + h)), h, f.inspector, notes);
  NodeFacts b = healthy_nd_h100("ndh100-b01");
  b.ib.value.devices[2].ports[0].state = Fact<std::string>::present("DOWN");
  b.ib.value.devices[2].ports[0].phys_state = Fact<std::string>::present("Disabled");
  RuleOutcome o = judge(f, {healthy_nd_h100("ndh100-a01"), b});
  ASSERT_EQ(o.findings.size(), 1u);
  const std::string& m = o.findings[0].message;
  EXPECT_NE(m.find("rank 5 on ndh100-b01 (10.0.0.5)"), std::string::npos) << m;
  EXPECT_NE(m.find("AllReduce"), std::string::npos) << m;
  EXPECT_NE(
      m.find("— ndh100-b01 (10.0.0.5): IB port " + b.ib->devices[2].name + "/1 DOWN (Disabled)"),
      std::string::npos)
      << m;
}

TEST(NcclRanksBehind, JoinsAWatchRecordingOfTheNode) {
  CollectiveProgressFacts f = ras_only("job-rank5-behind/ras-status.json");
  std::vector<std::string> notes;
  parse_nccl_inspector(slurp(data("job-rank5-behind/ndh100-b01-pid5101.log")), "i.log", f.inspector,
                       notes);
  WatchFacts w;
  WatchNodeFacts n;
  n.node = "ndh100-b01 (b01.jsonl)";
  n.labels.push_back({"compute", 10, 10, 0, 0.3, 0, ""});
  n.labels.push_back({"input-storage", 20, 20, 15, 0.6, 0.75, "NFS reads 1.2 GB/s"});
  w.nodes.push_back(n);
  RuleOutcome o = judge(f, {}, nullptr, &w);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find(
                "— ndh100-b01 (10.0.0.5): watch: 60 % input-storage (NFS reads 1.2 GB/s)"),
            std::string::npos)
      << o.findings[0].message;
}

TEST(NcclRanksBehind, FlightRecorderAloneNamesTheRankAndItsLastCollective) {
  CollectiveProgressFacts f;
  for (int r = 0; r < 8; ++r) {
    const std::string name =
        "job-rank5-behind/nccl_trace_rank_" + std::to_string(r) + (r == 6 ? ".json" : "");
    f.flight_recorder.push_back(parse_flight_recorder(slurp(data(name)), name));
  }
  RuleOutcome o = judge(f);
  ASSERT_EQ(o.findings.size(), 1u);
  const std::string& m = o.findings[0].message;
  EXPECT_NE(m.find("1 rank(s) behind in nccl:all_reduce of process group 0 (default_pg): rank 5 "
                   "[last entered nccl:all_reduce #640 (completed)]"),
            std::string::npos)
      << m;
}

TEST(NcclRanksBehind, RasAndFlightRecorderNamingOneRankAreOneFinding) {
  CollectiveProgressFacts f = ras_only("job-rank5-behind/ras-status.json");
  for (int r : {0, 5})
    f.flight_recorder.push_back(
        parse_flight_recorder(slurp(data("job-rank5-behind/nccl_trace_rank_" + std::to_string(r))),
                              "nccl_trace_rank_" + std::to_string(r)));
  RuleOutcome o = judge(f);
  ASSERT_EQ(o.findings.size(), 1u);
  bool fr = false;
  for (const Evidence& e : o.findings[0].evidence)
    fr = fr || e.text.find("Flight Recorder") != std::string::npos;
  EXPECT_TRUE(fr);
}

// RAS's job-level "Missing communicator data from 1 job process / Process N on node H managing GPU
// G" names no rank (NVIDIA/nccl#1762): its evidence says the process, not "rank -1".
TEST(NcclRanksBehind, AProcessWithoutARankIsNotRankMinusOne) {
  RuleOutcome o = judge(ras_only("ras-text-2.27.3-nccl1762-incomplete-process-no-rank.txt"));
  ASSERT_FALSE(o.findings.empty());
  for (const Finding& x : o.findings)
    for (const Evidence& e : x.evidence)
      EXPECT_EQ(e.text.find("rank -1"), std::string::npos) << e.text;
  EXPECT_NE(o.findings[0].message.find("process 60004 on 10.4.109.13"), std::string::npos)
      << o.findings[0].message;
}

TEST(NcclRanksBehind, DeadProcessIsNamed) {
  RuleOutcome o = judge(ras_only("ras-text-2.29.7-dead-process-timeout.txt"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("RAS got no data from 1 process(es), some considered dead"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("rank 6 process 5102"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("process 5102 on 10.0.0.5"), std::string::npos)
      << o.findings[0].message;
}

// NVIDIA/nccl#1730: RAS OK, watchdog timed out.
TEST(NcclRanksBehind, Nccl1730AllAgreeButTimedOutSaysWhatThatMeans) {
  const std::string f = data("ras-text-2.26.2-nccl1730-all-ok-watchdog-timeout.txt");
  CollectiveProgressFacts p = ras_only("ras-text-2.26.2-nccl1730-all-ok-watchdog-timeout.txt");
  NcclRunFacts log = analyze_nccl_logs({f});
  ASSERT_FALSE(log.timeouts.empty());
  RuleOutcome o = judge(p, {}, &log);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("inside a collective all ranks entered"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("NVIDIA/nccl#1730"), std::string::npos);
}

TEST(NcclRanksBehind, QuietWhenEveryRankAgreesAndNothingTimedOut) {
  EXPECT_TRUE(judge(ras_only("ras-json-2.29.7-all-ok.json")).findings.empty());
  EXPECT_TRUE(
      judge(ras_only("ras-text-2.26.2-nccl1730-all-ok-watchdog-timeout.txt")).findings.empty());
}

TEST(NcclRanksBehind, DoesNotApplyToInspectorAlone) {
  CollectiveProgressFacts f;
  f.inspector.push_back(InspectorSeries{});
  RuleOutcome o = judge(f);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
}

}  // namespace
}  // namespace trainready::test
