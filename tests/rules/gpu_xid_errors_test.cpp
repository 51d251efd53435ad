#include <gtest/gtest.h>

#include "parsers/kernel_log.h"
#include "support/paths.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

NodeFacts with_log(const std::string& rel) {
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = Fact<KernelLogFacts>::present(parse_kernel_log(read_fixture(rel), rel), {rel, 0});
  return n;
}

}  // namespace

// leptonai/gpud testdata: five GSP RPC timeouts on one H100 -> one error (RESET_GPU; AzNHC fails
// the node on 119).
TEST(GpuXidErrors, Xid119IsAnErrorWithResetAdvice) {
  RuleOutcome o =
      run_rule("gpu-xid-errors", with_log("kernel-log/gpud-dmesg-T-h100-xid-119-gsp-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.message, "Xid 119 (GSP RPC Timeout) logged 5 times on 0000:9b:00");
  EXPECT_NE(f.cause.find("RESET_GPU"), std::string::npos);
  EXPECT_NE(f.cause.find("NHC2001"), std::string::npos);
  EXPECT_NE(f.fix.find("nvidia-smi -r"), std::string::npos);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_NE(f.evidence[0].text.find("x5, last [Sun Feb 23 16:30:13 2025]"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.find("cache_mgr_main, gpud, nvidia-smi"), std::string::npos);
}

// Xid 13 (application: warning, restart the job) and 109 (context-switch timeout: reset) on the
// same GPU are two findings with their own severities (leptonai/gpud#46).
TEST(GpuXidErrors, ApplicationCodeIsAWarningBesideAResetCode) {
  RuleOutcome o = run_rule("gpu-xid-errors", with_log("kernel-log/gpud-46-dmesg-T-xid-13-109.log"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].fix.find("Restart the job"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].message.find("Context Switch Timeout"), std::string::npos);
}

// Xid 48 (error: ECC workflow) and 63 (NVIDIA: IGNORE, but Azure's checks fail the node: error).
TEST(GpuXidErrors, AzureStricterThanTheCatalogOnXid63) {
  RuleOutcome o =
      run_rule("gpu-xid-errors", with_log("kernel-log/nvidia-docker-849-dmesg-T-xid-48-63.log"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].fix.find("ROW_REMAPPER"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].cause.find("IGNORE"), std::string::npos);
  EXPECT_NE(o.findings[1].cause.find("Azure's node health checks fail a node"), std::string::npos);
}

// A GPU that fell off the bus is named by its index when NVML knows the bus id.
TEST(GpuXidErrors, FallenOffTheBusNamesTheGpu) {
  NodeFacts n = with_log("kernel-log/nvsentinel-155-dmesg-fallen-off-bus-no-xid.log");
  n.gpus.value.gpus[3].pci_bus_id = "00000000:B3:00.0";
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("Xid 79 (GPU has fallen off the bus)"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("GPU 3 (0000:b3:00)"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("reboot"), std::string::npos);
}

TEST(GpuXidErrors, QuietWithoutXidSkippedWithoutLog) {
  EXPECT_TRUE(
      run_rule("gpu-xid-errors", with_log("kernel-log/gpud-1209-journalctl-k-no-xid-excerpt.log"))
          .findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = Fact<KernelLogFacts>::unreadable("Permission denied", {"/var/log/kern.log", 0});
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("Permission denied"), std::string::npos);
}
