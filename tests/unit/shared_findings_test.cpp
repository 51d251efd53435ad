// Rank 0 of a two-level gather holds a node finding that many nodes share once, with the set of
// its nodes (engine/shared_findings.h), and every format writes the same bytes as one level,
// where each node's findings are its own: shared findings, findings with evidence of their own
// per node (never shared), a rule with two outcomes, labels whose text order is not their rank
// order (node-10 before node-2), cluster and fleet findings between them, skips on every node.
#include <gtest/gtest.h>

#include <map>

#include "cli/judge.h"
#include "core/root.h"
#include "engine/folded_runs.h"
#include "engine/shared_findings.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_message.h"
#include "fleet/fleet_summary.h"
#include "fleet/group_judgement.h"
#include "fleet/judged_gatherer.h"
#include "probes/probes.h"
#include "report/html/html_reporter.h"
#include "report/json/json_reporter.h"
#include "report/junit/junit_reporter.h"
#include "report/prom/prom_reporter.h"
#include "report/sarif/sarif_reporter.h"
#include "report/text/text_reporter.h"
#include "support/fleet_judging.h"
#include "support/paths.h"

using namespace trainready;

namespace {

constexpr int kRanks = 14;
constexpr int kGroup = 4;

const NodeFacts& example() {
  static const NodeFacts n = [] {
    FsRoot root(trainready::test::example("nd-h100-healthy"));
    return probe_node(root, ProbeOptions{});
  }();
  return n;
}

// Every node: three ports down and NCCL_IB_DISABLE=1 (shared by all); ranks 3 and 11 a fourth
// port down (another outcome of the same rule, shared by the two); every odd rank a GPU with its
// own count of uncorrected ECC errors (a finding per node, its evidence its own); rank 5 another
// driver (a cluster finding). `bare`: no instance metadata, so some rules skip on every node.
NodeFacts node_of(int r, bool bare) {
  NodeFacts n = example();
  if (bare) n.imds = Fact<ImdsInfo>::missing("imds.json not found");
  n.label = "node-" + std::to_string(r);
  for (std::size_t d = 2; d < 5; ++d) n.ib.value.devices[d].ports[0].state.value = "DOWN";
  if (r == 3 || r == 11) n.ib.value.devices[6].ports[0].state.value = "DOWN";
  n.nccl.value.env["NCCL_IB_DISABLE"] = "1";
  if (r % 2 == 1) n.gpus.value.gpus[0].ecc_uncorrected_volatile = static_cast<std::uint64_t>(r);
  if (r == 5) n.gpus.value.driver_version = "550.54.15";
  return n;
}

// Facts from every rank but 9, which says hello and then nothing (a fleet finding).
std::map<int, std::string> arrivals(bool bare) {
  std::map<int, std::string> a;
  for (int r = 0; r < kRanks; ++r) {
    RankMessage m;
    m.kind = r == 9 ? RankMessageKind::kHello : RankMessageKind::kFacts;
    m.rank = r;
    m.host = "h" + std::to_string(r);
    m.tool_version = "0.1.0";
    if (r != 9) m.facts = node_of(r, bare);
    a[r] = encode_rank_message(m);
  }
  return a;
}

SharedFlags& flags() { return test::fleet_flags(); }

Report finished(Report r) { return test::finished_fleet_report(std::move(r)); }

Report one_level(const std::map<int, std::string>& all) {
  FleetGatherer g(kRanks, "0.1.0");
  for (const auto& [rank, bytes] : all) g.accept(rank, bytes, 0.5);
  FleetGather out = g.finish(1, 1, "mpirun");
  Report r = start_report("fleet", flags());
  r.nodes = std::move(out.nodes);
  r.fleet = std::make_shared<FleetFacts>(std::move(out.fleet));
  return finished(std::move(r));
}

GroupJudgement judge(const std::map<int, std::string>& all, int first, bool forward) {
  const int count = std::min(kGroup, kRanks - first);
  FleetGatherer g(count, "0.1.0", first);
  for (int r = first; r < first + count; ++r) g.accept(r, all.at(r), 0.5);
  FleetGather done = g.finish(1, 1, "mpirun");
  std::vector<std::string> kept;
  for (const FleetRank& x : done.fleet.ranks)
    if (x.node >= 0) kept.push_back(all.at(x.rank));
  return judge_group(first, std::move(done), std::move(kept), test::fleet_judge_setup(forward),
                     "0.1.0");
}

Report two_levels(const std::map<int, std::string>& all, bool forward) {
  JudgedGatherer g(kRanks, kGroup, "0.1.0", node_rule_ids(flags().selection()));
  g.add(judge(all, 0, forward));
  for (int leader = kGroup; leader < kRanks; leader += kGroup)
    g.accept_judgement(leader, encode_group_judgement(judge(all, leader, forward)), 0.9);
  EXPECT_TRUE(g.complete());
  JudgedFleet j = g.finish(1, 1, "mpirun");
  Report r = start_report("fleet", flags());
  r.nodes = std::move(j.nodes);
  r.cluster_nodes = std::make_shared<ClusterNodes>(std::move(j.cluster));
  r.judged_nodes = std::make_shared<JudgedNodes>(std::move(j.judged));
  r.fleet = std::make_shared<FleetFacts>(std::move(j.fleet));
  return finished(std::move(r));
}

std::size_t entries_of(const SharedFindings& s, const std::string& rule) {
  std::size_t n = 0;
  for (const SharedFindings::Entry& e : s.entries) n += e.finding->rule_id == rule;
  return n;
}

std::vector<std::string> order_of(const Evaluation& ev) {
  std::vector<std::string> out;
  for_each_finding(ev, [&](const Finding& f) { out.push_back(f.rule_id + " " + f.node); });
  return out;
}

}  // namespace

