// The two-level gather with leaders that judge (fleet/group_judgement.h, fleet/judged_gatherer.h):
// a judgement decodes to what was sent, cut or foreign bytes are a WireError, and rank 0 folding
// its leaders' judgements writes the same report (text, and JSON when the leaders forward facts)
// as judging every node's facts itself (the mpirun test tests/tools/fleet_cluster_check.py
// compares whole reports under a real launcher).
#include <gtest/gtest.h>

#include <climits>
#include "cli/judge.h"
#include "codec/node_facts_wire.h"
#include "core/root.h"
#include "engine/folded_runs.h"
#include "engine/shared_findings.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_groups.h"
#include "fleet/fleet_message.h"
#include "fleet/fleet_summary.h"
#include "fleet/group_judgement.h"
#include "fleet/judged_gatherer.h"
#include "probes/probes.h"

#include "report/html/html_reporter.h"
#include "report/json/json_reporter.h"
#include "report/junit/junit_reporter.h"
#include "report/sarif/sarif_reporter.h"
#include "report/text/text_reporter.h"
#include "support/fleet_judging.h"
#include "support/paths.h"

using namespace trainready;

namespace {

const NodeFacts& example() {
  static const NodeFacts n = [] {
    FsRoot root(trainready::test::example("nd-h100-healthy"));
    return probe_node(root, ProbeOptions{});
  }();
  return n;
}

// Rank r's node: its own label, except rank 6, which shares rank 0's host (two ranks on one
// node, in different groups); rank 2 has a port down, rank 6 another driver, rank 7 a pkey of
// its own and a GPU with uncorrected ECC errors.
// `bare`: no instance metadata on any node, so rules that need the VM size skip on every node.
NodeFacts node_of(int r, bool bare = false) {
  NodeFacts n = example();
  if (bare) n.imds = Fact<ImdsInfo>::missing("imds.json not found");
  n.label = r == 6 ? "node-0" : "node-" + std::to_string(r);
  if (r == 2) n.ib.value.devices[1].ports[0].state.value = "DOWN";
  if (r == 6) n.gpus.value.driver_version = "550.54.15";
  if (r == 7) {
    for (auto& d : n.ib.value.devices) d.ports[0].pkey0.value = "0x8002";
    n.gpus.value.gpus[0].ecc_uncorrected_volatile = 3;
  }
  return n;
}

std::string message(RankMessageKind kind, int rank, bool bare = false) {
  RankMessage m;
  m.kind = kind;
  m.rank = rank;
  m.host = "h" + std::to_string(rank);
  m.tool_version = "0.1.0";
  if (kind == RankMessageKind::kFacts) m.facts = node_of(rank, bare);
  if (kind == RankMessageKind::kFailed) m.error = "probes hung";
  return encode_rank_message(m);
}

struct Arrival {
  int rank;
  std::string bytes;
};

// Ten ranks: facts from 0, 1, 2, 3, 6, 7, 9; 4 stalled (hello only), 5 failed, 8 garbage.
std::vector<Arrival> arrivals(bool bare = false) {
  std::vector<Arrival> a;
  for (int r : {0, 1, 2, 3, 6, 7, 9}) a.push_back({r, message(RankMessageKind::kFacts, r, bare)});
  a.push_back({4, message(RankMessageKind::kHello, 4)});
  a.push_back({5, message(RankMessageKind::kHello, 5)});
  a.push_back({5, message(RankMessageKind::kFailed, 5)});
  a.push_back({8, "\xff\x00 garbage"});
  return a;
}

SharedFlags& flags() { return test::fleet_flags(); }

JudgeSetup setup(bool forward) { return test::fleet_judge_setup(forward); }

Report finished(Report r) { return test::finished_fleet_report(std::move(r)); }

Report one_level(const std::vector<Arrival>& all, int size) {
  FleetGatherer g(size, "0.1.0");
  for (const Arrival& a : all) g.accept(a.rank, a.bytes, 0.5);
  FleetGather out = g.finish(1, 1, "mpirun");
  Report r = start_report("fleet", flags());
  r.nodes = std::move(out.nodes);
  r.fleet = std::make_shared<FleetFacts>(std::move(out.fleet));
  return finished(std::move(r));
}

// What leader `first` sends: its group's arrivals gathered and judged.
GroupJudgement judge(const std::vector<Arrival>& all, int first, int count, bool forward) {
  FleetGatherer g(count, "0.1.0", first);
  std::map<int, std::string> facts;
  for (const Arrival& a : all) {
    if (a.rank < first || a.rank >= first + count) continue;
    g.accept(a.rank, a.bytes, 0.5);
    facts.emplace(a.rank, a.bytes);
  }
  FleetGather done = g.finish(1, 1, "mpirun");
  std::vector<std::string> kept;
  for (const FleetRank& r : done.fleet.ranks)
    if (r.node >= 0) kept.push_back(facts[r.rank]);
  return judge_group(first, std::move(done), std::move(kept), setup(forward), "0.1.0");
}

Report two_levels(JudgedGatherer& g) {
  JudgedFleet j = g.finish(1, 1, "mpirun");
  Report r = start_report("fleet", flags());
  r.nodes = std::move(j.nodes);
  r.cluster_nodes = std::make_shared<ClusterNodes>(std::move(j.cluster));
  r.judged_nodes = std::make_shared<JudgedNodes>(std::move(j.judged));
  r.fleet = std::make_shared<FleetFacts>(std::move(j.fleet));
  return finished(std::move(r));
}

// Groups of 3 over ten ranks: rank 0 judges 0-2 itself; leaders 3, 6 and 9 send judgements.
Report two_levels(const std::vector<Arrival>& all, bool forward) {
  JudgedGatherer g(10, 3, "0.1.0", node_rule_ids(flags().selection()));
  g.add(judge(all, 0, 3, forward));
  for (int leader : {3, 6, 9})
    g.accept_judgement(
        leader, encode_group_judgement(judge(all, leader, std::min(3, 10 - leader), forward)), 0.9);
  EXPECT_TRUE(g.complete());
  return two_levels(g);
}

std::vector<std::string> states(const Report& r) {
  std::vector<std::string> out;
  for (const FleetRank& k : r.fleet->ranks) out.push_back(fleet_rank_state_name(k.state));
  return out;
}

}  // namespace

