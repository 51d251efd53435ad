#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-host-mismatch";

// Two machines that both call themselves "localhost", told apart by their bootstrap address; one
// has InfiniBand off. Lines in the exact format of NCCL 2.19.
const char* kTwoLocalhosts =
    "localhost:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.10<0>\n"
    "localhost:100:100 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n"
    "localhost:100:200 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.10<0>\n"
    "localhost:100:200 [0] NCCL INFO Using network IB\n"
    "localhost:100:200 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 "
    "commId 0xabc - Init START\n"
    "localhost:300:300 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.14<0>\n"
    "localhost:300:300 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
    "localhost:300:400 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.14<0>\n"
    "localhost:300:400 [0] NCCL INFO Using network Socket\n"
    "localhost:300:400 [0] NCCL INFO comm 0x55e0 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 "
    "commId 0xabc - Init START\n";

// A host whose lines stop before its network was chosen has not said whether a setting NCCL
// prints there is set (NVIDIA/nccl-tests#284: agzen-master's lines end at its version line).
TEST(NcclHostMismatch, AHostCutBeforeNetworkSetupIsNotNotSet) {
  const NcclRunFacts f = log_text(
      "agzen-master:3867861:3867861 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to en\n"
      "agzen-master:3867861:3867861 [0] NCCL INFO Bootstrap: Using enp3s0:10.42.0.4<0>\n"
      "agzen-worker:475220:475220 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to en\n"
      "agzen-worker:475220:475220 [0] NCCL INFO Bootstrap: Using eno2:10.42.0.2<0>\n"
      "agzen-worker:475220:475220 [0] NCCL INFO NCCL version 2.25.1+cuda12.1\n"
      "agzen-worker:475220:475228 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
      "agzen-worker:475220:475228 [0] NCCL INFO NET/Socket : Using [0]eno2:10.42.0.2<0>\n"
      "agzen-worker:475220:475228 [0] NCCL INFO Using network Socket\n"
      "agzen-master:3867861:3867861 [0] NCCL INFO NCCL version 2.25.1+cuda12.4\n");
  RuleOutcome o = log_rule(kId, f);
  for (const Finding& x : o.findings)
    EXPECT_EQ(x.message.find("NCCL_IB_DISABLE"), std::string::npos) << x.message;
}

// Nor one whose lines start after its init began (NVIDIA/nccl#429: machine-2's excerpt starts at
// its "NET/IB : Using" line, after NCCL_IB_DISABLE was read and echoed; machine-1's holds its
// bootstrap line and the echo). What both hosts printed still compares.
TEST(NcclHostMismatch, AHostWhoseExcerptStartsAfterInitBeganIsNotNotSet) {
  const std::string machine2 =
      "machine-2:41626:42966 [0] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE ; OOB "
      "eth0:10.11.170.41<0>\n"
      "machine-2:41626:42966 [0] NCCL INFO Using network IB\n"
      "machine-2:41626:45223 [5] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.\n";
  const std::string machine1 =
      "machine-1:16194:17590 [0] NCCL INFO Bootstrap : Using eth0:10.11.170.43<0>\n"
      "machine-1:16194:17590 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), "
      "using internal implementation\n"
      "machine-1:16194:17590 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
      "machine-1:16194:17590 [0] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE ; OOB "
      "eth0:10.11.170.43<0>\n"
      "machine-1:16194:17590 [0] NCCL INFO Using network IB\n"
      "machine-1:16194:18580 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to ";
  RuleOutcome same = log_rule(kId, log_text(machine2 + machine1 + "3.\n"));
  EXPECT_TRUE(same.findings.empty()) << same.findings[0].message;
  // The GID index both printed, set differently, is still a difference.
  RuleOutcome differ = log_rule(kId, log_text(machine2 + machine1 + "1.\n"));
  ASSERT_EQ(differ.findings.size(), 1u);
  EXPECT_NE(differ.findings[0].message.find("NCCL_IB_GID_INDEX"), std::string::npos);
  EXPECT_EQ(differ.findings[0].message.find("NCCL_IB_DISABLE"), std::string::npos)
      << differ.findings[0].message;
}

