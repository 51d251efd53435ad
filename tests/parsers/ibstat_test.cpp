#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/ib_captures.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbstatParser, FourCasWithDownDisabledPorts) {
  const std::string f = "ib-status/ibstat-cx4lx-eth25-cx6-hdr200-two-ports-down-disabled.txt";
  IbFacts ib = parse_ibstat(read_fixture(f), f);
  ASSERT_EQ(ib.devices.size(), 4u);
  EXPECT_EQ(ib.devices[0].name, "mlx5_0");
  EXPECT_EQ(ib.devices[0].model, "ConnectX-4 Lx");
  EXPECT_EQ(ib.devices[2].model, "ConnectX-6");
  const IbPort& eth = ib.devices[0].ports.at(0);
  EXPECT_EQ(eth.state.value, "ACTIVE");
  EXPECT_EQ(eth.link_layer.value, "Ethernet");
  EXPECT_DOUBLE_EQ(eth.rate_gbps.value, 25);
  const IbPort& hdr = ib.devices[2].ports.at(0);
  EXPECT_EQ(hdr.link_layer.value, "InfiniBand");
  EXPECT_DOUBLE_EQ(hdr.rate_gbps.value, 200);
  EXPECT_EQ(hdr.lid.value, "37");
  const IbPort& down = ib.devices[3].ports.at(0);
  EXPECT_EQ(down.state.value, "DOWN");
  EXPECT_EQ(down.phys_state.value, "Disabled");
  EXPECT_EQ(down.state.where.source, f);
  EXPECT_GT(down.state.where.line, 50);
  EXPECT_FALSE(down.pkey0.ok());  // ibstat does not print pkeys: missing, not guessed
}

TEST(IbstatParser, InitializingPortAndTrailingJunkLines) {
  const std::string f = "ib-status/ibstat-mlx4-initializing-40g.txt";
  IbFacts ib = parse_ibstat(read_fixture(f), f);
  ASSERT_EQ(ib.devices.size(), 1u);
  EXPECT_EQ(ib.devices[0].model, "ConnectX-3");
  EXPECT_EQ(ib.devices[0].ports[0].state.value, "INIT");
  EXPECT_EQ(ib.devices[0].ports[0].phys_state.value, "LinkUp");
  EXPECT_DOUBLE_EQ(ib.devices[0].ports[0].rate_gbps.value, 40);
}

TEST(IbstatParser, MixedRatesTabIndented) {
  const std::string f = "ib-status/ibstat-nersc-cgpu-mlx4-mlx5-mixed-rates.txt";
  IbFacts ib = parse_ibstat(read_fixture(f), f);
  ASSERT_EQ(ib.devices.size(), 9u);
  int ib_ports = 0;
  int at56 = 0;
  for (const auto& d : ib.devices) {
    for (const auto& p : d.ports) {
      ib_ports += p.link_layer.value == "InfiniBand";
      at56 += p.rate_gbps.value == 56;
    }
  }
  EXPECT_EQ(ib_ports, 7);
  EXPECT_EQ(at56, 3);
}

TEST(IbstatParser, TruncatedInputKeepsWhatItHas) {
  const std::string f = "ib-status/ibstat-cx4lx-eth25-cx6-hdr200-two-ports-down-disabled.txt";
  std::string text = read_fixture(f);
  for (std::size_t cut : {std::size_t{10}, text.size() / 3, text.size() - 40}) {
    IbFacts ib = parse_ibstat(text.substr(0, cut), f);
    EXPECT_GE(ib.devices.size(), 1u);
  }
  IbFacts ib = parse_ibstat(text.substr(0, text.find("Rate: 25")), f);
  EXPECT_FALSE(ib.devices[0].ports[0].rate_gbps.ok());
  EXPECT_EQ(ib.devices[0].ports[0].rate_gbps.status, FactStatus::kMissing);
}

TEST(IbstatParser, GarbageIsAnInputErrorAndBadValuesAreUnreadable) {
  EXPECT_THROW(parse_ibstat("hello\nworld\n", "x.txt"), InputError);
  EXPECT_THROW(parse_ibstat(std::string("\0\xff\xfe", 3), "x.txt"), InputError);
  EXPECT_TRUE(parse_ibstat("", "x.txt").devices.empty());
  IbFacts ib = parse_ibstat("CA 'mlx5_0'\n Port 1:\n  State: Weird\n  Rate: fast\n", "x.txt");
  EXPECT_EQ(ib.devices[0].ports[0].state.status, FactStatus::kUnreadable);
  EXPECT_EQ(ib.devices[0].ports[0].rate_gbps.status, FactStatus::kUnreadable);
}

// A paste that starts below the CA line (or elides CAs with "..."): the ports shown are read and
// IbFacts::excerpt says the rest was not captured.
TEST(IbstatParser, ExcerptsAreReadAndSaySo) {
  IbFacts cut = parse_ibstat(
      "\t\tState: Down\n\t\tPhysical state: Polling\n\t\tRate: 10\n"
      "\t\tLink layer: InfiniBand\n",
      "x");
  ASSERT_EQ(cut.devices.size(), 1u);
  EXPECT_EQ(cut.devices[0].name, kIbNameNotCaptured);
  ASSERT_EQ(cut.devices[0].ports.size(), 1u);
  EXPECT_EQ(cut.devices[0].ports[0].state.value, "DOWN");
  EXPECT_EQ(cut.devices[0].ports[0].link_layer.value, "InfiniBand");
  EXPECT_NE(cut.excerpt.find("CA '<name>'"), std::string::npos);
  IbFacts elided = parse_ibstat("...\nCA 'mlx5_7'\n\tPort 1:\n\t\tState: Active\n", "x");
  EXPECT_NE(elided.excerpt.find("line 1"), std::string::npos);
  IbFacts no_ports = parse_ibstat("CA 'mlx5_bond_2'\n\tCA type: MT41692\n", "x");
  EXPECT_NE(no_ports.excerpt.find("cut before its ports"), std::string::npos);
  // A whole capture is no excerpt.
  EXPECT_TRUE(parse_ibstat(read_fixture("ib-status/ibstat-mlx4-initializing-40g.txt"), "x")
                  .excerpt.empty());
}