TEST(FleetJudgement, RoundTripsEveryField) {
  const GroupJudgement j = judge(arrivals(), 6, 3, true);
  ASSERT_EQ(j.nodes.size(), 2u);  // ranks 6 and 7; 8 sent garbage
  ASSERT_FALSE(j.outcomes.empty());
  const std::string bytes = encode_group_judgement(j);
  const GroupJudgement back = decode_group_judgement(bytes);
  EXPECT_EQ(encode_group_judgement(back), bytes);
  EXPECT_EQ(back.nodes.labels, j.nodes.labels);
  EXPECT_EQ(back.rule_ids, j.rule_ids);
  EXPECT_EQ(back.facts, j.facts);
  // Two nodes that differ in their findings: two patterns over the same outcomes otherwise.
  EXPECT_EQ(back.patterns.size(), 2u);
  EXPECT_LT(back.outcomes.size(), 2 * back.rule_ids.size());
}

TEST(FleetJudgement, CutOrForeignBytesAreAWireError) {
  const std::string good = encode_group_judgement(judge(arrivals(), 3, 3, false));
  for (std::size_t cut = 0; cut < good.size(); cut += 7)
    EXPECT_THROW(decode_group_judgement(std::string_view(good).substr(0, cut)), WireError) << cut;
  EXPECT_THROW(decode_group_judgement(good + "x"), WireError);
  EXPECT_THROW(decode_group_judgement("not a judgement at all"), WireError);
  std::string huge = good.substr(0, 8) + std::string("\x00\x00\x00\x00\x03\x00\x00\x00", 8) +
                     std::string("\xff\xff\xff\x7f", 4);
  EXPECT_THROW(decode_group_judgement(huge), WireError);  // a count no judgement has
}

