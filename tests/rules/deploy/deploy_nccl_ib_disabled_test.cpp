#include <gtest/gtest.h>

#include "core/base64.h"
#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployNcclIbDisabled, FiresOnBase64CloudInit) {
  std::string script =
      "#cloud-config\nwrite_files:\n  - path: /etc/nccl.conf\n    content: |\n"
      "      NCCL_IB_DISABLE=1\n";
  auto o = run_deploy_rule(
      "deploy-nccl-ib-disabled",
      arm_resources(vm("nd", "Standard_ND96isr_H100_v5",
                       R"("osProfile": {"customData": ")" + base64_encode(script) + "\"}")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("line 5"), std::string::npos);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
}

TEST(DeployNcclIbDisabled, FiresOnNcclNetSocketInsideAnExpression) {
  auto o = run_deploy_rule(
      "deploy-nccl-ib-disabled",
      arm_resources(vm(
          "nd", "Standard_ND96isr_H100_v5",
          R"("userData": "[base64(concat('export NCCL_NET=Socket\n', parameters('extra')))]")")));
  ASSERT_EQ(o.findings.size(), 1u);
}

TEST(DeployNcclIbDisabled, QuietOnZeroAndOnComments) {
  std::string script =
      "#!/bin/bash\n# NCCL_IB_DISABLE=1 was needed on old sizes\nexport NCCL_IB_DISABLE=0\n"
      "export NCCL_NET_GDR_LEVEL=5\n";
  EXPECT_TRUE(run_deploy_rule("deploy-nccl-ib-disabled",
                              arm_resources(vm("nd", "Standard_ND96isr_H100_v5",
                                               R"("osProfile": {"customData": ")" +
                                                   base64_encode(script) + "\"}")))
                  .findings.empty());
}

}  // namespace trainready::test