TEST(SharedFindings, EveryFormatWritesTheBytesOfOneLevel) {
  for (bool bare : {false, true}) {
    SCOPED_TRACE(bare ? "no instance metadata" : "with instance metadata");
    const std::map<int, std::string> all = arrivals(bare);
    const Report a = one_level(all);
    const Report b = two_levels(all, false);
    const Report c = two_levels(all, true);
    // One level keeps every finding its own; two levels hold the node rules' findings shared.
    EXPECT_FALSE(a.evaluation.shared_findings);
    ASSERT_TRUE(b.evaluation.shared_findings);
    const SharedFindings& s = *b.evaluation.shared_findings;
    EXPECT_EQ(finding_count(b.evaluation), a.evaluation.findings.size());
    EXPECT_EQ(order_of(b.evaluation), order_of(a.evaluation));
    // Shared: the three ports on all 13 nodes but two, which have four (one entry each, the
    // two nodes' set two ranges apart in label order: node-11 and node-3); NCCL_IB_DISABLE on
    // all 13 as one range. Not shared: each odd rank's ECC count, an entry per node.
    EXPECT_EQ(entries_of(s, "ib-port-not-active"), 2u);
    EXPECT_EQ(entries_of(s, "nccl-ib-disabled"), 1u);
    EXPECT_EQ(entries_of(s, "gpu-memory-errors"), 6u);  // ranks 1, 3, 5, 7, 11, 13 (9 silent)
    for (const SharedFindings::Entry& e : s.entries)
      if (e.finding->rule_id == "nccl-ib-disabled") {
        ASSERT_EQ(s.sets[e.set].size(), 1u);
        EXPECT_EQ(s.sets[e.set][0].end - s.sets[e.set][0].first, 13u);
      }
    EXPECT_LT(s.entries.size(), s.count);
    EXPECT_EQ(render_text(b, {}), render_text(a, {}));
    EXPECT_EQ(render_junit(b), render_junit(a));
    EXPECT_EQ(render_sarif(b), render_sarif(a));
    EXPECT_EQ(render_html(b), render_html(a));
    // JSON and Prometheus print every node's facts: with them forwarded, the same bytes.
    EXPECT_EQ(render_json(c), render_json(a));
    EXPECT_EQ(render_prom(c), render_prom(a));
    // The node rules' skips and notes are read from the outcomes node by node, none kept per
    // node (the cluster rules' own are kept: no node).
    for (const RuleSkip& x : b.evaluation.skipped) EXPECT_EQ(x.node, "") << x.rule_id;
    for (const RuleSkip& x : b.evaluation.notes) EXPECT_EQ(x.node, "") << x.rule_id;
    EXPECT_EQ(skip_count(b.evaluation), a.evaluation.skipped.size());
    EXPECT_EQ(note_count(b.evaluation), a.evaluation.notes.size());
    EXPECT_EQ(skip_count(b.evaluation) > 13, bare);
    EXPECT_EQ(b.exit_code, a.exit_code);
    EXPECT_EQ(b.verdict.line, a.verdict.line);
  }
}

TEST(SharedFindings, ANodesFindingsComeInTheOrderOfOneLevel) {
  const Report a = one_level(arrivals(false));
  const std::vector<std::string> order = order_of(a.evaluation);
  // Label order, not rank order: node-10's port finding before node-2's.
  auto at = [&](const std::string& x) {
    return std::find(order.begin(), order.end(), x) - order.begin();
  };
  EXPECT_LT(at("ib-port-not-active node-10"), at("ib-port-not-active node-2"));
  EXPECT_EQ(order_of(two_levels(arrivals(false), false).evaluation), order);
}