TEST(FleetJudgement, GroupSizes) {
  EXPECT_EQ(gather_group_size(0, 8), 1);  // a small job: one level
  EXPECT_EQ(gather_group_size(0, 256), 1);
  EXPECT_EQ(gather_group_size(0, 257), kDefaultGatherGroup);
  EXPECT_EQ(gather_group_size(1, 100000), 1);
  EXPECT_EQ(gather_group_size(3, 8), 3);
  EXPECT_EQ(gather_leader(0, 3), 0);
  EXPECT_EQ(gather_leader(5, 3), 3);
  EXPECT_EQ(gather_leader(5, 1), 0);
}

TEST(FleetJudgement, TheReportIsTheSameEitherWay) {
  const std::vector<Arrival> all = arrivals();
  const Report a = one_level(all, 10);
  // The fleet has node findings (a port down, ECC errors) and cluster ones (driver, pkey).
  std::set<std::string> rules;
  for (const Finding& f : a.evaluation.findings) rules.insert(f.rule_id);
  for (const char* id : {"ib-port-not-active", "gpu-memory-errors", "cluster-version-mismatch",
                         "cluster-pkey-mismatch", "fleet-rank-stalled", "fleet-rank-failed",
                         "fleet-facts-unreadable"})
    EXPECT_EQ(rules.count(id), 1u) << id;
  EXPECT_EQ(states(a), (std::vector<std::string>{"ok", "ok", "ok", "ok", "stalled", "failed", "ok",
                                                 "ok", "unreadable", "ok"}));
  // Leaders judging, facts not forwarded (text, HTML, SARIF, JUnit): the same text.
  const Report b = two_levels(all, false);
  EXPECT_TRUE(b.nodes.empty());
  EXPECT_EQ(render_text(b, {}), render_text(a, {}));
  EXPECT_EQ(b.evaluation.evaluations, a.evaluation.evaluations);
  // Rank 0 keeps the node rules' runs folded (a run per distinct outcome, not per node), and
  // every format that lists runs expands them in one level's order.
  ASSERT_TRUE(b.evaluation.folded_runs);
  EXPECT_EQ(run_count(b.evaluation), a.evaluation.runs.size());
  for (const RuleRun& run : b.evaluation.runs) EXPECT_TRUE(run.node.empty()) << run.rule_id;
  EXPECT_LE(b.evaluation.folded_runs->distinct.size(), b.judged_nodes->outcomes.size());
  EXPECT_EQ(render_junit(b), render_junit(a));
  EXPECT_EQ(render_sarif(b), render_sarif(a));
  // The JSON is the same but for the nodes' facts, which rank 0 does not have.
  nlohmann::json ja = nlohmann::json::parse(render_json(a));
  ja.erase("nodes");
  EXPECT_EQ(nlohmann::json::parse(render_json(b)), ja);
  // With the facts forwarded (--format json, prom): the same bytes.
  const Report c = two_levels(all, true);
  EXPECT_EQ(render_json(c), render_json(a));
  // Rank 6 shares rank 0's host: named apart, across groups, as one level does.
  EXPECT_EQ(c.cluster_nodes->labels[4], "node-0#6");
}

TEST(FleetJudgement, AnUnreadableJudgementIsItsLeadersFaultAndItsGroupIsUnheard) {
  const std::vector<Arrival> all = arrivals();
  JudgedGatherer g(6, 3, "0.1.0", node_rule_ids(flags().selection()));
  g.add(judge(all, 0, 3, false));
  g.accept_hello(3, message(RankMessageKind::kHello, 3), 0.1);
  std::string cut = encode_group_judgement(judge(all, 3, 3, false));
  cut.resize(cut.size() / 2);
  g.accept_judgement(3, cut, 0.2);
  EXPECT_FALSE(g.complete());
  const Report r = two_levels(g);
  EXPECT_EQ(states(r),
            (std::vector<std::string>{"ok", "ok", "ok", "unreadable", "silent", "silent"}));
  EXPECT_NE(r.fleet->ranks[3].detail.find("judgement"), std::string::npos);
}