TEST(NcclHostMismatch, NamesWhichHostsDifferAndHow) {
  NcclRunFacts f = log_text(kTwoLocalhosts);
  EXPECT_EQ(f.host_count, 2u);
  EXPECT_TRUE(f.multi_node());
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("NCCL_IB_DISABLE"), std::string::npos) << x.message;
  EXPECT_NE(x.message.find("network"), std::string::npos) << x.message;
  std::string ev;
  for (const auto& e : x.evidence) ev += e.text + "\n";
  EXPECT_NE(ev.find("localhost (10.0.0.14): NCCL_IB_DISABLE=1"), std::string::npos) << ev;
  EXPECT_NE(ev.find("localhost (10.0.0.10): (not set)"), std::string::npos) << ev;
}

TEST(NcclHostMismatch, QuietWhenHostsAgree) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"));
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclHostMismatch, QuietWithOneHost) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

// The plugin loader's wording tells the release (NVIDIA/nccl-tests#185: one host
// printed 2.17-2.18's "Plugin load (libnccl-net.so) returned 2", the other 2.19-2.20's "dlerror=...
// No plugin found
// (...)"): the hosts load different NCCL builds. Both use the internal plugin, which is no
// difference.
TEST(NcclHostMismatch, PluginLoaderWordingOfDifferentReleases) {
  const std::string a =
      "a:1:1 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
      "cannot open shared object file: No such file or directory\n"
      "a:1:1 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n"
      "a:1:2 [0] NCCL INFO Using network IB\n";
  const std::string b_old =
      "b:1:1 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n"
      "b:1:2 [0] NCCL INFO Using network IB\n";
  EXPECT_TRUE(log_rule("nccl-host-mismatch", log_text(a + b_old)).findings.empty());
  const std::string b_new =
      "b:1:1 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: "
      "No such file or directory No plugin found (libnccl-net.so), using internal "
      "implementation\n"
      "b:1:2 [0] NCCL INFO Using network IB\n";
  RuleOutcome o = log_rule("nccl-host-mismatch", log_text(a + b_new));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("NCCL release"), std::string::npos);
  EXPECT_EQ(o.findings[0].message.find("network plugin"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("2.17.1-2.18.6"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("different libnccl builds"), std::string::npos);
}

// The same plugin at two API versions is a difference (the outcome keeps "(vN)").
TEST(NcclHostMismatch, APluginLoadedAtTwoApiVersions) {
  const std::string log =
      "a:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v6)\n"
      "a:1:2 [0] NCCL INFO Using network AWS Libfabric\n"
      "b:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v8)\n"
      "b:1:2 [0] NCCL INFO Using network AWS Libfabric\n";
  RuleOutcome o = log_rule("nccl-host-mismatch", log_text(log));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("network plugin"), std::string::npos);
}

// NVIDIA/nccl#1634 (NCCL 2.25, a multi-node test that hung): one node loaded HPC-X's
// nccl-rdma-sharp-plugins, which says where from at load, the other found no plugin. Two lines,
// no Bootstrap or network line: the plugin alone tells the hosts' setups apart.
TEST(NcclHostMismatch, AnExternalPluginOnSomeHostsOnly) {
  const std::string log =
      "HGX-H100-11:18226:18274 [5] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using "
      "internal network plugin.\n"
      "HGX-H100-04:589474:589541 [0] NCCL INFO Plugin Path : "
      "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n";
  const NcclRunFacts f = log_text(log);
  ASSERT_EQ(f.host_profiles.at("HGX-H100-04").plugin_libraries.size(), 1u);
  RuleOutcome o = log_rule("nccl-host-mismatch", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("external network plugin"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("none (NCCL's internal network)"),
            std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("listen()"), std::string::npos);
  // Both hosts with the plugin: the same setup.
  const std::string both =
      "a:1:1 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n"
      "b:1:1 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n";
  EXPECT_TRUE(log_rule("nccl-host-mismatch", log_text(both)).findings.empty());
  // The same plugin, its path printed on one host only: the same setup.
  const std::string one_path =
      "a:1:1 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n"
      "a:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)\n"
      "b:2:2 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)\n";
  EXPECT_TRUE(log_rule("nccl-host-mismatch", log_text(one_path)).findings.empty());
  // A host that printed only its plugin line is not compared on settings it never printed.
  const std::string env_one_side =
      "a:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n"
      "a:1:1 [0] NCCL INFO NET/Plugin: Using internal network plugin.\n"
      "b:2:2 [0] NCCL INFO NET/Plugin: Using internal network plugin.\n";
  EXPECT_TRUE(log_rule("nccl-host-mismatch", log_text(env_one_side)).findings.empty());
}

}  // namespace
}  // namespace trainready::test
