// The fleet's wire: NodeFacts survive CBOR both ways field for field; garbage, truncation and a
// foreign format become a rank state, never a crash; the gatherer turns what never came into
// silent or stalled ranks.
#include <gtest/gtest.h>

#include "codec/cbor_tree.h"
#include "codec/node_facts_json.h"
#include "codec/node_facts_wire.h"
#include "core/root.h"
#include "fleet/fleet_faults.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_message.h"
#include "fleet/fleet_session.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;

namespace {

NodeFacts example_node() {
  FsRoot root(trainready::test::example("nd-h100-healthy"));
  ProbeOptions opt;
  return probe_node(root, opt);
}

std::string facts_message(int rank, const NodeFacts& n) {
  RankMessage m;
  m.kind = RankMessageKind::kFacts;
  m.rank = rank;
  m.host = "h" + std::to_string(rank);
  m.tool_version = "0.1.0";
  m.facts = n;
  return encode_rank_message(m);
}

}  // namespace

TEST(FleetWire, NodeFactsRoundTripLosslessly) {
  const NodeFacts n = example_node();
  const NodeFacts back = node_facts_from_wire(node_facts_to_wire(n));
  EXPECT_EQ(node_facts_to_wire(back), node_facts_to_wire(n));
  EXPECT_EQ(to_json(back), to_json(n));  // the doctor's view too
  const RankMessage m = decode_rank_message(facts_message(3, n));
  ASSERT_TRUE(m.facts);
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(m.facts->label, n.label);
}

TEST(FleetWire, EveryTruncationAndByteFlipIsAWireErrorNotACrash) {
  const std::string good = facts_message(0, example_node());
  for (std::size_t cut = 0; cut < good.size(); cut += 97) {
    EXPECT_THROW(decode_rank_message(std::string_view(good).substr(0, cut)), WireError) << cut;
  }
  std::size_t errors = 0;
  for (std::size_t i = 0; i < good.size(); i += 61) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      decode_rank_message(bad);
    } catch (const WireError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_THROW(decode_rank_message("not cbor at all"), WireError);
}

TEST(FleetWire, AWrongTypeNamesTheFieldAtFault) {
  nlohmann::json j = node_facts_to_wire(example_node());
  j["ib"]["v"][0]["ports"][0]["n"] = "one";
  try {
    node_facts_from_wire(j);
    FAIL() << "decoded a port number that is a string";
  } catch (const WireError& e) {
    EXPECT_EQ(std::string(e.what()), "ib.v[0].ports[0].n: expected an integer");
  }
}

TEST(CborTree, ReadsWhatTheEncoderWrites) {
  const nlohmann::json doc = {{"a", -5}, {"b", 1.5}, {"c", 0.1}, {"d", {7, "x", nullptr, true}}};
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(doc);
  CborTree t;
  t.parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  ASSERT_EQ(t[0].type, CborType::kMap);
  EXPECT_EQ(t[0].count, 4u);
  EXPECT_EQ(t[0].next, t.size());
  EXPECT_EQ(t[1].text, "a");
  EXPECT_EQ(t[2].type, CborType::kNegative);
  EXPECT_EQ(t[2].u, 4u);  // -1 - 4
  EXPECT_EQ(t[4].f, 1.5);
  EXPECT_EQ(t[6].f, 0.1);  // a double that no float holds
  ASSERT_EQ(t[8].type, CborType::kArray);
  EXPECT_EQ(t[8].count, 4u);
  EXPECT_EQ(t[9].u, 7u);
  EXPECT_EQ(t[10].text, "x");
  EXPECT_EQ(t[11].type, CborType::kNull);
  EXPECT_EQ(t[12].type, CborType::kBool);
  EXPECT_EQ(t[12].u, 1u);
  t.parse(std::string_view("\xf9\x3c\x00", 3));  // RFC 8949 appendix A: half-precision 1.0
  EXPECT_EQ(t[0].f, 1.0);
}

TEST(CborTree, RefusesWhatTheEncoderNeverWrites) {
  using namespace std::string_literals;
  const std::vector<std::string> bad = {
      "",
      "\x41\x00"s,                             // a byte string
      "\xc0\x60",                              // a tag
      "\x9f\xff",                              // an indefinite-length array
      "\xf7",                                  // undefined
      "\xa1\x01\x02",                          // a map with an integer key
      "\x01\x01",                              // bytes after the document
      "\x9b\xff\xff\xff\xff\xff\xff\xff\xff",  // 2^64 - 1 elements claimed, none there
      "\x7a\x00\x01\x00\x00"
      "abc"s,                             // a 65,536-byte string cut short
      std::string(200, '\x81') + "\x01",  // nested deeper than any message
  };
  CborTree t;
  for (const std::string& b : bad) EXPECT_THROW(t.parse(b), WireError) << testing::PrintToString(b);
}

TEST(FleetGatherer, StatesOfEveryKindOfRank) {
  const NodeFacts n = example_node();
  FleetGatherer g(6, "0.1.0");
  g.accept(0, facts_message(0, n), 0.1);
  RankMessage hello;
  hello.rank = 1;
  hello.host = "h1";
  g.accept(1, encode_rank_message(hello), 0.2);  // then nothing: stalled
  RankMessage failed;
  failed.kind = RankMessageKind::kFailed;
  failed.rank = 2;
  failed.error = "probes hung";
  g.accept(2, encode_rank_message(failed), 0.3);
  g.accept(3, "\xff\xfe", 0.4);
  g.accept(4, facts_message(0, n), 0.5);  // claims to be rank 0
  EXPECT_FALSE(g.complete());
  FleetGather out = g.finish(8, 8, "mpirun");
  std::vector<std::string> states;
  for (const FleetRank& r : out.fleet.ranks) states.push_back(fleet_rank_state_name(r.state));
  EXPECT_EQ(states, (std::vector<std::string>{"ok", "stalled", "failed", "unreadable", "unreadable",
                                              "silent"}));
  EXPECT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.fleet.ranks[2].detail, "probes hung");
  EXPECT_EQ(out.fleet.ranks[1].host, "h1");
}

TEST(FleetGatherer, DuplicateLabelsGetTheRank) {
  const NodeFacts n = example_node();
  FleetGatherer g(2, "0.1.0");
  g.accept(0, facts_message(0, n), 0);
  g.accept(1, facts_message(1, n), 0);
  ASSERT_TRUE(g.complete());
  FleetGather out = g.finish(0, 1, "none");
  EXPECT_EQ(out.nodes[1].label, n.label + "#1");
}

TEST(FleetOptions, RootForRankAndFaultSpec) {
  EXPECT_EQ(root_for_rank({"snaps/node-%r"}, 12), "snaps/node-12");
  EXPECT_EQ(root_for_rank({"a", "b"}, 3), "b");
  EXPECT_EQ(parse_fleet_faults("1:hang,3:garbage").at(3), FleetFault::kGarbage);
  EXPECT_THROW(parse_fleet_faults("1:explode"), std::exception);
  EXPECT_THROW(parse_fleet_faults("x:hang"), std::exception);
}
