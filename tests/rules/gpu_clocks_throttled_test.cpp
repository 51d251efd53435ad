#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

// nvml.h: nvmlClocksEventReasonHwThermalSlowdown = 0x40, ...HwPowerBrakeSlowdown = 0x80.
TEST(GpuClocksThrottled, FiresOnThermalOrPowerBrakeSlowdown) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value.gpus[1].clocks_event_reasons = 0x40;
  n.gpus.value.gpus[6].clocks_event_reasons = 0x80 | 0x4;
  RuleOutcome o = run_rule("gpu-clocks-throttled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("2 of 8"), std::string::npos);
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("HW thermal slowdown"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[1].text.find("HW power brake slowdown"), std::string::npos);
}

// Idle (0x1), application clocks (0x2) and the software power cap (0x4) are the work, not a fault.
TEST(GpuClocksThrottled, QuietOnIdlePowerCapAndSkipsWithoutReasons) {
  NodeFacts n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) g.clocks_event_reasons = 0x1 | 0x2 | 0x4;
  EXPECT_TRUE(run_rule("gpu-clocks-throttled", n).findings.empty());
  for (auto& g : n.gpus.value.gpus) g.clocks_event_reasons.reset();
  EXPECT_TRUE(run_rule("gpu-clocks-throttled", n).skipped);
}
