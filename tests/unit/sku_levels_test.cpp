// Two levels per VM size (issue 32, item 3): the query doctor, fleet and the health mode share.
#include "queries/sku_levels.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "rules/registry.h"
#include "support/node_builder.h"

using namespace trainready;

namespace {

const SkuEntry& sku(const char* name) {
  const SkuEntry* e = Catalog::builtin().find(name);
  if (e == nullptr) throw std::runtime_error(name);
  return *e;
}

}  // namespace

// Microsoft's ND H100 v5 baseline (ai-infrastructure-on-azure sku_performance_baseline): NCCL
// all_reduce ~450 GB/s, Warn < 400, GHR < 300; AzNHC's pass lines are one-level repair levels.
TEST(SkuLevels, H100PublishedAndAznhcLevels) {
  const SkuEntry& h100 = sku("Standard_ND96isr_H100_v5");
  const auto busbw = sku_level(h100, kMetricAllreduceBusbw, "across_domains");
  ASSERT_TRUE(busbw);
  EXPECT_EQ(busbw->unit, "GB/s");
  EXPECT_DOUBLE_EQ(busbw->expected.value(), 450);
  EXPECT_DOUBLE_EQ(busbw->warn_below.value(), 400);
  EXPECT_DOUBLE_EQ(busbw->repair_below, 300);
  EXPECT_EQ(busbw->origin, "published");
  EXPECT_EQ(judge_level(*busbw, 450), LevelVerdict::kOk);
  EXPECT_EQ(judge_level(*busbw, 350), LevelVerdict::kWarn);
  EXPECT_EQ(judge_level(*busbw, 299.9), LevelVerdict::kRepair);

  const auto ib = sku_level(h100, kMetricIbWriteBwGdr, "vm");
  ASSERT_TRUE(ib);
  EXPECT_EQ(ib->unit, "Gb/s");
  EXPECT_DOUBLE_EQ(ib->repair_below, 380);
  EXPECT_FALSE(ib->warn_below);  // AzNHC publishes one pass line
  EXPECT_EQ(ib->origin, "aznhc");
  EXPECT_EQ(judge_level(*ib, 379), LevelVerdict::kRepair);
  EXPECT_EQ(judge_level(*ib, 381), LevelVerdict::kOk);

  const auto one_vm = sku_level(h100, kMetricAllreduceBusbw, "vm");
  ASSERT_TRUE(one_vm);
  EXPECT_DOUBLE_EQ(one_vm->repair_below, 460);
  EXPECT_EQ(one_vm->message, "16G");

  const auto gemm = sku_level(h100, kMetricGemm, "gpu");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->unit, "TFLOP/s");
  EXPECT_DOUBLE_EQ(gemm->repair_below, 715);
  const std::string text = describe_level(*busbw, Catalog::builtin());
  EXPECT_NE(text.find("Warn below 400 GB/s, repair (GHR) below 300 GB/s at 16G"), std::string::npos)
      << text;
  EXPECT_NE(text.find("sku_performance_baseline"), std::string::npos) << text;
}

TEST(SkuLevels, Gb300RackAndAcrossRacksNoneForGb200) {
  const SkuEntry& gb300 = sku("Standard_ND128isr_GB300_v6");
  const auto rack = sku_level(gb300, kMetricAllreduceBusbw, "nvlink_domain");
  ASSERT_TRUE(rack);
  EXPECT_DOUBLE_EQ(rack->warn_below.value(), 800);
  EXPECT_DOUBLE_EQ(rack->repair_below, 600);
  EXPECT_FALSE(sku_level(gb300, kMetricIbWriteBwGdr, "vm"));
  EXPECT_TRUE(sku_levels(sku("Standard_ND128isr_NDR_GB200_v6")).empty());
}

// Every level in the shipped catalog has a unit, a source the catalog names, and its levels in
// order.
TEST(SkuLevels, EveryBuiltinLevelHasUnitAndSource) {
  const Catalog& c = Catalog::builtin();
  int n = 0;
  for (const SkuEntry& e : c.skus())
    for (const SkuLevel& l : sku_levels(e)) {
      ++n;
      EXPECT_FALSE(l.unit.empty()) << e.name << " " << l.metric;
      EXPECT_NE(c.source_text(l.source), l.source) << e.name << " " << l.metric;
      EXPECT_GT(l.repair_below, 0) << e.name;
      if (l.warn_below) {
        EXPECT_LT(l.repair_below, *l.warn_below) << e.name;
      }
    }
  EXPECT_GE(n, 10);
}

// doctor's ib-write-bw-low reads its levels through the query: a published two-level entry
// makes a run between Warn and repair a warning (the rule used to read the one AzNHC floor only,
// and skipped a size without one).
TEST(SkuLevels, IbWriteBwLowUsesTheWarnLevel) {
  const Catalog c = Catalog::parse(R"({"sources": {"t": "test levels"}, "skus": [{"name": "X",
    "gpu": {"vendor": "nvidia", "model": "M", "count": 1, "memory_gb": 1},
    "infiniband": {"ports": 1, "rate_gbits_per_s": 400}, "frontend_nic_gbits_per_s": 1,
    "source": "s", "date": "d",
    "published_thresholds": [{"metric": "ib_write_bw_gdr_gbits_per_s", "applies": "vm",
      "unit": "Gb/s", "expected": 395, "warn_below": 390, "ghr_below": 370, "source": "t"}]}]})",
                                   "levels.json");
  NodeFacts n = test::healthy_nd_h100();
  IbWriteBwRun r;
  r.device = "mlx5_ib0";
  r.link_type = "IB";
  r.gpu_memory = true;
  r.bytes = 8388608;
  r.average_gbps = 380;
  r.unit_text = "Gb/sec";
  n.ib_write_bw = Fact<IbWriteBwFacts>::present(IbWriteBwFacts{{r}}, {"cap.txt", 0});
  RunOptions opt;
  opt.sku = "X";
  std::vector<NodeFacts> nodes{n};
  RuleContext ctx{&nodes.front(), &nodes, &c};
  ctx.run_options = &opt;
  const Rule* rule = find_rule("ib-write-bw-low");
  ASSERT_NE(rule, nullptr);
  RuleOutcome o = rule->evaluate(ctx);
  ASSERT_FALSE(o.skipped) << o.skip_reason;
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("Warn level"), std::string::npos) << o.findings[0].message;
  nodes.front().ib_write_bw.value.runs[0].average_gbps = 360;
  o = rule->evaluate(ctx);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  nodes.front().ib_write_bw.value.runs[0].average_gbps = 392;
  EXPECT_TRUE(rule->evaluate(ctx).findings.empty());
}
