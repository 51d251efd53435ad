// The harness on a one-rank fake back end: timing statistics, formulas, validation that catches
// a wrong result. Several real ranks: tests/tools/bench_mpi_check.py under mpirun (label mpi).
#include "bench/collective_harness.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace trainready {
namespace {

class OneRankBackend : public CommBackend {
 public:
  explicit OneRankBackend(bool corrupt) : corrupt_(corrupt) {}
  std::string name() const override { return "fake"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string host() const override { return "h"; }
  int device_index() const override { return 0; }
  std::string device_bus_id() const override { return "0000:01:00"; }
  std::string device_name() const override { return "fake"; }
  void* allocate(std::size_t bytes) override { return std::calloc(bytes, 1); }
  void release(void* p) override { std::free(p); }
  void upload(void* d, const void* h, std::size_t n) override { std::memcpy(d, h, n); }
  void download(void* h, const void* d, std::size_t n) override { std::memcpy(h, d, n); }
  std::size_t in_place_input_offset(Collective, const CollectiveCounts&) const override {
    return 0;
  }
  std::size_t in_place_result_offset(Collective, const CollectiveCounts&) const override {
    return 0;
  }
  // One rank: every collective's result is its own input.
  void run(Collective, const void* send, void* recv, const CollectiveCounts& n, DataType t, int,
           bool in_place) override {
    ++runs;
    if (!in_place) std::memcpy(recv, send, n.recv * type_size(t));
    if (corrupt_ && n.recv > 0) static_cast<float*>(recv)[0] += 1;
  }
  void synchronize() override {}
  void barrier() override {}
  double max_over_ranks(double v) override { return v; }
  double sum_over_ranks(double v) override { return v; }
  std::vector<std::string> gather_to_root(const std::string& s) override { return {s}; }
  // One rank has no peer to exchange with; the harness never asks.
  bool exchange(int, const void*, void*, std::size_t, int, std::chrono::milliseconds) override {
    return false;
  }
  int runs = 0;

 private:
  bool corrupt_;
};

HarnessOptions small() {
  HarnessOptions o;
  o.min_bytes = 64;
  o.max_bytes = 4096;
  o.warmup = 2;
  o.iters = 3;
  o.repeats = 4;
  return o;
}

TEST(CollectiveHarness, RunsTheSweepAndValidates) {
  OneRankBackend b(false);
  HarnessResult r = run_collective_harness(b, small());
  ASSERT_EQ(r.sizes.size(), 7u);  // 64 .. 4096
  EXPECT_EQ(r.ranks, 1);
  EXPECT_EQ(r.wrong, 0);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_NE(r.devices[0].find("Rank 0 Group  0 Pid"), std::string::npos);
  EXPECT_NE(r.devices[0].find("[0000:01:00] fake"), std::string::npos);
  // Per size and placement: warm-up + repeats x iters + one validation run.
  EXPECT_EQ(b.runs, 7 * 2 * (2 + 4 * 3 + 1));
  for (const SizeResult& s : r.sizes) {
    EXPECT_LE(s.out_of_place.time.min_us, s.out_of_place.time.median_us);
    EXPECT_LE(s.out_of_place.time.median_us, s.out_of_place.time.max_us);
    EXPECT_EQ(s.out_of_place.wrong, 0);
    EXPECT_EQ(s.in_place.wrong, 0);
    // algbw = bytes / median time (GB/s = 1e9 B/s); one rank's all-reduce has busbw factor 0.
    EXPECT_NEAR(s.out_of_place.algbw, s.size_bytes / (s.out_of_place.time.median_us * 1e3), 1e-9);
    EXPECT_EQ(s.out_of_place.busbw, 0);
  }
}

TEST(CollectiveHarness, CountsWrongElements) {
  OneRankBackend b(true);
  HarnessOptions o = small();
  o.collective = Collective::kBroadcast;  // factor 1: busbw = algbw
  HarnessResult r = run_collective_harness(b, o);
  EXPECT_EQ(r.wrong, 7 * 2);  // one wrong element per size and placement
  EXPECT_EQ(r.sizes[0].out_of_place.wrong, 1);
  EXPECT_DOUBLE_EQ(r.sizes[0].out_of_place.busbw, r.sizes[0].out_of_place.algbw);
}

TEST(CollectiveHarness, WithoutCheckWrongIsUnknown) {
  OneRankBackend b(true);
  HarnessOptions o = small();
  o.check = false;
  HarnessResult r = run_collective_harness(b, o);
  EXPECT_EQ(r.wrong, 0);
  EXPECT_EQ(r.sizes[0].in_place.wrong, -1);
}

TEST(CollectiveHarness, RootMustBeARank) {
  OneRankBackend b(false);
  HarnessOptions o = small();
  o.root = 3;
  EXPECT_ANY_THROW(run_collective_harness(b, o));
}

}  // namespace
}  // namespace trainready
