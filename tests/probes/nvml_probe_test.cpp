#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

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
  // NVLink, fabric and clock facts through nvmlDeviceGetNvLinkState / ...ErrorCounter /
  // ...GetGpuFabricInfo / ...GetCurrentClocksEventReasons.
  EXPECT_EQ(g->gpus[0].nvlink_links.value(), 18);
  EXPECT_EQ(g->gpus[0].nvlink_active.value(), 18);
  EXPECT_EQ(g->gpus[0].nvlink_recovery_errors.value(), 0u);
  EXPECT_EQ(g->gpus[0].fabric_state.value(), "completed");
  EXPECT_EQ(g->gpus[0].fabric_status.value(), 0);
  EXPECT_EQ(g->gpus[0].clocks_event_reasons.value(), 1u);
}

// A recorded GPU with two links down, recovery errors, fabric registration in progress and a
// thermal slowdown; and one whose NVML answers none of it (older drivers, no NVLink).
TEST(NvmlProbe, NvlinkFabricAndClockFacts) {
  std::string dir = temp_dir("fake-nvml");
  std::string path = dir + "/nvml.json";
  std::ofstream(path) << R"({"driver_loaded": true, "driver_version": "550.90.07", "gpus": [
    {"index": 0, "name": "NVIDIA H100 80GB HBM3", "nvlink_links": 18, "nvlink_active": 16,
     "nvlink_recovery_errors": 3, "nvlink_crc_errors": 7, "fabric_state": "in-progress",
     "fabric_status": 0, "clocks_event_reasons": 64},
    {"index": 1, "name": "NVIDIA H100 80GB HBM3"}]})";
  ::setenv("TRAINREADY_FAKE_NVML", path.c_str(), 1);
  ::unsetenv("FAKE_NVML_INIT_FAILS");
  Fact<GpuFacts> g = read_nvml(TR_FAKE_NVML);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->gpus.size(), 2u);
  EXPECT_EQ(g->gpus[0].nvlink_links.value(), 18);
  EXPECT_EQ(g->gpus[0].nvlink_active.value(), 16);
  EXPECT_EQ(g->gpus[0].nvlink_recovery_errors.value(), 3u);
  EXPECT_EQ(g->gpus[0].nvlink_crc_errors.value(), 7u);
  EXPECT_EQ(g->gpus[0].fabric_state.value(), "in-progress");
  EXPECT_EQ(g->gpus[0].clocks_event_reasons.value(), 0x40u);
  EXPECT_FALSE(g->gpus[1].nvlink_links.has_value());
  EXPECT_FALSE(g->gpus[1].fabric_state.has_value());
  EXPECT_FALSE(g->gpus[1].clocks_event_reasons.has_value());
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

// GB200/GB300: the cluster UUID and clique id of the multi-node NVLink fabric come through
// nvmlDeviceGetGpuFabricInfo with the state (mnnvl-fabric-not-ready reads them).
TEST(NvmlProbe, FabricClusterUuidAndClique) {
  std::string dir = temp_dir("fake-nvml-fabric");
  std::string path = dir + "/nvml.json";
  std::ofstream(path) << R"({"driver_loaded": true, "driver_version": "570.86.15", "gpus": [
    {"index": 0, "name": "NVIDIA GB200", "fabric_state": "completed", "fabric_status": 0,
     "fabric_cluster_uuid": "5a1c0b2e9d8f4c3ab1e2d3c4b5a69788", "fabric_clique_id": 32766},
    {"index": 1, "name": "NVIDIA GB200", "fabric_state": "completed", "fabric_status": 0}]})";
  ::setenv("TRAINREADY_FAKE_NVML", path.c_str(), 1);
  ::unsetenv("FAKE_NVML_INIT_FAILS");
  Fact<GpuFacts> g = read_nvml(TR_FAKE_NVML);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->gpus.size(), 2u);
  EXPECT_EQ(g->gpus[0].fabric_cluster_uuid.value(), "5a1c0b2e9d8f4c3ab1e2d3c4b5a69788");
  EXPECT_EQ(g->gpus[0].fabric_clique_id.value(), 32766u);
  EXPECT_EQ(g->gpus[1].fabric_cluster_uuid.value(), std::string(32, '0'));
}
