#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/catalog.h"
#include "core/root.h"
#include "engine/engine.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;
namespace fs = std::filesystem;

TEST(NodeProbe, HealthyExampleFactsAreAllPresent) {
  FsRoot root(example("nd-h100-healthy"));
  NodeFacts n = probe_node(root, {});
  EXPECT_EQ(n.label, "ndh100-0001");
  ASSERT_TRUE(n.dmi.ok());
  EXPECT_TRUE(n.dmi->azure);
  ASSERT_TRUE(n.imds.ok());
  EXPECT_EQ(n.imds->vm_size, "Standard_ND96isr_H100_v5");
  ASSERT_TRUE(n.pci.ok());
  int gpus = 0;
  int hcas = 0;
  int nvme = 0;
  for (const auto& d : n.pci->devices) {
    gpus += d.kind == PciKind::kNvidiaGpu;
    hcas += d.kind == PciKind::kMellanox;
    nvme += d.kind == PciKind::kNvme;
  }
  EXPECT_EQ(gpus, 8);
  EXPECT_EQ(hcas, 9);
  EXPECT_EQ(nvme, 8);
  ASSERT_TRUE(n.modules.ok());
  EXPECT_TRUE(n.modules->loaded("nvidia_peermem"));
  EXPECT_EQ(n.modules->modules.at("nvidia").version, "535.161.08");
  EXPECT_EQ(n.ofed_version.value, "MLNX_OFED_LINUX-23.10-1.1.9.0");
  ASSERT_TRUE(n.gpus.ok());
  EXPECT_EQ(n.gpus->gpus.size(), 8u);
  ASSERT_TRUE(n.nccl.ok());
  EXPECT_EQ(n.nccl->topo_file, "/opt/microsoft/ndv5-topo.xml");
  EXPECT_TRUE(n.nccl->topo_file_exists.value);
  EXPECT_EQ(n.nccl_version.value, "2.21.5");
  ASSERT_TRUE(n.scratch.ok());
  EXPECT_EQ(n.scratch->namespaces.size(), 8u);
  EXPECT_EQ(n.scratch->arrays.at(0).mountpoint, "/mnt/resource_nvme");
  EXPECT_EQ(n.scratch->namespaces[0].md_array, "md0");
}

// "A snapshot with anything broken in it never crashes or hangs the doctor: those facts read
// unreadable and the rest of the report stands."
TEST(NodeProbe, BrokenSnapshotDegradesFactByFact) {
  std::string d = temp_dir("broken") + "/snap";
  fs::copy(example("nd-h100-healthy"), d,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto junk = [&](const std::string& rel, const std::string& data) {
    std::ofstream(d + rel, std::ios::binary) << data;
  };
  junk("/sys/class/infiniband/mlx5_ib3/ports/1/state", std::string("\x00\xff\xfe\x01garbage", 11));
  junk("/sys/class/infiniband/mlx5_ib4/ports/1/rate", "fast as lightning\n");
  junk("/trainready/imds.json", "{\"compute\": {\"vmSize\": ");  // truncated
  junk("/trainready/nvml.json", std::string(5000, '\x7f'));
  fs::remove(d + "/proc/modules");
  fs::remove_all(d + "/sys/class/infiniband/mlx5_ib5/ports/1");
  ASSERT_EQ(::truncate((d + "/etc/nccl.conf").c_str(), 1LL << 30),
            0);  // a 1 GiB file where a small one belongs

  FsRoot root(d);
  NodeFacts n = probe_node(root, {});
  EXPECT_EQ(n.imds.status, FactStatus::kUnreadable);
  EXPECT_EQ(n.gpus.status, FactStatus::kUnreadable);
  EXPECT_EQ(n.modules.status, FactStatus::kMissing);
  ASSERT_TRUE(n.ib.ok());
  EXPECT_EQ(n.ib->devices[4].ports[0].state.status, FactStatus::kUnreadable);  // mlx5_ib3
  EXPECT_EQ(n.ib->devices[5].ports[0].rate_gbps.status, FactStatus::kUnreadable);
  EXPECT_TRUE(n.ib->devices[6].ports.empty());
  ASSERT_TRUE(n.nccl.ok());
  EXPECT_NE(n.nccl->conf_error.find("larger than"), std::string::npos);
  EXPECT_TRUE(n.pci.ok());
  EXPECT_TRUE(n.scratch.ok());

  std::vector<NodeFacts> nodes{n};
  Evaluation ev = evaluate_rules(nodes, Catalog::builtin());
  bool port_note = false;
  for (const auto& s : ev.notes) port_note |= s.rule_id == "ib-port-not-active";
  EXPECT_TRUE(port_note);
  EXPECT_FALSE(ev.skipped.empty());  // size unknown now: size-based rules say so
}

// The NVIDIA module's flavor decides whether GPUDirect RDMA can take the DMA-BUF path.
TEST(NodeProbe, NvidiaModuleFlavorFromProcDriverVersion) {
  std::string d = temp_dir("flavor") + "/snap";
  fs::copy(example("nd-h100-healthy"), d,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  {
    FsRoot root(d);
    NodeFacts n = probe_node(root, {});
    ASSERT_TRUE(n.modules.ok());
    ASSERT_TRUE(n.modules->nvidia_flavor.ok());
    EXPECT_EQ(n.modules->nvidia_flavor.value, "proprietary");
  }
  std::ofstream(d + "/proc/driver/nvidia/version")
      << "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n";
  FsRoot root(d);
  NodeFacts n = probe_node(root, {});
  ASSERT_TRUE(n.modules->nvidia_flavor.ok());
  EXPECT_EQ(n.modules->nvidia_flavor.value, "open");
}