TEST(FleetJudgement, AJudgementOfAnotherGroupIsRefused) {
  const std::vector<Arrival> all = arrivals();
  JudgedGatherer g(6, 3, "0.1.0", node_rule_ids(flags().selection()));
  g.accept_judgement(3, encode_group_judgement(judge(all, 0, 3, false)), 0.2);
  EXPECT_FALSE(g.complete());
  const Report r = two_levels(g);
  EXPECT_EQ(r.fleet->ranks[3].state, FleetRankState::kUnreadable);
}

TEST(FleetJudgement, ARuleTheLeaderDidNotRunIsSkippedOnItsNodesSayingSo) {
  const std::vector<Arrival> all = arrivals();
  JudgedGatherer g(6, 3, "0.1.0", node_rule_ids(flags().selection()));
  g.add(judge(all, 0, 3, false));
  GroupJudgement older = judge(all, 3, 3, false);
  const std::string dropped = older.rule_ids.front();
  older.rule_ids.erase(older.rule_ids.begin());
  for (auto& p : older.patterns) p.erase(p.begin());
  g.accept_judgement(3, encode_group_judgement(older), 0.2);
  const Report r = two_levels(g);
  bool said = false;
  for_each_skip(r.evaluation, [&](const RuleSkip& s) {
    if (s.rule_id == dropped && s.node == "node-3")
      said = s.reason.find("its group leader, rank 3") != std::string::npos;
  });
  EXPECT_TRUE(said);
}

// Skips of the same rule on several nodes: each node named, as one level names them, in every
// format (rank 0 has no facts, only the leaders' outcomes and the cluster's labels).
TEST(FleetJudgement, PerNodeSkipsNameTheirNodesEitherWay) {
  const std::vector<Arrival> all = arrivals(true);
  const Report a = one_level(all, 10);
  const Report b = two_levels(all, false);
  ASSERT_TRUE(b.nodes.empty());
  const std::string text = render_text(b, {});
  EXPECT_EQ(text, render_text(a, {}));
  EXPECT_NE(text.find("[node-1] VM size unknown"), std::string::npos) << text;
  EXPECT_NE(text.find("[node-3] VM size unknown"), std::string::npos) << text;
  EXPECT_EQ(render_sarif(b), render_sarif(a));
  EXPECT_EQ(render_junit(b), render_junit(a));
  EXPECT_EQ(render_html(b), render_html(a));
  nlohmann::json ja = nlohmann::json::parse(render_json(a));
  ja.erase("nodes");
  EXPECT_EQ(nlohmann::json::parse(render_json(b)), ja);
}

// A first rank near INT_MAX: the ranks' order is checked without overflowing an int (rank
// INT_MAX then INT_MIN read as in order only if first + 1 wraps).
TEST(FleetJudgement, AFirstRankNearIntMaxIsAWireError) {
  GroupJudgement j = judge(arrivals(), 6, 2, false);  // ranks 6 and 7, both with facts
  ASSERT_EQ(j.nodes.size(), 2u);
  EXPECT_NO_THROW(decode_group_judgement(encode_group_judgement(j)));
  j.first = INT_MAX;
  j.ranks[0].rank = INT_MAX;
  j.ranks[1].rank = INT_MIN;
  EXPECT_THROW(decode_group_judgement(encode_group_judgement(j)), WireError);
}

// No rules run: every node has the same empty pattern, so a count of patterns over one is a
// wire error, not a vector allocated per byte left.
TEST(FleetJudgement, PatternsWithoutRulesAreAtMostOne) {
  GroupJudgement j = judge(arrivals(), 0, 3, false);
  ASSERT_FALSE(j.nodes.labels.empty());
  j.rule_ids.clear();
  j.patterns.assign(1, {});
  j.pattern_of.assign(j.nodes.labels.size(), 0);
  EXPECT_NO_THROW(decode_group_judgement(encode_group_judgement(j)));
  j.patterns.assign(2, {});  // fewer than the bytes left: only the rule of one catches it
  EXPECT_THROW(decode_group_judgement(encode_group_judgement(j)), WireError);
}
