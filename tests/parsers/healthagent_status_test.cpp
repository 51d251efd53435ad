// CycleCloud healthagent's `health -s` JSON (Azure/cyclecloud-healthagent @b8c76db).
#include "parsers/healthagent_status.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// The README's own `health -s | jq '.gpu'` and `jq '.network'` outputs, under their modules.
TEST(HealthagentStatus, ReadmeOutputAllOk) {
  const std::string text = read_fixture("healthagent/health-s-readme-gpu-network-ok.json");
  EXPECT_TRUE(looks_like_healthagent_status(text));
  const HealthagentStatus s = parse_healthagent_status(text, "health-s.json");
  ASSERT_EQ(s.checks.size(), 5u);
  const HealthagentCheck* net = s.find("network", "NetworkInterfaceCheck");
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->status, "OK");
  EXPECT_EQ(net->last_update, "2026-07-13T21:41:20 UTC");
  EXPECT_TRUE(net->failed_items.empty());
  const HealthagentCheck* mem = s.find("gpu", "GpuMemoryCheck");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->description, "Memory allocation test passed");
  EXPECT_GT(mem->where.line, 1);
  EXPECT_EQ(s.find("gpu", "GpuHealthCheck")->error_count.value_or(-1), 0);
}

// Errors as the agent's code writes them: a port down (GHR IBPortDown), slurmd failed (its own
// per-service status), unkillable processes.
TEST(HealthagentStatus, ErrorsWithGhrAndFailedServices) {
  const HealthagentStatus s = parse_healthagent_status(
      read_fixture("healthagent/health-s-errors-constructed.json"), "h.json");
  const HealthagentCheck* net = s.find("network", "NetworkInterfaceCheck");
  ASSERT_NE(net, nullptr);
  EXPECT_TRUE(net->error());
  EXPECT_EQ(net->ghr_category, "Resource.Hpc.Unhealthy.IBPortDown");
  const HealthagentCheck* sysd = s.find("systemd", "SystemdServiceCheck");
  ASSERT_NE(sysd, nullptr);
  ASSERT_EQ(sysd->failed_items.size(), 1u);
  EXPECT_EQ(sysd->failed_items[0], "slurmd.service");
  EXPECT_EQ(sysd->error_count.value_or(0), 1);
  const HealthagentCheck* proc = s.find("proc", "ProcessStateCheck");
  ASSERT_NE(proc, nullptr);
  EXPECT_EQ(proc->recommendations, "Node Reboot required");
}

// Not the shape: exit 2 with the file and line, never a crash.
TEST(HealthagentStatus, GarbageIsAnInputErrorWithALine) {
  const char* bad[] = {
      "",
      "not json",
      "[1, 2]",
      "{\"gpu\": 3}",
      "{\"gpu\": {\"GpuCountCheck\": []}}",
      "{\"gpu\": {\n  \"GpuCountCheck\": {\"status\": \"Fine\"}}}",
      "{}",
      "Connection to Healthagent could not be established, is Healthagent running?",
  };
  for (const char* b : bad) {
    try {
      (void)parse_healthagent_status(b, "h.json");
      ADD_FAILURE() << "accepted: " << b;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "h.json") << b;
    }
  }
  try {
    (void)parse_healthagent_status("{\"gpu\": {\n  \"GpuCountCheck\": {\"status\": \"Fine\"}}}",
                                   "h.json");
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_FALSE(looks_like_healthagent_status("{\"resources\": []}"));
}
