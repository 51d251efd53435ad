#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/ib_captures.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbvDevinfoParser, Cx6HdrPlusTwoCx5Roce) {
  const std::string f = "ib-status/ibv_devinfo-v-anl-chrysalis-cx6-hdr-plus-cx5-roce.txt";
  IbFacts ib = parse_ibv_devinfo(read_fixture(f), f);
  ASSERT_EQ(ib.devices.size(), 3u);
  EXPECT_EQ(ib.devices[0].model, "ConnectX-6");
  EXPECT_EQ(ib.devices[0].hca_type, "MT4123");
  EXPECT_EQ(ib.devices[0].fw_ver, "20.29.2002");
  const IbPort& p = ib.devices[0].ports.at(0);
  EXPECT_EQ(p.state.value, "ACTIVE");
  EXPECT_EQ(p.phys_state.value, "LinkUp");
  EXPECT_EQ(p.link_layer.value, "InfiniBand");
  EXPECT_DOUBLE_EQ(p.rate_gbps.value, 200);  // 4X x 50 Gb/s per lane (HDR)
  EXPECT_EQ(p.lid.value, "62");
  EXPECT_EQ(ib.devices[1].model, "ConnectX-5");
  EXPECT_EQ(ib.devices[1].ports[0].link_layer.value, "Ethernet");
}

TEST(IbvDevinfoParser, TruncatedAndGarbage) {
  const std::string f = "ib-status/ibv_devinfo-v-anl-chrysalis-cx6-hdr-plus-cx5-roce.txt";
  std::string text = read_fixture(f);
  IbFacts ib = parse_ibv_devinfo(text.substr(0, text.find("active_speed")), f);
  ASSERT_EQ(ib.devices.size(), 1u);
  EXPECT_FALSE(ib.devices[0].ports[0].rate_gbps.ok());
  EXPECT_THROW(parse_ibv_devinfo("no devices", "x"), InputError);
}

// The middle of an `ibv_devinfo -v` (DeepEP#38): the ports above the first hca_id belong to a
// device whose name was not captured.
TEST(IbvDevinfoParser, MiddleOfTheOutputIsAnExcerpt) {
  IbFacts ib = parse_ibv_devinfo(
      "        vendor_part_id:                 4119\n"
      "                port:   1\n"
      "                        state:                  PORT_ACTIVE (4)\n"
      "                        link_layer:             Ethernet\n"
      "\n"
      "hca_id: mlx5_7\n"
      "        phys_port_cnt:                  1\n",
      "x");
  ASSERT_EQ(ib.devices.size(), 2u);
  EXPECT_EQ(ib.devices[0].name, kIbNameNotCaptured);
  EXPECT_EQ(ib.devices[0].model, "ConnectX-5");
  ASSERT_EQ(ib.devices[0].ports.size(), 1u);
  EXPECT_EQ(ib.devices[0].ports[0].link_layer.value, "Ethernet");
  EXPECT_EQ(ib.devices[1].name, "mlx5_7");
  EXPECT_NE(ib.excerpt.find("hca_id"), std::string::npos);
  EXPECT_THROW(parse_ibv_devinfo("hello: world\n", "x"), InputError);
}
