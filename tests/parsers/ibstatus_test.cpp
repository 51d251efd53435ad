#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/ib_captures.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbstatusParser, AzureAnAndIbDevices) {
  const std::string f = "ib-status/azhpc-diag-azure-ibstatus-mlx5_an0-mlx5_ib0-hdr200.txt";
  IbFacts ib = parse_ibstatus(read_fixture(f), f);
  ASSERT_EQ(ib.devices.size(), 2u);
  EXPECT_EQ(ib.devices[0].name, "mlx5_an0");
  EXPECT_EQ(ib.devices[0].ports[0].link_layer.value, "Ethernet");
  EXPECT_DOUBLE_EQ(ib.devices[0].ports[0].rate_gbps.value, 40);
  const IbPort& p = ib.devices[1].ports[0];
  EXPECT_EQ(p.state.value, "ACTIVE");
  EXPECT_EQ(p.phys_state.value, "LinkUp");
  EXPECT_DOUBLE_EQ(p.rate_gbps.value, 200);
  EXPECT_EQ(p.rate_text, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(p.lid.value, "0x96");
}

TEST(IbstatusParser, TruncatedAndGarbage) {
  const std::string f = "ib-status/azhpc-diag-azure-ibstatus-mlx5_an0-mlx5_ib0-hdr200.txt";
  std::string text = read_fixture(f);
  IbFacts ib = parse_ibstatus(text.substr(0, text.size() / 2), f);
  EXPECT_EQ(ib.devices.size(), 1u);
  EXPECT_THROW(parse_ibstatus("CA 'mlx5_0'\n", "x"), InputError);
  EXPECT_THROW(parse_ibstatus("\x01\x02garbage", "x"), InputError);
}
