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
      pair_expectation(gb200(), true, 4, RunOptions{}, Mnnvl::kDisabled);
  ASSERT_TRUE(off.gbytes_per_s.has_value()) << off.why_unknown;
  EXPECT_DOUBLE_EQ(*off.gbytes_per_s, 400 / 8.0 * 0.95);
  EXPECT_NE(off.formula.find("NCCL_MNNVL_ENABLE=0"), std::string::npos) << off.formula;

  PairExpectation on =
      pair_expectation(gb200(), true, 4, RunOptions{}, Mnnvl::kEnabled);
  EXPECT_FALSE(on.gbytes_per_s.has_value());
  EXPECT_EQ(on.why_unknown.rfind("NVLink, not IB", 0), 0u) << on.why_unknown;
}

}  // namespace
}  // namespace trainready
