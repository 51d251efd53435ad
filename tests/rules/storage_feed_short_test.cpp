// storage-feed-short: feed mode against the accelerators needed; raw reads against their demand.
#include <gtest/gtest.h>

#include "rules/registry.h"

namespace trainready {
namespace {

RuleOutcome judge(const StorageBenchFacts& s) {
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.storage = &s;
  return find_rule("storage-feed-short")->evaluate(ctx);
}

StorageBenchFacts unet3d() {
  StorageBenchFacts s;
  s.path = "/mnt/data";
  s.profile = "unet3d-h100";
  s.accelerator = "H100";
  s.demand_per_accelerator_bytes_per_s = 3.18e9;
  s.au_threshold = 0.9;
  s.cache_state = "cold-verified";
  s.read_mode = "O_DIRECT";
  return s;
}

TEST(StorageFeedShort, FeedModeFiresWhenFewerAreKeptBusyThanNeeded) {
  StorageBenchFacts s = unet3d();
  s.feed = true;
  s.accelerators_needed = 8;
  s.accelerators_origin = "--sku Standard_ND96isr_H100_v5: 8 GPUs per VM";
  s.trials = {{1, 0.97, 3.2e9, 3.18e9, true}, {2, 0.55, 3.5e9, 6.36e9, false}};
  s.largest_meeting = 1;
  RuleOutcome o = judge(s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("keeps 1 H100 of the 8 needed"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(
      o.findings[0].evidence[1].text.find("at 2 H100s: AU 55.0%, delivered 3.50 GB/s of 6.36 GB/s"),
      std::string::npos)
      << o.findings[0].evidence[1].text;
}

TEST(StorageFeedShort, FeedModeQuietWhenEnoughAreKeptBusy) {
  StorageBenchFacts s = unet3d();
  s.feed = true;
  s.accelerators_needed = 2;
  s.largest_meeting = 4;
  EXPECT_TRUE(judge(s).findings.empty());
}

TEST(StorageFeedShort, RawReadsBelowTheDemandFire) {
  StorageBenchFacts s = unet3d();
  s.raw_bw_bytes_per_s = 10e9;
  s.accelerators_needed = 8;  // 25.4 GB/s
  s.accelerators_origin = "--accelerators";
  RuleOutcome o = judge(s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("below the 25.4 GB/s that 8 H100s need"), std::string::npos)
      << o.findings[0].message;
}

TEST(StorageFeedShort, RawReadsFromThePageCacheAreOnlyAWarning) {
  StorageBenchFacts s = unet3d();
  s.raw_bw_bytes_per_s = 40e9;
  s.accelerators_needed = 8;
  s.cache_state = "hot";
  RuleOutcome o = judge(s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
}

TEST(StorageFeedShort, RawReadsQuietWhenColdAndFastEnough) {
  StorageBenchFacts s = unet3d();
  s.raw_bw_bytes_per_s = 30e9;
  s.accelerators_needed = 8;
  EXPECT_TRUE(judge(s).findings.empty());
}

TEST(StorageFeedShort, RawReadsSkippedWithoutADemand) {
  StorageBenchFacts s = unet3d();
  s.raw_bw_bytes_per_s = 1e9;
  RuleOutcome o = judge(s);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--accelerators"), std::string::npos);
}

}  // namespace
}  // namespace trainready
