// What one cell of the fleet's pair matrix should reach (queries/pair_expectation.h).
#include <gtest/gtest.h>

#include "queries/pair_expectation.h"

namespace trainready {
namespace {

const SkuEntry* gb200() { return Catalog::builtin().find("Standard_ND128isr_NDR_GB200_v6"); }

// Domain review 3, finding 5: inside a GB200 NVL72 rack NCCL carries a pair over multi-node
// NVLink unless NCCL_MNNVL_ENABLE=0; the rail matrix is run with it at 0 and says so, and a user
// who turned MNNVL on gets "NVLink, not IB" instead of the HCA figure.
TEST(PairExpectation, Gb200RailsRunWithMnnvlOffAndSaySo) {
  EXPECT_EQ(mnnvl_for(gb200(), true, nullptr), Mnnvl::kDisabled);
  EXPECT_EQ(mnnvl_for(gb200(), true, "0"), Mnnvl::kDisabled);
  EXPECT_EQ(mnnvl_for(gb200(), true, "1"), Mnnvl::kEnabled);
  EXPECT_EQ(mnnvl_for(gb200(), false, nullptr), Mnnvl::kNotApplicable);
  EXPECT_EQ(mnnvl_for(Catalog::builtin().find("Standard_ND96isr_H100_v5"), true, nullptr),
            Mnnvl::kNotApplicable);

  PairExpectation off =
      pair_expectation(gb200(), true, 4, RunOptions{}, kPairFigureMinBytes, Mnnvl::kDisabled);
  ASSERT_TRUE(off.gbytes_per_s.has_value()) << off.why_unknown;
  EXPECT_DOUBLE_EQ(*off.gbytes_per_s, 400 / 8.0 * 0.95);
  EXPECT_NE(off.formula.find("NCCL_MNNVL_ENABLE=0"), std::string::npos) << off.formula;

  PairExpectation on =
      pair_expectation(gb200(), true, 4, RunOptions{}, kPairFigureMinBytes, Mnnvl::kEnabled);
  EXPECT_FALSE(on.gbytes_per_s.has_value());
  EXPECT_EQ(on.why_unknown.rfind("NVLink, not IB", 0), 0u) << on.why_unknown;
}

// Domain review 3, finding 12: --quick's 4 MiB pairs were judged against the large-message
// per-rail figure (an error below 35.6 GB/s on ND H100 v5); no source shows 4 MiB reaches it.
// The figure applies from 64 MiB; below, cells are judged against their peers only.
TEST(PairExpectation, QuickPairsAreJudgedAgainstPeersOnly) {
  const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  PairExpectation quick = pair_expectation(h100, true, 8, RunOptions{}, 4ull << 20);
  EXPECT_FALSE(quick.gbytes_per_s.has_value());
  EXPECT_NE(quick.why_unknown.find("against their peers only"), std::string::npos);
  EXPECT_TRUE(pair_expectation(h100, true, 8, RunOptions{}, 64ull << 20).gbytes_per_s);
  EXPECT_TRUE(pair_expectation(h100, true, 8, RunOptions{}, 256ull << 20).gbytes_per_s);
}

// Domain review 3, finding 10: UCX does not stripe over every HCA it finds; a rendezvous message
// uses up to UCX_MAX_RNDV_RAILS devices, "2" by default (openucx/ucx ucp_context.c).
TEST(PairExpectation, HostMemoryMpiSaysHowManyHcasUcxUses) {
  PairExpectation e =
      pair_expectation(Catalog::builtin().find("Standard_ND96isr_H100_v5"), false, 1, {});
  EXPECT_FALSE(e.gbytes_per_s.has_value());
  EXPECT_NE(e.why_unknown.find("UCX_MAX_RNDV_RAILS"), std::string::npos) << e.why_unknown;
  EXPECT_NE(e.why_unknown.find("2 by default"), std::string::npos) << e.why_unknown;
}

}  // namespace
}  // namespace trainready

namespace trainready {
namespace {

// Issue 32, item 3: a rail is held to the per-HCA level of the size through the shared query
// (AzNHC check_ib_bw_gdr: 180 Gb/s on ND A100 v4 = 22.5 GB/s; the old line-rate figure was
// 200 / 8 x 95 % = 23.75), and to line rate x efficiency where the size has no such level
// (ND MI300X v5: AzNHC checks ib_write_bw from host memory only).
TEST(PairExpectation, RailsUseThePerHcaLevelOfTheSize) {
  const PairExpectation a100 =
      pair_expectation(Catalog::builtin().find("Standard_ND96asr_v4"), true, 8, RunOptions{});
  ASSERT_TRUE(a100.gbytes_per_s) << a100.why_unknown;
  EXPECT_DOUBLE_EQ(*a100.gbytes_per_s, 22.5);
  EXPECT_NE(a100.formula.find("180 Gb/s / 8 = 22.5 GB/s"), std::string::npos) << a100.formula;
  const PairExpectation mi300x = pair_expectation(
      Catalog::builtin().find("Standard_ND96isr_MI300X_v5"), true, 8, RunOptions{});
  ASSERT_TRUE(mi300x.gbytes_per_s) << mi300x.why_unknown;
  EXPECT_DOUBLE_EQ(*mi300x.gbytes_per_s, 400 / 8.0 * 0.95);
}

}  // namespace
}  // namespace trainready
