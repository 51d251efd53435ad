// The two-level gather's bundle (fleet/fleet_bundle.h): what a group leader sends rank 0 decodes
// to the same messages, cut or foreign bytes are a WireError, and rank 0 folding bundles ends
// with the same ranks and nodes as receiving every message itself (the mpirun test
// tests/tools/fleet_cluster_check.py compares whole reports).
#include <gtest/gtest.h>

#include "codec/node_facts_json.h"
#include "codec/node_facts_wire.h"
#include "core/root.h"
#include "fleet/fleet_bundle.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_message.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;

namespace {

NodeFacts example_node(int i) {
  FsRoot root(trainready::test::example("nd-h100-healthy"));
  NodeFacts n = probe_node(root, ProbeOptions{});
  n.label = "node-" + std::to_string(i);
  return n;
}

std::string message(RankMessageKind kind, int rank) {
  RankMessage m;
  m.kind = kind;
  m.rank = rank;
  m.host = "h" + std::to_string(rank);
  m.tool_version = "0.1.0";
  if (kind == RankMessageKind::kFacts) m.facts = example_node(rank);
  if (kind == RankMessageKind::kFailed) m.error = "probes hung";
  return encode_rank_message(m);
}

struct Arrival {
  int rank;
  std::string bytes;
};

// Seven ranks: ok, ok, stalled (hello only), failed, garbage, silent (nothing), ok.
std::vector<Arrival> arrivals() {
  std::vector<Arrival> a;
  for (int r : {0, 1, 6}) a.push_back({r, message(RankMessageKind::kFacts, r)});
  a.push_back({2, message(RankMessageKind::kHello, 2)});
  a.push_back({3, message(RankMessageKind::kHello, 3)});
  a.push_back({3, message(RankMessageKind::kFailed, 3)});
  a.push_back({4, "\xff\x00 garbage"});
  return a;
}

std::vector<std::string> states(const FleetGather& g) {
  std::vector<std::string> out;
  for (const FleetRank& r : g.fleet.ranks) out.push_back(fleet_rank_state_name(r.state));
  return out;
}

std::vector<std::string> nodes_text(const FleetGather& g) {
  std::vector<std::string> out;
  for (const NodeFacts& n : g.nodes) {
    out.emplace_back();
    write_node_facts_json(out.back(), n, 0);
  }
  return out;
}

}  // namespace

TEST(FleetBundle, RoundTripsEveryEntry) {
  const std::string a = message(RankMessageKind::kFacts, 5);
  const std::vector<BundleEntry> in = {{4, 0.25, "hello"}, {5, 1.5, a}, {6, 0, ""}};
  const std::string bytes = encode_bundle(in);
  const std::vector<BundleEntry> out = decode_bundle(bytes);
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].rank, in[i].rank);
    EXPECT_DOUBLE_EQ(out[i].t, in[i].t);
    EXPECT_EQ(out[i].bytes, in[i].bytes);
  }
  EXPECT_TRUE(decode_bundle(encode_bundle({})).empty());
}

TEST(FleetBundle, CutOrForeignBytesAreAWireError) {
  const std::string good = encode_bundle({{1, 0.5, "abc"}, {2, 0.75, "defg"}});
  for (std::size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_THROW(decode_bundle(std::string_view(good).substr(0, cut)), WireError) << cut;
  EXPECT_THROW(decode_bundle(good + "x"), WireError);
  EXPECT_THROW(decode_bundle("not a bundle at all"), WireError);
  std::string huge = good.substr(0, 8) + std::string("\xff\xff\xff\x7f", 4);
  EXPECT_THROW(decode_bundle(huge), WireError);  // a count no bundle has
}

TEST(FleetBundle, GroupSizes) {
  EXPECT_EQ(gather_group_size(0, 8), 1);  // a small job: one level
  EXPECT_EQ(gather_group_size(0, 256), 1);
  EXPECT_EQ(gather_group_size(0, 257), kDefaultGatherGroup);
  EXPECT_EQ(gather_group_size(1, 100000), 1);
  EXPECT_EQ(gather_group_size(3, 8), 3);
  EXPECT_EQ(gather_leader(0, 3), 0);
  EXPECT_EQ(gather_leader(5, 3), 3);
  EXPECT_EQ(gather_leader(5, 1), 0);
}

TEST(FleetBundle, RankZeroEndsWithTheSameRanksAndNodesEitherWay) {
  const std::vector<Arrival> all = arrivals();
  FleetGatherer one(7, "0.1.0");
  for (const Arrival& a : all) one.accept(a.rank, a.bytes, 0.5);
  // Groups of 3: rank 0 hears ranks 0-2 itself; leaders 3 and 6 bundle 3-5 and 6.
  FleetGatherer two(7, "0.1.0");
  std::vector<BundleEntry> lead3, lead6;
  for (const Arrival& a : all) {
    if (a.rank < 3)
      two.accept(a.rank, a.bytes, 0.5);
    else
      (a.rank < 6 ? lead3 : lead6).push_back({a.rank, 0.5, a.bytes});
  }
  lead6.push_back({1, 0.5, message(RankMessageKind::kFacts, 1)});  // not leader 6's to speak for
  two.accept_bundle(3, 3, encode_bundle(lead3), 0.9);
  two.accept_bundle(6, 3, encode_bundle(lead6), 0.9);
  const FleetGather a = one.finish(1, 1, "mpirun");
  const FleetGather b = two.finish(1, 1, "mpirun");
  EXPECT_EQ(states(a), (std::vector<std::string>{"ok", "ok", "stalled", "failed", "unreadable",
                                                 "silent", "ok"}));
  EXPECT_EQ(states(b), states(a));
  for (std::size_t i = 0; i < a.fleet.ranks.size(); ++i) {
    EXPECT_EQ(b.fleet.ranks[i].host, a.fleet.ranks[i].host) << i;
    EXPECT_EQ(b.fleet.ranks[i].bytes, a.fleet.ranks[i].bytes) << i;
    EXPECT_EQ(b.fleet.ranks[i].detail, a.fleet.ranks[i].detail) << i;
    EXPECT_EQ(b.fleet.ranks[i].node, a.fleet.ranks[i].node) << i;
  }
  EXPECT_EQ(nodes_text(b), nodes_text(a));
}

TEST(FleetBundle, AnUnreadableBundleIsItsLeadersFaultAndItsGroupIsUnheard) {
  FleetGatherer g(6, "0.1.0");
  for (int r = 0; r < 3; ++r) g.accept(r, message(RankMessageKind::kFacts, r), 0.1);
  g.accept_bundle(3, 3, "TRFB\x01\x00\x00\x00\x05", 0.2);  // cut short
  const FleetGather out = g.finish(1, 1, "mpirun");
  EXPECT_EQ(states(out),
            (std::vector<std::string>{"ok", "ok", "ok", "unreadable", "silent", "silent"}));
  EXPECT_NE(out.fleet.ranks[3].detail.find("bundle"), std::string::npos);
}
