// One rank's walk of the pairwise rounds with a back end whose peer never answers (the timeout
// path), and rank 0's merge of both sides' records.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "fleet/bandwidth/pair_rounds.h"

namespace trainready {
namespace {

// Host buffers; exchange() succeeds at once with every peer except the dead ones, which it
// reports as timed out (returns false), as the MPI and NCCL back ends do at their deadline.
class FakePeers : public CommBackend {
 public:
  std::set<int> dead;
  std::set<int> throwing;
  std::vector<std::pair<int, int>> calls;  // (peer, tag)
  int released = 0;
  std::string name() const override { return "fake"; }
  int rank() const override { return 0; }
  int size() const override { return 8; }
  std::string host() const override { return "h0"; }
  int device_index() const override { return -1; }
  std::string device_bus_id() const override { return "cpu"; }
  std::string device_name() const override { return "host"; }
  void* allocate(std::size_t bytes) override { return std::calloc(bytes, 1); }
  void release(void* p) override {
    ++released;
    std::free(p);
  }
  void upload(void*, const void*, std::size_t) override {}
  void download(void*, const void*, std::size_t) override {}
  void run(Collective, const void*, void*, const CollectiveCounts&, DataType, int, bool) override {}
  std::size_t in_place_input_offset(Collective, const CollectiveCounts&) const override {
    return 0;
  }
  std::size_t in_place_result_offset(Collective, const CollectiveCounts&) const override {
    return 0;
  }
  void synchronize() override {}
  void barrier() override {}
  double max_over_ranks(double v) override { return v; }
  double sum_over_ranks(double v) override { return v; }
  std::vector<std::string> gather_to_root(const std::string& s) override { return {s}; }
  bool exchange(int peer, const void*, void*, std::size_t, int tag,
                std::chrono::milliseconds) override {
    calls.emplace_back(peer, tag);
    if (throwing.count(peer)) throw std::runtime_error("ncclSend: remote process exited");
    return dead.count(peer) == 0;
  }
};

std::vector<PairNode> nodes(int n) {
  std::vector<PairNode> out;
  for (int i = 0; i < n; ++i) out.push_back({"h" + std::to_string(i), {i}, true, ""});
  return out;
}

TEST(PairRounds, DeadPeerTimesOutAndTheWalkGoesOn) {
  FakePeers b;
  b.dead = {2};
  BandwidthOptions o = bandwidth_profile("quick");
  const auto rounds = round_robin_schedule(4);
  int last = 0, total = 0;
  const auto recs = run_pair_rounds(b, nodes(4), 0, 0, rounds, {1024}, o, 1000,
                                    [&](int d, int t) { last = d, total = t; });
  ASSERT_EQ(recs.size(), 3u) << "node 0 meets each of its 3 peers once";
  int timed_out = 0;
  for (const PairRecord& r : recs) {
    EXPECT_EQ(r.a, 0);
    if (r.b == 2) {
      EXPECT_TRUE(r.timed_out);
      EXPECT_TRUE(r.repeats_gbytes.empty());
      ++timed_out;
    } else {
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.repeats_gbytes.size(), 1u);
      EXPECT_GT(r.repeats_gbytes[0], 0);
    }
  }
  EXPECT_EQ(timed_out, 1);
  EXPECT_EQ(last, 3);
  EXPECT_EQ(total, 3);
  // The dead peer got exactly one try (the warm-up that lines the sides up), not one per
  // iteration; the others warm-up + iterations x repeats.
  int to_dead = 0;
  for (auto [peer, tag] : b.calls) to_dead += peer == 2;
  EXPECT_EQ(to_dead, 1);
  EXPECT_EQ(b.calls.size(), 1u + 2u * (1u + 3u));
  EXPECT_EQ(b.released, 0) << "buffers are kept after a timeout (MPI may still write)";
}

TEST(PairRounds, NodeReportedDeadBySyncIsSkippedAfterwards) {
  FakePeers b;
  std::vector<int> steps;
  RoundSync sync = [&](int step, std::set<int>& dead) {
    steps.push_back(step);
    // Node 0 meets 3, 2, 1 in that order; after the first round rank 0 heard nothing from 1.
    if (step == 1) dead.insert(1);
    return true;
  };
  const auto rounds = round_robin_schedule(4);
  const auto recs =
      run_pair_rounds(b, nodes(4), 0, 0, rounds, {64}, bandwidth_profile("quick"), 1000, {}, sync);
  EXPECT_EQ(steps, (std::vector<int>{1, 2, 3}));
  ASSERT_EQ(recs.size(), 2u);
  for (const PairRecord& r : recs) EXPECT_NE(r.b, 1) << "round " << r.round;
  for (auto [peer, tag] : b.calls) EXPECT_NE(peer, 1);
}

TEST(PairRounds, SyncFalseStopsTheWalk) {
  FakePeers b;
  const auto recs =
      run_pair_rounds(b, nodes(4), 0, 0, round_robin_schedule(4), {64}, bandwidth_profile("quick"),
                      1000, {}, [](int, std::set<int>&) { return false; });
  EXPECT_EQ(recs.size(), 1u);
}

TEST(PairRounds, LibraryErrorIsRecordedAsATimedOutPair) {
  FakePeers b;
  b.throwing = {1};
  const auto recs = run_pair_rounds(b, nodes(2), 0, 0, round_robin_schedule(2), {64},
                                    bandwidth_profile("quick"), 1000);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(recs[0].timed_out);
  EXPECT_NE(recs[0].error.find("remote process exited"), std::string::npos);
}

TEST(PairRounds, HealthyWalkReleasesItsBuffers) {
  FakePeers b;
  run_pair_rounds(b, nodes(3), 1, 0, round_robin_schedule(3), {64, 128}, bandwidth_profile("quick"),
                  1000);
  EXPECT_EQ(b.released, 2);
}

TEST(PairRounds, MergeTakesTheSlowerSideAndTimeoutsWin) {
  PairBandwidthFacts f;
  f.nodes = nodes(3);
  f.rails = 1;
  std::vector<PairRecord> recs = {
      {4096, 0, 0, 1, 0, false, "", {10, 11, 12}},
      {4096, 0, 0, 1, 0, false, "", {9, 12, 13}},
      {4096, 0, 0, 2, 1, false, "", {8, 8, 8}},
      {4096, 0, 0, 2, 1, true, "", {}},
  };
  merge_pair_records(f, recs, false);
  ASSERT_EQ(f.matrices.size(), 1u);
  const PairMatrix& m = f.matrices[0];
  EXPECT_DOUBLE_EQ(m.at(0, 1).gbytes_per_s, 11);  // median of min(10,9), min(11,12), min(12,13)
  EXPECT_DOUBLE_EQ(m.at(1, 0).gbytes_per_s, 11);
  EXPECT_TRUE(m.at(0, 2).timed_out);
  EXPECT_FALSE(m.at(1, 2).measured);
  merge_pair_records(f, {{4096, 0, 0, 2, 0, false, "", {7}}}, true);
  EXPECT_TRUE(f.matrices[0].at(0, 2).retested);
  EXPECT_FALSE(f.matrices[0].at(0, 2).timed_out);
  EXPECT_DOUBLE_EQ(f.matrices[0].at(2, 0).gbytes_per_s, 7);
  EXPECT_EQ(f.matrices[0].at(2, 0).round, 1) << "keeps the round it first ran in";
}

TEST(PairRounds, RecordsSurviveJsonAndGarbageIsRefused) {
  const std::vector<PairRecord> recs = {{1 << 20, 1, 2, 5, 3, true, "x\"y", {}},
                                        {64, 0, 0, 1, 0, false, "", {1.5, 2.5}}};
  const auto back = pair_records_from_json(pair_records_to_json(recs));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].error, "x\"y");
  EXPECT_EQ(back[1].repeats_gbytes, (std::vector<double>{1.5, 2.5}));
  EXPECT_THROW(pair_records_from_json("[{\"size\": \"big\"}]"), std::runtime_error);
  EXPECT_THROW(pair_records_from_json("not json"), std::runtime_error);
}

}  // namespace
}  // namespace trainready
