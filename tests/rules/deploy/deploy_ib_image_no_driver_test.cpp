#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

namespace {
std::string image(const std::string& publisher, const std::string& offer,
                  const std::string& sku = "x") {
  return R"("storageProfile": {"imageReference": {"publisher": ")" + publisher +
         R"(", "offer": ")" + offer + R"(", "sku": ")" + sku + R"(", "version": "latest"}})";
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
  // Not allow-listed: unknown, so a note of what to check, not a "no driver" finding.
  auto o = run_deploy_rule("deploy-ib-image-no-driver", d);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("ofed_info -s"), std::string::npos);
  d.hpc_images.push_back("galleries/hpc/images/nd-ofed");
  o = run_deploy_rule("deploy-ib-image-no-driver", d);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_TRUE(o.notes.empty());
}

TEST(DeployIbImageNoDriver, WindowsImagesNeedTheWindowsDriverExtension) {
  auto o = run_deploy_rule(
      "deploy-ib-image-no-driver",
      arm_resources(vm("hb", "Standard_HB120rs_v3",
                       image("MicrosoftWindowsServer", "WindowsServer", "2019-Datacenter"))));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("InfiniBandDriverWindows"), std::string::npos);
  EXPECT_EQ(o.findings[0].fix.find("InfiniBandDriverLinux"), std::string::npos);
}

TEST(DeployIbImageNoDriver, CentOsHpcVersionAndSlesHpcAreJudgedPerSizeClass) {
  auto run = [](const std::string& size, const std::string& pub, const std::string& offer,
                const std::string& sku) {
    return run_deploy_rule("deploy-ib-image-no-driver",
                           arm_resources(vm("n", size, image(pub, offer, sku))))
        .findings;
  };
  // CentOS-HPC 7.1 / 7.3: Network Direct drivers for the non-SR-IOV sizes only.
  auto old = run("Standard_HB120rs_v2", "OpenLogic", "CentOS-HPC", "7.3");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_NE(old[0].cause.find("not the Mellanox OFED"), std::string::npos) << old[0].cause;
  EXPECT_EQ(run("Standard_ND96asr_v4", "OpenLogic", "CentOS-HPC", "7.1").size(), 1u);
  EXPECT_TRUE(run("Standard_H16r", "OpenLogic", "CentOS-HPC", "7.1").empty());
  EXPECT_TRUE(run("Standard_HB120rs_v2", "OpenLogic", "CentOS-HPC", "7_9-gen2").empty());
  // SLES-HPC carries the RDMA drivers of the H16r class, not OFED for SR-IOV sizes.
  EXPECT_TRUE(run("Standard_H16r", "SUSE", "SLES-HPC", "12-SP3").empty());
  EXPECT_EQ(run("Standard_HB120rs_v3", "SUSE", "SLES-HPC", "15-SP3").size(), 1u);
}

}  // namespace trainready::test
