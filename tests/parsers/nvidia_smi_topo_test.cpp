#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/nvidia_smi_topo.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(NvidiaSmiTopoParser, AzureNdv4WithAnsiHeaderAndTruncatedNicNames) {
  const std::string f = "pci-topo/superbench-azure-ndv4-a100-nodeA-nvidia-smi-topo-m.txt";
  TopoMatrix m = parse_nvidia_smi_topo(read_fixture(f), f);
  EXPECT_EQ(m.gpu_count(), 8);
  EXPECT_EQ(m.nic_count(), 9);
  ASSERT_EQ(m.rows[0].links.size(), 17u);
  EXPECT_EQ(m.rows[0].links[1], "NV12");
  EXPECT_EQ(m.rows[0].links[9], "NODE");
  EXPECT_EQ(m.rows[0].cpu_affinity, "24-47");
  EXPECT_EQ(m.rows[0].numa_affinity, "1");
  EXPECT_EQ(m.columns.size(), 17u);
}

TEST(NvidiaSmiTopoParser, UnnamedNicColumnsAndRows) {
  const std::string f = "pci-topo/superbench-azure-ndv4-a100-nodeB-nvidia-smi-topo-m.txt";
  TopoMatrix m = parse_nvidia_smi_topo(read_fixture(f), f);
  EXPECT_EQ(m.gpu_count(), 8);
  EXPECT_EQ(m.rows.size(), m.columns.size());
  EXPECT_EQ(m.rows[0].cpu_affinity, "24-47");
}

TEST(NvidiaSmiTopoParser, H100Nv18NoNicsAndOldFormat) {
  TopoMatrix a = parse_nvidia_smi_topo(
      read_fixture("pci-topo/mlengineering-8xh100-nv18-nvidia-smi-topo-m-no-nics.txt"), "a");
  EXPECT_EQ(a.gpu_count(), 8);
  EXPECT_EQ(a.nic_count(), 0);
  EXPECT_EQ(a.rows[7].links[0], "NV18");
  EXPECT_EQ(a.rows[4].numa_affinity, "1");
  TopoMatrix b = parse_nvidia_smi_topo(
      read_fixture("pci-topo/superbench-v100-2gpu-2nic-nvidia-smi-topo-m.txt"), "b");
  EXPECT_EQ(b.gpu_count(), 2);
  EXPECT_EQ(b.nic_count(), 2);
  EXPECT_EQ(b.rows[0].links[1], "PIX");
  EXPECT_EQ(b.rows[0].cpu_affinity, "0-11,24-35");
}

TEST(NvidiaSmiTopoParser, TruncatedAndGarbage) {
  std::string t = read_fixture("pci-topo/superbench-azure-ndv4-a100-nodeA-nvidia-smi-topo-m.txt");
  TopoMatrix m = parse_nvidia_smi_topo(t.substr(0, t.size() / 3), "x");
  EXPECT_GE(m.gpu_count(), 1);
  EXPECT_THROW(parse_nvidia_smi_topo("no matrix here", "x"), InputError);
}

// Excerpts: rows cut below the header keep every link of their row (the CPU affinity is not
// read as a link), and rows pasted without the header are still a matrix.
TEST(NvidiaSmiTopoParser, ExcerptsOfTheMatrix) {
  TopoMatrix cut = parse_nvidia_smi_topo(
      "        GPU0    GPU1    GPU2    NIC0    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      NV18    NV18    PIX     0-23    0\n",
      "x");
  ASSERT_EQ(cut.rows.size(), 1u);
  EXPECT_EQ(cut.rows[0].links.size(), 4u);
  EXPECT_EQ(cut.rows[0].cpu_affinity, "0-23");
  TopoMatrix bare = parse_nvidia_smi_topo(
      "GPU3    NV18    NV18     X      NV18    SYS     0-23    0\n"
      "GPU4    NV18    NV18    NV18     X      SYS     24-47   1\n",
      "x");
  ASSERT_EQ(bare.rows.size(), 2u);
  EXPECT_EQ(bare.gpu_count(), 2);
  EXPECT_EQ(bare.rows[0].links.size(), 5u);
  EXPECT_EQ(bare.rows[1].cpu_affinity, "24-47");
}
