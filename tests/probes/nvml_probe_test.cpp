#include <gtest/gtest.h>
#include <stdlib.h>

#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// The real dlopen/dlsym path, against a fake libnvidia-ml.so.1 built by the test suite.
TEST(NvmlProbe, LoadsTheLibraryAndReadsEveryGpu) {
  ::setenv("TRAINREADY_FAKE_NVML", example("nd-h100-healthy/trainready/nvml.json").c_str(), 1);
  ::unsetenv("FAKE_NVML_INIT_FAILS");
  Fact<GpuFacts> g = read_nvml(TR_FAKE_NVML);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->driver_loaded);
  EXPECT_EQ(g->driver_version, "535.161.08");
  ASSERT_EQ(g->gpus.size(), 8u);
  EXPECT_EQ(g->gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g->gpus[0].memory_total_bytes, 85520809984ULL);
  EXPECT_EQ(g->gpus[7].pci_bus_id, "00000008:00:00.0");
  EXPECT_FALSE(g->gpus[0].remap_pending.value());
  EXPECT_EQ(g->gpus[0].ecc_uncorrected_volatile.value(), 0u);
}

TEST(NvmlProbe, DriverNotLoadedAndNoLibraryAreFactsNotErrors) {
  ::setenv("FAKE_NVML_INIT_FAILS", "1", 1);
  Fact<GpuFacts> g = read_nvml(TR_FAKE_NVML);
  ::unsetenv("FAKE_NVML_INIT_FAILS");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->driver_loaded);
  EXPECT_NE(g->no_driver_reason.find("nvmlInit_v2"), std::string::npos);
  Fact<GpuFacts> none = read_nvml("libnvidia-ml-does-not-exist.so.1");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->driver_loaded);
  EXPECT_NE(none->no_driver_reason.find("no NVIDIA driver"), std::string::npos);
}
