#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/lspci.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

namespace {
int count(const PciFacts& p, PciKind k) {
  int n = 0;
  for (const auto& d : p.devices) n += d.kind == k;
  return n;
}
}  // namespace

TEST(LspciParser, AzureNdv4Vvv) {
  const std::string f = "pci-topo/superbench-azure-ndv4-a100-lspci-vvv.txt";
  PciFacts p = parse_lspci(read_fixture(f), f);
  EXPECT_EQ(count(p, PciKind::kNvidiaGpu), 8);
  EXPECT_EQ(count(p, PciKind::kNvSwitch), 6);
  EXPECT_EQ(count(p, PciKind::kMellanox), 9);
  EXPECT_EQ(count(p, PciKind::kNvme), 8);
  const PciDevice* hca = nullptr;
  for (const auto& d : p.devices) {
    if (d.address == "0101:00:00.0") hca = &d;
  }
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->class_code >> 8, 0x0207u);
  EXPECT_EQ(hca->model, "ConnectX-6");
  EXPECT_TRUE(hca->virtual_function);
  EXPECT_EQ(hca->driver, "mlx5_core");
  EXPECT_EQ(p.devices[0].link_speed, "16GT/s");
  EXPECT_EQ(p.devices[0].link_width, 16);
  EXPECT_EQ(p.devices[0].numa_node, 1);
  EXPECT_EQ(p.devices[0].driver, "nvidia");
}

TEST(LspciParser, PlainExcerptWithEllipsisAndPpPaths) {
  PciFacts a =
      parse_lspci(read_fixture("pci-topo/azureml-ndv4-lspci-grep-mellanox-excerpt.txt"), "a");
  EXPECT_EQ(count(a, PciKind::kMellanox), 3);
  PciFacts b =
      parse_lspci(read_fixture("pci-topo/rocm-sad-8x-cx7-mt2910-lspci-d-15b3-1021-PP.txt"), "b");
  ASSERT_EQ(count(b, PciKind::kMellanox), 8);
  EXPECT_EQ(b.devices[0].address, "09:00.0");
  EXPECT_EQ(b.devices[0].model, "ConnectX-7");
  EXPECT_EQ(b.devices[0].class_code >> 16, 0x02u);
  PciFacts c = parse_lspci(read_fixture("pci-topo/stelline-cx7-mt2910-lspci-vvv-s.txt"), "c");
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].link_speed, "32GT/s");
  EXPECT_EQ(c.devices[0].max_link_speed, "32GT/s");
}

TEST(LspciParser, NumericIdsTruncatedAndGarbage) {
  PciFacts p = parse_lspci(
      "0001:00:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] "
      "(rev a1)\n",
      "x");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].device, 0x2330u);
  EXPECT_EQ(p.devices[0].model, "H100 SXM5 80GB");
  std::string text = read_fixture("pci-topo/superbench-azure-ndv4-a100-lspci-vvv.txt");
  EXPECT_NO_THROW(parse_lspci(text.substr(0, text.size() / 2 + 17), "x"));
  EXPECT_THROW(parse_lspci("-+-[0000:00]-+-00.0  Advanced Micro Devices\n", "x"), InputError);
  EXPECT_THROW(parse_lspci("\xff\xfe\x00garbage", "x"), InputError);
}

// LnkCap / LnkSta lines pasted without their device line (janhq/jan#183, geerlingguy#480): a
// link of an unnamed device, judged for what it shows.
TEST(LspciParser, LinkLinesWithoutTheirDeviceLine) {
  PciFacts p = parse_lspci(
      "    LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1\n"
      "    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)\n",
      "x");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_TRUE(p.devices[0].address.empty());
  EXPECT_EQ(p.devices[0].max_link_speed, "16GT/s");
  EXPECT_EQ(p.devices[0].link_speed, "2.5GT/s");
  EXPECT_EQ(p.devices[0].link_width, 16);
  EXPECT_TRUE(p.devices[0].link_marked_downgraded);
  EXPECT_NE(p.excerpt.find("without their device line"), std::string::npos);
  // Two LnkSta lines of an excerpt are two devices' links.
  PciFacts two =
      parse_lspci("LnkSta: Speed 8GT/s, Width x4\n\t\tLnkSta: Speed 5GT/s, Width x1\n", "x");
  EXPECT_EQ(two.devices.size(), 2u);
  // A whole capture is no excerpt, and keeps only the kinds it kept before.
  PciFacts whole =
      parse_lspci(read_fixture("pci-topo/superbench-azure-ndv4-a100-lspci-vvv.txt"), "x");
  EXPECT_TRUE(whole.excerpt.empty());
  for (const auto& d : whole.devices) EXPECT_FALSE(d.address.empty());
}
