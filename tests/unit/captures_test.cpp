#include <gtest/gtest.h>

#include "cli/captures.h"
#include "core/input_error.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(Captures, DetectsEachRealFormat) {
  EXPECT_EQ(detect_capture_kind(read_fixture("ib-status/ibstat-mlx4-initializing-40g.txt")),
            CaptureKind::kIbstat);
  EXPECT_EQ(detect_capture_kind(
                read_fixture("ib-status/azhpc-diag-azure-ibstatus-mlx5_an0-mlx5_ib0-hdr200.txt")),
            CaptureKind::kIbstatus);
  EXPECT_EQ(detect_capture_kind(
                read_fixture("ib-status/ibv_devinfo-v-anl-chrysalis-cx6-hdr-plus-cx5-roce.txt")),
            CaptureKind::kIbvDevinfo);
  EXPECT_EQ(detect_capture_kind(read_fixture("pci-topo/superbench-azure-ndv4-a100-lspci-vvv.txt")),
            CaptureKind::kLspci);
  EXPECT_EQ(
      detect_capture_kind(read_fixture("pci-topo/rocm-sad-8x-cx7-mt2910-lspci-d-15b3-1021-PP.txt")),
      CaptureKind::kLspci);
  EXPECT_EQ(detect_capture_kind(read_fixture("ofed/ucxpy-docs-dgx-ofed_info-s-mlnx-5.4.txt")),
            CaptureKind::kOfedInfo);
  EXPECT_EQ(detect_capture_kind(
                read_fixture("pci-topo/superbench-azure-ndv4-a100-nodeA-nvidia-smi-topo-m.txt")),
            CaptureKind::kNvidiaSmiTopo);
  EXPECT_EQ(detect_capture_kind(read_fixture("imds/walinuxagent-imds-instance-valid.json")),
            CaptureKind::kImds);
  EXPECT_EQ(detect_capture_kind("NCCL_IB_DISABLE=1\n"), CaptureKind::kEnv);
}

TEST(Captures, CaptureOnlyNodeGetsIbFactsFromIbstat) {
  NodeFacts n = empty_capture_node("c");
  apply_capture(n, fixture("ib-status/ibstat-cx4lx-eth25-cx6-hdr200-two-ports-down-disabled.txt"));
  ASSERT_TRUE(n.ib.ok());
  EXPECT_EQ(n.ib->devices.size(), 4u);
  EXPECT_FALSE(n.pci.ok());
  apply_capture(n, "imds=" + fixture("imds/walinuxagent-imds-compute-vmss-trustedlaunch.json"));
  EXPECT_EQ(n.imds->vmss_name, "crpteste9vflji9");
  EXPECT_THROW(apply_capture(n, "/no/such/file"), InputError);
}
