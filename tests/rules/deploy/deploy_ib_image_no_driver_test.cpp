#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

namespace {
std::string image(const std::string& publisher, const std::string& offer) {
  return R"("storageProfile": {"imageReference": {"publisher": ")" + publisher +
         R"(", "offer": ")" + offer + R"(", "sku": "x", "version": "latest"}})";
}
}  // namespace

TEST(DeployIbImageNoDriver, FiresOnAPlainUbuntuImage) {
  auto o = run_deploy_rule(
      "deploy-ib-image-no-driver",
      arm_resources(vm("nd", "Standard_ND96isr_H100_v5", image("Canonical", "ubuntu-24_04-lts"))));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("InfiniBandDriverLinux"), std::string::npos);
}

TEST(DeployIbImageNoDriver, QuietOnHpcImagesOrWithTheDriverExtension) {
  EXPECT_TRUE(run_deploy_rule("deploy-ib-image-no-driver",
                              arm_resources(vm("nd", "Standard_ND96isr_H100_v5",
                                               image("microsoft-dsvm", "ubuntu-hpc"))))
                  .findings.empty());
  auto with_ext = arm_resources(
      vm("nd", "Standard_ND96isr_H100_v5", image("Canonical", "ubuntu-24_04-lts")) + R"(,
    {"type": "Microsoft.Compute/virtualMachines/extensions", "apiVersion": "2024-03-01",
     "name": "nd/ib", "properties": {"publisher": "Microsoft.HpcCompute",
     "type": "InfiniBandDriverLinux", "typeHandlerVersion": "1.2"}})");
  EXPECT_TRUE(run_deploy_rule("deploy-ib-image-no-driver", with_ext).findings.empty());
  EXPECT_TRUE(run_deploy_rule(
                  "deploy-ib-image-no-driver",
                  arm_resources(vm("d", "Standard_D4s_v5", image("Canonical", "ubuntu-24_04-lts"))))
                  .findings.empty());
}

TEST(DeployIbImageNoDriver, AllowListedGalleryImageIsQuiet) {
  auto d = arm_resources(vm(
      "nd", "Standard_ND96isr_H100_v5",
      R"("storageProfile": {"imageReference": {"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/galleries/hpc/images/nd-ofed"}})"));
  EXPECT_EQ(run_deploy_rule("deploy-ib-image-no-driver", d).findings.size(), 1u);
  d.hpc_images.push_back("galleries/hpc/images/nd-ofed");
  EXPECT_TRUE(run_deploy_rule("deploy-ib-image-no-driver", d).findings.empty());
}

}  // namespace trainready::test
