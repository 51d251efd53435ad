#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

namespace {
std::string amlfs(const std::string& sku, const std::string& capacity) {
  return R"({"type": "Microsoft.StorageCache/amlFilesystems", "apiVersion": "2025-07-01",
    "name": "fs", "location": "eastus", "sku": {"name": ")" +
         sku + R"("}, "properties": {"storageCapacityTiB": )" + capacity +
         R"(, "filesystemSubnet": "x", "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "00:00"}}})";
}

RuleOutcome run(const std::string& sku, const std::string& capacity) {
  return run_deploy_rule("deploy-amlfs-capacity-invalid", arm_resources(amlfs(sku, capacity)));
}
}  // namespace

TEST(DeployAmlfsCapacityInvalid, FiresOffTheSkusSteps) {
  auto between = run("AMLFS-Durable-Premium-250", "12");
  ASSERT_EQ(between.findings.size(), 1u);
  EXPECT_NE(between.findings[0].message.find("not 8 TiB plus whole steps of 8 TiB"),
            std::string::npos)
      << between.findings[0].message;
  EXPECT_EQ(between.findings[0].location.line, 6);
  ASSERT_EQ(run("AMLFS-Durable-Premium-40", "24").findings.size(), 1u);  // below 48
  EXPECT_EQ(run("AMLFS-Durable-Premium-40", "24").findings[0].severity, Severity::kError);
  // Above the maximum and off the steps: still impossible.
  auto off = run("AMLFS-Durable-Premium-500", "130");
  ASSERT_EQ(off.findings.size(), 1u);
  EXPECT_EQ(off.findings[0].severity, Severity::kError);
}

// Domain review 3, finding 16: "If you are interested in storage values larger than the listed
// maximum, please open a support ticket" (create-file-system-resource-manager): above the
// maximum, on the steps, is a warning that names the support request, not an error.
TEST(DeployAmlfsCapacityInvalid, AboveTheListedMaximumIsAWarning) {
  auto above = run("AMLFS-Durable-Premium-500", "132");
  ASSERT_EQ(above.findings.size(), 1u);
  EXPECT_EQ(above.findings[0].severity, Severity::kWarning);
  EXPECT_NE(above.findings[0].message.find("needs an approved support request"), std::string::npos)
      << above.findings[0].message;
}

TEST(DeployAmlfsCapacityInvalid, QuietOnTheSkusSizesAndOnWhatItCannotJudge) {
  EXPECT_TRUE(run("AMLFS-Durable-Premium-250", "16").findings.empty());
  EXPECT_TRUE(run("AMLFS-Durable-Premium-40", "768").findings.empty());
  EXPECT_TRUE(run("AMLFS-Durable-Premium-125", "16").findings.empty());
  auto unknown_sku = run("AMLFS-Durable-Premium-9000", "12");
  EXPECT_TRUE(unknown_sku.findings.empty());
  EXPECT_FALSE(unknown_sku.notes.empty());
  auto expr = run("AMLFS-Durable-Premium-250", "\"[parameters('size')]\"");
  EXPECT_TRUE(expr.findings.empty());
}

}  // namespace trainready::test
