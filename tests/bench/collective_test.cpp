// nccl-tests' size arithmetic and the size sweep.
#include "bench/collective.h"

#include <gtest/gtest.h>

#include "bench/collective_harness.h"
#include "core/input_error.h"

namespace trainready {
namespace {

// superbench-1node-8xa100-40g-all_gather_perf.txt (tests/data/fixtures): all_gather on 8 ranks
// prints size 8589934592 with count 268435456, the elements each rank contributes.
TEST(CollectiveCounts, MatchNcclTestsTables) {
  CollectiveCounts g =
      collective_counts(Collective::kAllGather, 8589934592ull, 8, DataType::kFloat32);
  EXPECT_EQ(g.param, 268435456u);
  EXPECT_EQ(g.bytes, 8589934592ull);
  EXPECT_EQ(g.send, 268435456u);
  EXPECT_EQ(g.recv, 8u * 268435456u);
  CollectiveCounts a = collective_counts(Collective::kAllReduce, 8388608, 8, DataType::kFloat32);
  EXPECT_EQ(a.param, 2097152u);  // superbench all_reduce: 8388608 B, 2097152 elements
  EXPECT_EQ(a.bytes, 8388608u);
  CollectiveCounts rs = collective_counts(Collective::kReduceScatter, 1000, 3, DataType::kFloat32);
  EXPECT_EQ(rs.param, 83u);  // 250 elements over 3 ranks, rounded down
  EXPECT_EQ(rs.send, 249u);
  EXPECT_EQ(rs.recv, 83u);
  EXPECT_EQ(rs.bytes, 996u);
  CollectiveCounts t = collective_counts(Collective::kAllToAll, 64, 4, DataType::kFloat64);
  EXPECT_EQ(t.param, 2u);
  EXPECT_EQ(t.send, 8u);
  EXPECT_EQ(t.recv, 8u);
  CollectiveCounts b = collective_counts(Collective::kBroadcast, 6, 2, DataType::kInt32);
  EXPECT_EQ(b.param, 1u);
  EXPECT_EQ(b.bytes, 4u);
}

TEST(SweepSizes, FactorAndStep) {
  HarnessOptions o;
  o.min_bytes = 8;
  o.max_bytes = 64ull << 20;
  o.factor = 2;
  auto s = sweep_sizes(o);
  ASSERT_EQ(s.size(), 24u);  // 8 B .. 64 MiB
  EXPECT_EQ(s.front(), 8u);
  EXPECT_EQ(s.back(), 64ull << 20);
  o.step_bytes = 1 << 20;
  o.min_bytes = 1 << 20;
  o.max_bytes = 4 << 20;
  EXPECT_EQ(sweep_sizes(o), (std::vector<std::uint64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
  o.step_bytes = 0;
  o.factor = 1.5;
  o.min_bytes = 1;
  o.max_bytes = 4;
  EXPECT_EQ(sweep_sizes(o), (std::vector<std::uint64_t>{1, 2, 3, 4}));  // at least +1 a step
}

TEST(SweepSizes, BadSweepsAreInputErrors) {
  HarnessOptions o;
  o.min_bytes = 1 << 20;
  o.max_bytes = 8;
  EXPECT_THROW(sweep_sizes(o), InputError);
  o.min_bytes = 8;
  o.factor = 1;
  EXPECT_THROW(sweep_sizes(o), InputError);
  o.factor = 2;
  o.iters = 0;
  EXPECT_THROW(sweep_sizes(o), InputError);
  o.iters = 1;
  o.step_bytes = 1;
  o.max_bytes = 1 << 20;
  EXPECT_THROW(sweep_sizes(o), InputError);  // a million sizes
}

}  // namespace
}  // namespace trainready
