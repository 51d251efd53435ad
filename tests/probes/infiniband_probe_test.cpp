#include <gtest/gtest.h>

#include <filesystem>

#include "core/root.h"
#include "probes/probes.h"
#include "queries/node_queries.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(InfinibandProbe, ReadsEveryDeviceAndSelectsByLinkLayer) {
  FsRoot root(example("nd-h100-healthy"));
  Fact<IbFacts> ib = probe_infiniband(root);
  ASSERT_TRUE(ib.ok());
  EXPECT_EQ(ib->devices.size(), 9u);
  EXPECT_EQ(infiniband_ports(*ib).size(), 8u);  // mlx5_an0 is Ethernet, excluded by link_layer
  const IbDevice& d = ib->devices[1];
  EXPECT_EQ(d.name, "mlx5_ib0");
  EXPECT_EQ(d.pci_address, "0101:00:00.0");
  const IbPort& p = d.ports.at(0);
  EXPECT_EQ(p.state.value, "ACTIVE");
  EXPECT_EQ(p.phys_state.value, "LinkUp");
  EXPECT_DOUBLE_EQ(p.rate_gbps.value, 400);
  EXPECT_EQ(p.rate_text, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(p.link_width, 4);
  EXPECT_EQ(p.pkey0.value, "0x8001");
  EXPECT_NE(p.state.where.source.find("mlx5_ib0/ports/1/state"), std::string::npos);
}

TEST(InfinibandProbe, NoClassDirectoryIsAFactWhenSysExists) {
  std::string d = temp_dir("ib-none");
  std::filesystem::create_directories(d + "/sys/class/net");
  Fact<IbFacts> ib = probe_infiniband(FsRoot(d));
  ASSERT_TRUE(ib.ok());
  EXPECT_TRUE(ib->devices.empty());
  EXPECT_EQ(probe_infiniband(FsRoot(temp_dir("ib-nosys"))).status, FactStatus::kMissing);
}
