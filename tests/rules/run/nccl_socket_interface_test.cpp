#include <gtest/gtest.h>

#include "parsers/nccl_log.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-socket-interface";

// Two hosts whose NCCL (2.25 format) lists a Cloudflare WARP tunnel after the LAN interface.
const char* kWarp =
    "node1:11326:11326 [0] NCCL INFO Bootstrap: Using eno1:10.201.24.89<0>\n"
    "node1:11326:11340 [0] NCCL INFO NET/IB : No device found.\n"
    "node1:11326:11340 [0] NCCL INFO NET/Socket : Using [0]eno1:10.201.24.89<0> "
    "[1]CloudflareWARP:172.16.0.2<0>\n"
    "node1:11326:11340 [0] NCCL INFO Using network Socket\n"
    "node2:2200:2200 [0] NCCL INFO Bootstrap: Using eno1:10.201.24.90<0>\n"
    "node2:2200:2210 [0] NCCL INFO NET/Socket : Using [0]eno1:10.201.24.90<0>\n"
    "node2:2200:2210 [0] NCCL INFO Using network Socket\n";

TEST(NcclSocketInterface, NamesTheInterfaceToSet) {
  RuleOutcome o = log_rule(kId, log_text(kWarp));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("CloudflareWARP"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=eno1"), std::string::npos)
      << o.findings[0].fix;
}

TEST(NcclSocketInterface, LinkLocalBootstrapAcrossHosts) {
  RuleOutcome o = log_rule(
      kId, log_text("a:1:1 [0] NCCL INFO Bootstrap : Using enp1:fe80::52b1:b1f3:51c0:ecca%enp1<0>\n"
                    "b:2:2 [0] NCCL INFO Bootstrap : Using enp1:fe80::1:2:3:4%enp1<0>\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("link-local"), std::string::npos);
}

// A veth holding a global IPv6 address is the container's routable interface, not a bridge
// (NVIDIA/nccl#529: ip6tnl0's link-local address first, veth0 with 2a02:...): the fix names it.
TEST(NcclSocketInterface, AVethWithAGlobalAddressIsTheRoutableOne) {
  RuleOutcome o = log_rule(
      kId, log_text("a:97:221 [0] NCCL INFO NET/Socket : Using [0]ip6tnl0:fe80::e866:19ff:fe1e:"
                    "a688%ip6tnl0<0> [1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>\n"
                    "b:98:220 [1] NCCL INFO NET/Socket : Using [0]ip6tnl0:fe80::745d:60ff:fef9:"
                    "e1dd%ip6tnl0<0> [1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600b<0>\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("ip6tnl0"), std::string::npos) << o.findings[0].message;
  EXPECT_EQ(o.findings[0].message.find("veth0"), std::string::npos) << o.findings[0].message;
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=veth0"), std::string::npos)
      << o.findings[0].fix;
  // Still named: a veth with a private IPv4 address, a short first group ("2::1" is not in
  // 2000::/3), the documentation prefix (2001:db8::/32), a host-side bridge with a global address.
  for (const char* entry :
       {"veth0:172.17.0.2", "veth0:2::1", "veth0:2001:db8:1::1", "br-5ab8:2a02:6b8:fc1d:3606::1"}) {
    const std::string e(entry);
    const RuleOutcome named = log_rule(
        kId, log_text("a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]" + e +
                      "<0>\nb:2:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0> [1]" + e +
                      "<0>\n"));
    ASSERT_EQ(named.findings.size(), 1u) << e;
    EXPECT_NE(named.findings[0].message.find(e.substr(0, e.find(':'))), std::string::npos)
        << e << ": " << named.findings[0].message;
  }
}

TEST(NcclSocketInterface, SingleNodeGetsNoInterNodeAdvice) {
  // The same WARP interface on one machine: nothing crosses hosts.
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/nccl1637-rtx5090-p2p-warp-maxsharedmem-nccl2.25.1.log"))
          .findings.empty());
}

// One host shown whose bootstrap no other host can reach (NVIDIA/nccl#859: AWS Batch, ECS's
// ecs-eth0 with 169.254.172.2 on every instance, connects refused): a warning that names the
// routable interface; a loopback bootstrap on one host, or such an interface only among the
// socket devices, stays quiet.
TEST(NcclSocketInterface, OneHostWithAnUnreachableBootstrapIsAWarning) {
  const std::string ecs =
      "ip-10-14-51-239:333:333 [0] NCCL INFO Bootstrap : Using ecs-eth0:169.254.172.2<0>\n"
      "ip-10-14-51-239:333:333 [0] NCCL INFO NET/Socket : Using [0]ecs-eth0:169.254.172.2<0> "
      "[1]eth0:10.14.51.239<0>\n"
      "ip-10-14-51-239:333:1563 [0] NCCL INFO Call to connect returned Connection refused, "
      "retrying\n";
  RuleOutcome o = log_rule(kId, log_text(ecs));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("bootstraps on ecs-eth0"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=eth0"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("shows one host"), std::string::npos);
  EXPECT_TRUE(log_rule(kId, log_text("h:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"))
                  .findings.empty());
  // A bridge listed before the routable interface is not the one the fix names.
  const std::string bridge =
      "ip-10-14-51-239:333:333 [0] NCCL INFO Bootstrap : Using ecs-eth0:169.254.172.2<0>\n"
      "ip-10-14-51-239:333:333 [0] NCCL INFO NET/Socket : Using [0]ecs-eth0:169.254.172.2<0> "
      "[1]br-3f2a:172.18.0.1<0> [2]eth0:10.14.51.239<0>\n";
  const RuleOutcome b = log_rule(kId, log_text(bridge));
  ASSERT_EQ(b.findings.size(), 1u);
  EXPECT_NE(b.findings[0].fix.find("NCCL_SOCKET_IFNAME=eth0 "), std::string::npos)
      << b.findings[0].fix;
  // NCCL itself printed nNodes 1 (2.19+): one node, said by NCCL, so nothing to warn of.
  EXPECT_TRUE(
      log_rule(kId, log_text("dgx01:100:100 [0] NCCL INFO Bootstrap : Using "
                             "ib0:fe80::ba59:9f03:fc:1234%ib0<0>\n"
                             "dgx01:100:200 [0] NCCL INFO comm 0x55 rank 0 nRanks 2 nNodes 1 "
                             "localRanks 2 localRank 0 MNNVL 0\n"
                             "dgx01:100:200 [0] NCCL INFO ncclCommInitRank comm 0x55 rank 0 "
                             "nranks 2 cudaDev 0 nvmlDev 0 busId 7000 commId 0x1234 - Init "
                             "COMPLETE\n"))
          .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_text("h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
                                     "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.4<0> "
                                     "[1]veth12:169.254.3.1<0>\n"))
                  .findings.empty());
}

TEST(NcclSocketInterface, QuietWhenSetOnPurpose) {
  std::string t = std::string(kWarp) +
                  "node1:11326:11326 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eno1\n";
  EXPECT_TRUE(log_rule(kId, log_text(t)).findings.empty());
}

// A veth with only a link-local address among NET/Socket's devices on a multi-node run: the cause
// says a channel placed on it cannot connect; a warning while every connection shown used the
// routable device, an error once a connection line names it or the run failed.
TEST(NcclSocketInterface, AnUnreachableSocketDeviceIsNamedAndAnErrorOnceTheRunFailed) {
  const std::string log =
      "a:1:1 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.137<0> "
      "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>\n"
      "a:1:1 [0] NCCL INFO Using network Socket\n"
      "a:1:2 [0] NCCL INFO Channel 00 : 1[1e0] -> 0[1e0] [receive] via NET/Socket/0\n";
  RuleOutcome o = log_rule(kId, log_text(log));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("cannot connect"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=ens5"), std::string::npos);
  RuleOutcome failed = log_rule(
      kId, log_text(log + "a:1:2 [0] NCCL INFO misc/socket.cc:540 -> 6\n"
                          "a:1:2 [0] misc/socket.cc:540 NCCL WARN Net : Connection closed by "
                          "remote peer 172.31.0.138<43215>\n"));
  ASSERT_EQ(failed.findings.size(), 1u);
  EXPECT_EQ(failed.findings[0].severity, Severity::kError);
  // A connection line on the veth device (NET/Socket/1): an error before anything failed.
  RuleOutcome on_it = log_rule(
      kId, log_text(log + "a:1:2 [0] NCCL INFO Channel 01 : 1[1e0] -> 0[1e0] [receive] via "
                          "NET/Socket/1\n"));
  ASSERT_EQ(on_it.findings.size(), 1u);
  EXPECT_EQ(on_it.findings[0].severity, Severity::kError);
  EXPECT_NE(on_it.findings[0].cause.find("show channels on it"), std::string::npos);
  RuleOutcome vpn = log_rule(kId, log_text(kWarp));
  ASSERT_EQ(vpn.findings.size(), 1u);
  EXPECT_EQ(vpn.findings[0].cause.find("cannot connect"), std::string::npos);
}

// NCCL before 2.4 listed its socket interfaces one line each ("NET : Using interface ...") and
// bootstrapped on the first (horovod/horovod#584, #789: lo first, from an NCCL_SOCKET_IFNAME of
// ^docker0): loopback under the bootstrap between hosts is an error, whose fix excludes lo once.
TEST(NcclSocketInterface, Pre24LoopbackFirstIsTheBootstrapAndAnError) {
  const RuleOutcome o = log_rule(
      kId,
      log_text("gpu-1012:4152:4206 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
               "gpu-1012:4152:4206 [0] NCCL INFO NET : Using interface eth0:10.151.40.240<0>\n"
               "gpu-1011:3000:3100 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
               "gpu-1011:3000:3100 [0] NCCL INFO NET : Using interface eth0:10.151.40.239<0>\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].cause.find("The bootstrap listens on loopback"), std::string::npos)
      << o.findings[0].cause;
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=eth0"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("^lo,docker)"), std::string::npos) << o.findings[0].fix;
  // lo after the routable interface: a socket device, not the bootstrap's; a warning until a
  // connection or a failure shows it used.
  const RuleOutcome second =
      log_rule(kId, log_text("a:1:1 [0] NCCL INFO NET : Using interface eth0:10.0.0.1<0>\n"
                             "a:1:1 [0] NCCL INFO NET : Using interface lo:127.0.0.1<0>\n"
                             "b:2:2 [0] NCCL INFO NET : Using interface eth0:10.0.0.2<0>\n"));
  ASSERT_EQ(second.findings.size(), 1u);
  EXPECT_EQ(second.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(second.findings[0].cause.find("The bootstrap listens on loopback"), std::string::npos);
}

// Loopback under a bootstrap NCCL_COMM_ID chose (its subnet, lo included; NCCL_SOCKET_IFNAME
// not read on that path): the fix names NCCL_COMM_ID.
TEST(NcclSocketInterface, LoopbackFromNcclCommIdNamesNcclCommId) {
  const RuleOutcome o = log_rule(
      kId, log_text("a:1:1 [0] NCCL INFO NCCL_COMM_ID set by environment to 127.0.0.1:29600\n"
                    "a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
                    "b:2:2 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL_COMM_ID is set"), std::string::npos)
      << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.rfind("Set NCCL_COMM_ID", 0), 0u) << o.findings[0].fix;
}

// NCCL 2.3's IB sideband lookup prints "NET : Using interface" for its first interface too: the
// same interface is not a second socket device.
TEST(NcclSocketInterface, Pre24SidebandLineIsNotAnotherDevice) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "a:1:1 [0] NCCL INFO NET : Using interface ib0:10.0.0.1<0>\n"
      "a:1:1 [0] NCCL INFO NET/IB : Using interface ib0 for sideband "
      "communication\n"
      "a:1:1 [0] NCCL INFO NET : Using interface ib0:10.0.0.1<0>\n"
      "a:1:1 [0] NCCL INFO NET : Using interface eth0:10.1.0.1<0>\n",
      "t.log");
  ASSERT_EQ(f.host_profiles.size(), 1u);
  const std::vector<std::string>& devs = f.host_profiles.begin()->second.socket_ifaces;
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[0], "ib0:10.0.0.1");
  EXPECT_EQ(devs[1], "eth0:10.1.0.1");
}

}  // namespace
}  // namespace trainready::test
