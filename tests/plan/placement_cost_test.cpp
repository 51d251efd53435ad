// Placement limits and the cost model.
#include <gtest/gtest.h>

#include "plan/cost_model.h"
#include "plan/placement_model.h"

namespace trainready {
namespace {

const SkuEntry& sku(const char* name) { return *Catalog::builtin().find(name); }

// learn.microsoft.com setup-infiniband: one placement group, 100 VMs by default, 300 after a
// support request; beyond, several InfiniBand domains.
TEST(PlacementModel, InfinibandPlacementGroupLimits) {
  const SkuEntry& nd = sku("Standard_ND96isr_H100_v5");
  EXPECT_EQ(plan_placement(nd, 1).limit, PlacementLimit::kSingleVm);
  EXPECT_EQ(plan_placement(nd, 100).limit, PlacementLimit::kWithinDefault);
  EXPECT_EQ(plan_placement(nd, 101).limit, PlacementLimit::kSupportRequest);
  EXPECT_EQ(plan_placement(nd, 300).limit, PlacementLimit::kSupportRequest);
  Placement p = plan_placement(nd, 301);
  EXPECT_EQ(p.limit, PlacementLimit::kSplit);
  EXPECT_EQ(p.domains, 2);
  EXPECT_EQ(p.vms_per_domain, 151);
  EXPECT_NE(p.advice.find("front-end Ethernet"), std::string::npos);
  EXPECT_EQ(plan_placement(sku("Standard_NC80adis_H100_v5"), 8).limit,
            PlacementLimit::kNoInfiniband);
}

TEST(CostModel, CatalogPriceSnapshot) {
  const SkuEntry& nd = sku("Standard_ND96isr_H100_v5");
  auto p = choose_price(nd, "eastus", false, std::nullopt, "");
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->usd_per_vm_hour, 98.32);
  EXPECT_NE(p->origin.find("2026-09-16"), std::string::npos);
  auto spot = choose_price(nd, "eastus", true, std::nullopt, "");
  ASSERT_TRUE(spot);
  EXPECT_DOUBLE_EQ(spot->usd_per_vm_hour, 18.169536);
  EXPECT_FALSE(choose_price(nd, "westus", false, std::nullopt, ""));
  EXPECT_FALSE(choose_price(sku("Standard_NC40ads_H100_v5"), "eastus", false, std::nullopt, ""));
  auto user = choose_price(nd, "westus", false, 120.0, "--price");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->usd_per_vm_hour, 120.0);
  EXPECT_EQ(user->origin, "--price");
}

TEST(CostModel, PerHourPerRunAndIdle) {
  CostInputs in;
  in.price = {98.32, "pay-as-you-go", "catalog"};
  in.vms = 2;
  in.gpus_per_vm = 8;
  in.run_seconds = 10 * 3600;
  in.utilization = 0.75;
  CostEstimate c = estimate_cost(in);
  EXPECT_NEAR(c.per_hour.value, 196.64, 1e-9);
  EXPECT_NEAR(c.per_run.value, 1966.4, 1e-9);
  // 160 GPU-hours, a quarter of them waiting, at 98.32 / 8 per GPU-hour.
  EXPECT_NEAR(c.idle.value, 160 * 0.25 * 98.32 / 8, 1e-9);
}

}  // namespace
}  // namespace trainready
