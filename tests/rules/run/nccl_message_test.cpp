#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-message";

// A failure trail in the InfiniBand transport: ncclSystemError's meaning, the failing file and
// its subsystem, the fix and the experiment; the WARN before it quoted.
TEST(NcclMessage, FiresOnATrailAndNamesTheFailingTransport) {
  RuleOutcome o =
      log_rule(kId, log_text("vm-a:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                             "vm-a:100:120 [0] NCCL INFO transport/net_ib.cc:1234 -> 2\n"
                             "vm-a:100:120 [0] NCCL INFO transport/net.cc:700 -> 2\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("ncclSystemError"), std::string::npos) << x.message;
  EXPECT_NE(x.message.find("[trail-system-error]"), std::string::npos);
  bool file = false;
  for (const Evidence& e : x.evidence)
    file = file || e.text == "failing file transport/net_ib.cc:1234 (ib-verbs)";
  EXPECT_TRUE(file);
  EXPECT_NE(x.fix.find("Confirm:"), std::string::npos);
  EXPECT_NE(x.cause.find("src/nccl.h.in"), std::string::npos);
}

TEST(NcclMessage, QuietOnAHealthyRunAndOnSignatureLines) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
  // The trail after a WARN follows it: the WARN's reading is the finding, not the trail's.
  const RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[ib-completion-error]"), std::string::npos);
  // The socket trail is nccl-known-signature's reading, not this rule's.
  EXPECT_TRUE(log_rule(kId, log_text("vm-a:100:120 [0] NCCL INFO misc/socket.cc:564 -> 2\n"))
                  .findings.empty());
}

// The result PyTorch prints under a trail ("ncclInternalError: Internal check failed.", read as a
// headless warning) comes after the failure, not before it: the trail's reading stays the finding
// (vllm-project/vllm#10453, where framework-nccl-error and nccl-warnings defer to it).
TEST(NcclMessage, AResultPastedBelowTheTrailIsNotTheWarnItFollows) {
  const RuleOutcome o = log_rule(
      kId, log_text("h100-2:412:433 [0] NCCL INFO graph/paths.cc:260 -> 3\n"
                    "h100-2:412:433 [0] NCCL INFO transport/p2p.cc:123 -> 3\n"
                    "h100-2:412:412 [0] NCCL INFO init.cc:1929 -> 3\n"
                    "[rank1]: torch.distributed.DistBackendError: NCCL error in: "
                    "../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, internal error - please "
                    "report this issue to the NCCL developers, NCCL version 2.21.5\n"
                    "[rank1]: ncclInternalError: Internal check failed.\n"
                    "[rank1]: Last error:\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[trail-internal-error]"), std::string::npos)
      << o.findings[0].message;
}

// A WARN read as informational still gives a (info) finding; the same text as INFO does not.
TEST(NcclMessage, AWarnNeverEndsWithNoFinding) {
  const RuleOutcome o = log_rule(
      kId, log_text("h:1:2 [0] transport/nvls.cc:961 NCCL WARN rank 0 failed to NVLS register "
                    "sendbuff 0x7f00 sendbuffSize 1024\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("[nvls-user-buffer-register-failed]"), std::string::npos);
  EXPECT_TRUE(log_rule(kId, log_text("h:1:2 [0] NCCL INFO rank 0 failed to NVLS register sendbuff "
                                     "0x7f00 sendbuffSize 1024\n"))
                  .findings.empty());
}

// Pre-2.4 (no NCCL tag): "Address family not supported" means no usable interface was found.
TEST(NcclMessage, ReadsAPre24SocketWarn) {
  const RuleOutcome o = log_rule(kId, log_text("include/socket.h:344 WARN Socket creation failed : "
                                               "Address family not supported by protocol\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[socket-create-failed]"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("no usable IP interface"), std::string::npos)
      << o.findings[0].cause;
}

// NCCL 2.13-2.20 ignore a failed dlopen of libcuda.so at init ((void)ncclCudaLibraryInit()):
// a warning, not an error. Before 2.18 NCCL_CUDA_PATH is joined to "libcuda.so" without a
// slash, so a path set without one is the reading (NVIDIA/nccl-tests#115's line); 2.18+ add the
// slash, and the same setting there is a directory without the library.
TEST(NcclMessage, CudaLibraryNotFoundIsAWarningAndReadsTheMissingSlash) {
  const RuleOutcome o = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.14.3+cuda11.7\n"
                    "h:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in "
                    "/usr/local/cuda-11.7 (NCCL_CUDA_PATH=/usr/local/cuda-11.7)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("[legacy-cuda-library-not-found]"), std::string::npos);
  EXPECT_EQ(o.findings[0].cause.rfind("NCCL_CUDA_PATH is set without a trailing slash", 0), 0u)
      << o.findings[0].cause;

  const RuleOutcome later = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.20.5+cuda12.4\n"
                    "h:1:1 [0] misc/cudawrap.cc:188 NCCL WARN Failed to find CUDA library "
                    "/opt/lib/libcuda.so (NCCL_CUDA_PATH='/opt/lib') : /opt/lib/libcuda.so: cannot "
                    "open shared object file: No such file or directory\n"));
  ASSERT_EQ(later.findings.size(), 1u);
  EXPECT_EQ(later.findings[0].severity, Severity::kWarning);
  EXPECT_NE(later.findings[0].message.find("[legacy-cuda-library-not-found]"), std::string::npos);
  EXPECT_EQ(later.findings[0].cause.rfind("NCCL_CUDA_PATH points to a directory without", 0), 0u)
      << later.findings[0].cause;
  // A cause of releases before 2.18 is not offered for a 2.20 log.
  EXPECT_EQ(later.findings[0].cause.find("trailing slash - these"), std::string::npos);
  // Unset, the library's own name was not found: the missing development symlink.
  const RuleOutcome unset = log_rule(
      kId, log_text("h:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in (null) "
                    "(NCCL_CUDA_PATH=(null))\n"));
  ASSERT_EQ(unset.findings.size(), 1u);
  EXPECT_EQ(unset.findings[0].cause.rfind("Only libcuda.so.1 is present", 0), 0u)
      << unset.findings[0].cause;
}

// ArgsCheck prints the communicator's nRanks as the range's end: "0..0" is a communicator with
// no ranks yet (NVIDIA/nccl#276: a collective in the same group as its init), not a bad root.
TEST(NcclMessage, InvalidRootOfAnUninitialisedCommunicator) {
  const RuleOutcome o = log_rule(
      kId, log_text("YYY:2396:2428 [0] misc/argcheck.cc:40 NCCL WARN Reduce : invalid root 0 (root "
                    "should be in the 0..0 range)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[enq-invalid-args]"), std::string::npos);
  EXPECT_EQ(o.findings[0].cause.rfind("The communicator has no ranks yet", 0), 0u)
      << o.findings[0].cause;
  const RuleOutcome bad = log_rule(
      kId, log_text("h:1:1 [0] misc/argcheck.cc:204 NCCL WARN Broadcast : invalid root 8 (root "
                    "should be in the 0..8 range)\n"));
  ASSERT_EQ(bad.findings.size(), 1u);
  EXPECT_NE(bad.findings[0].cause.rfind("The communicator has no ranks yet", 0), 0u);
  // "0..-1": a freed communicator (commPoison sets nRanks to -1; NVIDIA/nccl#496 after a failed
  // init).
  const RuleOutcome freed = log_rule(
      kId, log_text("h:1:1 [0] misc/argcheck.cc:39 NCCL WARN Broadcast : invalid root 0 (root "
                    "should be in the 0..-1 range)\n"));
  ASSERT_EQ(freed.findings.size(), 1u);
  EXPECT_NE(freed.findings[0].message.find("[enq-invalid-args]"), std::string::npos);
  EXPECT_EQ(freed.findings[0].cause.rfind("The communicator was freed", 0), 0u)
      << freed.findings[0].cause;
}

// NVLS setup's CUCHECK with "initialization error" (NVIDIA/nccl#1029: nvls.cc:245 is
// cuCtxGetDevice at 2.18.1-2.18.5): CUDA never initialised in the process, not the Fabric Manager;
// another error at the same place keeps the fabric reading.
TEST(NcclMessage, NvlsInitialisationErrorIsCudaNotTheFabric) {
  const RuleOutcome init =
      log_rule(kId, log_text("w1:2918:4483 [4] transport/nvls.cc:245 NCCL WARN Cuda failure "
                             "'initialization error'\n"));
  ASSERT_EQ(init.findings.size(), 1u);
  EXPECT_NE(init.findings[0].message.find("[nvls-cuda-call-failed]"), std::string::npos);
  EXPECT_EQ(
      init.findings[0].cause.rfind("\"initialization error\" is CUDA_ERROR_NOT_INITIALIZED", 0), 0u)
      << init.findings[0].cause;
  const RuleOutcome fabric = log_rule(
      kId, log_text("w1:2918:4483 [4] transport/nvls.cc:245 NCCL WARN Cuda failure 1 'invalid "
                    "argument'\n"));
  ASSERT_EQ(fabric.findings.size(), 1u);
  EXPECT_EQ(fabric.findings[0].cause.rfind("The Fabric Manager", 0), 0u)
      << fabric.findings[0].cause;
}

// "Attribute busid of node nic not found" is printed only by NCCL 2.18.5-2.19.4's sort of a CPU's
// PCI children (xml.cc:589 @ v2.19.3-1), which fails on a NIC with no PCI path; 2.20.3 skips such
// a child. The XLA line quoting it (LargeWorldModel/LWM#42) gets that reading, not a plugin's
// topology file; another attribute keeps the topology-file causes.
TEST(NcclMessage, BusidOfNodeNicIsThe219SortBug) {
  const RuleOutcome xla = log_rule(
      kId, log_text("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: custom call "
                    "'xla.gpu.reduce_scatter' failed: external/xla/xla/service/gpu/"
                    "nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
                    "failed: internal error - please report this issue to the NCCL developers. "
                    "Last NCCL warning(error) log entry (may be unrelated) 'Attribute busid of "
                    "node nic not found'.\n"));
  ASSERT_EQ(xla.findings.size(), 1u);
  EXPECT_NE(xla.findings[0].message.find("[topo-xml-attribute-missing]"), std::string::npos);
  EXPECT_NE(xla.findings[0].cause.find("the likeliest: A known NCCL problem of releases 2.18.5 to "
                                       "2.19.4"),
            std::string::npos)
      << xla.findings[0].cause;
  // A release that cannot have it (the log prints 2.23.4): not that bug.
  const RuleOutcome later = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n"
                    "h:1:2 [0] graph/xml.h:101 NCCL WARN Attribute busid of node nic not found\n"));
  ASSERT_EQ(later.findings.size(), 1u);
  EXPECT_EQ(later.findings[0].cause.find("2.18.5 to 2.19.4"), std::string::npos)
      << later.findings[0].cause;
  EXPECT_NE(xla.findings[0].fix.find("2.20.3"), std::string::npos);
  const RuleOutcome pci = log_rule(
      kId, log_text("h:1:2 [0] graph/xml.h:85 NCCL WARN Attribute busid of node pci not found\n"));
  ASSERT_EQ(pci.findings.size(), 1u);
  EXPECT_EQ(pci.findings[0].cause.find("2.18.5 to 2.19.4"), std::string::npos)
      << pci.findings[0].cause;
}

// A connect to a link-local address (volcengine/verl#726: 169.254.0.1 on AWS) fails whatever the
// errno: the peer advertised an address no other host can reach. A routable address keeps the
// reading of the errno (2.16-2.24.2's ECONNABORTED retry).
TEST(NcclMessage, ConnectToALinkLocalAddressIsTheAddress) {
  const auto run = [](const std::string& addr) {
    return log_rule(kId, log_text("h1:10:20 [0] NCCL INFO NCCL version 2.20.5+cuda12.4\n"
                                  "h1:10:20 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: "
                                  "Connect to " +
                                  addr + "<40815> failed : Software caused connection abort\n"));
  };
  const RuleOutcome ll = run("169.254.0.1"), v6 = run("fe80::1%ib1"), routed = run("10.0.0.2");
  ASSERT_EQ(ll.findings.size(), 1u);
  EXPECT_EQ(ll.findings[0].cause.rfind("The address this rank dials is link-local", 0), 0u)
      << ll.findings[0].cause;
  ASSERT_EQ(v6.findings.size(), 1u);
  EXPECT_EQ(v6.findings[0].cause.rfind("The address this rank dials is link-local", 0), 0u);
  ASSERT_EQ(routed.findings.size(), 1u);
  EXPECT_EQ(routed.findings[0].cause.rfind("ECONNABORTED", 0), 0u) << routed.findings[0].cause;
}

// "No algorithm/protocol available": a log of WARNs cannot show that no NCCL_ALGO/NCCL_PROTO is
// set (NVIDIA/nccl#653 had forced NCCL_ALGO=CollNet), nor can INFO lines of a release before
// 2.16.5, whose default NCCL_DEBUG_SUBSYS leaves the "set by environment" lines out; the bug is
// the reading only where the log would have shown a setting (`info_shown`).
TEST(NcclMessage, NoAlgorithmIsABugOnlyWhereTheLogShowsTheSettings) {
  const std::string warn =
      "h:41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no "
      "algorithm/protocol available\n";
  const auto run = [&](const std::string& head) { return log_rule(kId, log_text(head + warn)); };
  const RuleOutcome bare = run("");
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_EQ(bare.findings[0].cause.rfind("The log does not show NCCL's settings", 0), 0u)
      << bare.findings[0].cause;
  const RuleOutcome info =
      run("h:1:1 [1] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
          "h:41367:41367 [1] NCCL INFO Using network IB\n");
  ASSERT_EQ(info.findings.size(), 1u);
  EXPECT_EQ(info.findings[0].cause.rfind("No NCCL_* restriction is set", 0), 0u)
      << info.findings[0].cause;
  const RuleOutcome old =
      run("h:1:1 [1] NCCL INFO NCCL version 2.12.12+cuda11.6\n"
          "h:41367:41367 [1] NCCL INFO Using network IB\n");
  ASSERT_EQ(old.findings.size(), 1u);
  EXPECT_EQ(old.findings[0].cause.rfind("The log does not show NCCL's settings", 0), 0u)
      << old.findings[0].cause;
  const RuleOutcome algo =
      run("h:41367:41367 [1] NCCL INFO NCCL_ALGO set by environment to CollNet\n");
  ASSERT_EQ(algo.findings.size(), 1u);
  EXPECT_EQ(algo.findings[0].cause.rfind("NCCL_ALGO / NCCL_PROTO restrict", 0), 0u)
      << algo.findings[0].cause;
}

// bind() refused with EADDRNOTAVAIL is an address this host does not hold (NVIDIA/nccl#331: the
// 2.4 root binding NCCL_COMM_ID's address inside a bridge-networked container), not a limit.
TEST(NcclMessage, BindCannotAssignRequestedAddressIsAForeignAddress) {
  const auto run = [](const std::string& err) {
    return log_rule(kId, log_text("e82c:213:213 [0] include/socket.h:333 NCCL WARN Call to bind "
                                  "failed : " +
                                  err + "\n"));
  };
  const RuleOutcome addr = run("Cannot assign requested address"),
                    other = run("Too many open files");
  ASSERT_EQ(addr.findings.size(), 1u);
  EXPECT_EQ(addr.findings[0].cause.rfind("bind() was given an address", 0), 0u)
      << addr.findings[0].cause;
  ASSERT_EQ(other.findings.size(), 1u);
  EXPECT_EQ(other.findings[0].cause.rfind("Resource limits", 0), 0u) << other.findings[0].cause;
  // The bootstrap on an interface whose only address is link-local (rwth-i6/returnn#1470: NCCL
  // 2.18 took ib0, fe80::, and the root's listen could not bind it): the interface, not
  // NCCL_COMM_ID.
  // Ten INFO lines between the Bootstrap line and the WARN: the kept Bootstrap line is what
  // log_has reads, not the last lines of the log.
  std::string between;
  for (int i = 0; i < 10; ++i)
    between +=
        "nd20-01:275975:275975 [0] NCCL INFO NET/Plugin : No plugin found, using internal "
        "implementation " +
        std::to_string(i) + "\n";
  const std::string boot =
      "nd20-01:275975:275975 [0] NCCL INFO Bootstrap : Using ib0:fe80::ba59:9f03:fc:765c%ib0<0>\n";
  const std::string warn =
      "nd20-01:275975:275975 [0] misc/socket.cc:379 NCCL WARN Call to bind failed : Cannot "
      "assign requested address\nnd20-01:275975:275975 [0] NCCL INFO bootstrap.cc:176 -> 2\n";
  const RuleOutcome ll = log_rule(kId, log_text(boot + between + warn));
  ASSERT_FALSE(ll.findings.empty());
  EXPECT_EQ(ll.findings[0].cause.rfind("The address NCCL took for its bootstrap is an IPv6", 0), 0u)
      << ll.findings[0].cause;
  EXPECT_NE(ll.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
  // NCCL_SOCKET_IFNAME set: the interface was asked for, so the reading is not NCCL's choice.
  const RuleOutcome set = log_rule(
      kId, log_text("nd20-01:275975:275975 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to "
                    "ib0\n" +
                    boot + between + warn));
  ASSERT_FALSE(set.findings.empty());
  EXPECT_EQ(set.findings[0].cause.rfind("bind() was given an address", 0), 0u)
      << set.findings[0].cause;
  // An IPv4 bootstrap address keeps the foreign-address reading.
  const RuleOutcome v4 = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
                    "h:1:1 [0] misc/socket.cc:379 NCCL WARN Call to bind failed : Cannot assign "
                    "requested address\n"));
  ASSERT_FALSE(v4.findings.empty());
  EXPECT_EQ(v4.findings[0].cause.rfind("bind() was given an address", 0), 0u)
      << v4.findings[0].cause;
}

// A lost proxy socket in a process that drives every GPU of its host (ROCm/rccl#1454:
// rccl-tests -g 2, one pid): the proxy is a thread of that live process, not a crashed one; two
// processes on the host keep the crash among the readings.
TEST(NcclMessage, ProxySocketLostInOneProcessIsNotACrash) {
  const std::string warn =
      "proxy.cc:1190 NCCL WARN Socket recv failed while polling for "
      "opId=0x7d9e780c40c0\n";
  const RuleOutcome one =
      log_rule(kId, log_text("uvos:31965:31971 [0] " + warn +
                             "uvos:31965:31971 [0] NCCL INFO transport/p2p.cc:473 -> 3\n"
                             "uvos:31965:31965 [1] NCCL INFO group.cc:437 -> 1\n"));
  ASSERT_EQ(one.findings.size(), 1u);
  EXPECT_EQ(one.findings[0].cause.rfind("Every rank of this host runs in one process", 0), 0u)
      << one.findings[0].cause;
  const RuleOutcome two =
      log_rule(kId, log_text("uvos:31965:31971 [0] " + warn +
                             "uvos:31965:31971 [0] NCCL INFO transport/p2p.cc:473 -> 3\n"
                             "uvos:31966:31966 [1] NCCL INFO group.cc:437 -> 1\n"));
  ASSERT_EQ(two.findings.size(), 1u);
  EXPECT_EQ(two.findings[0].cause.rfind("Every rank of this host runs in one process", 0),
            std::string::npos)
      << two.findings[0].cause;
  // One rank in the pid, by its communicator line, though a thread that never set a device
  // prints [0]: not a process driving the host's GPUs.
  const RuleOutcome rank = log_rule(
      kId, log_text("n1:500:500 [3] NCCL INFO ncclCommInitRank comm 0x1 rank 3 nranks 8 cudaDev 3 "
                    "busId 5d000 commId 0x2 - Init START\n"
                    "n1:500:510 [3] " +
                    warn + "n1:500:520 [0] NCCL INFO group.cc:437 -> 1\n"));
  ASSERT_FALSE(rank.findings.empty());
  for (const Finding& x : rank.findings)
    EXPECT_NE(x.cause.rfind("Every rank of this host runs in one process", 0), 0u) << x.cause;
  // Lines without their host:pid prefix say nothing of the process.
  const RuleOutcome bare =
      log_rule(kId, log_text("[0] " + warn + "[1] NCCL INFO group.cc:437 -> 1\n"));
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_EQ(bare.findings[0].cause.rfind("Every rank of this host runs in one process", 0),
            std::string::npos)
      << bare.findings[0].cause;
}

// A CUDA failure at nvls.cc:580 (cuMulticastBindAddr in nvlsRegisterBuffer, 2.24.3) followed by
// "failed to NVLS register": NCCL fell back to its own buffers (NVIDIA/nccl#1584) - a note, not
// a broken fabric. Without that line the call is NVLS setup's and stays an error.
TEST(NcclMessage, NvlsUserBufferRegistrationFailureIsANote) {
  const std::string cuda =
      "h:1:2 [0] transport/nvls.cc:580 NCCL WARN Cuda failure 1 'invalid argument'\n";
  const RuleOutcome reg = log_rule(
      kId, log_text(cuda + "h:1:2 [0] transport/nvls.cc:703 NCCL WARN rank 0 failed to NVLS "
                           "register sendbuff 0x78c800000000 sendbuffSize 1073741824 recvbuff "
                           "0x78c800000000 recvbuffSize 1073741824\n"));
  ASSERT_FALSE(reg.findings.empty());
  for (const Finding& x : reg.findings) EXPECT_EQ(x.severity, Severity::kInfo) << x.message;
  EXPECT_EQ(reg.findings[0].cause.rfind("The failing call is NVLS's registration", 0), 0u)
      << reg.findings[0].cause;
  const RuleOutcome setup = log_rule(kId, log_text(cuda));
  ASSERT_EQ(setup.findings.size(), 1u);
  EXPECT_EQ(setup.findings[0].severity, Severity::kError);
}

// 2.8-2.11's "[Rem Allocator] Poll failed with error 1": the number is a comparison, not an
// errno, and the service serves only P2P through an intermediate GPU (NVIDIA/nccl#472, a red
// herring): a warning, not the job's error.
TEST(NcclMessage, RemAllocatorPollFailureIsAWarningWithoutAnErrno) {
  const RuleOutcome o = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.11.4+cuda11.4\n"
                    "h:1:9 [0] bootstrap.cc:268 NCCL WARN [Rem Allocator] Poll failed with "
                    "error 1\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(o.findings[0].cause.rfind("The number is no errno", 0), 0u) << o.findings[0].cause;
}

// A real DMA-BUF registration refused with EOPNOTSUPP (NVIDIA/nccl#778, 2.13): NCCL's fd -1 probe
// said DMA-BUF works, so NCCL_DMABUF_ENABLE=0 is the switch; ibv_reg_mr's keeps the peermem
// reading.
TEST(NcclMessage, DmaBufRegistrationNotSupportedIsNcclDmabufEnable) {
  const auto run = [](const std::string& call) {
    return log_rule(kId, log_text("h:1:2 [0] misc/ibvwrap.cc:288 NCCL WARN Call to " + call +
                                  " failed with error Operation not supported\n"));
  };
  const RuleOutcome dmabuf = run("ibv_reg_dmabuf_mr"), mr = run("ibv_reg_mr");
  ASSERT_EQ(dmabuf.findings.size(), 1u);
  EXPECT_EQ(dmabuf.findings[0].fix.rfind("Set NCCL_DMABUF_ENABLE=0", 0), 0u)
      << dmabuf.findings[0].fix;
  ASSERT_EQ(mr.findings.size(), 1u);
  EXPECT_EQ(mr.findings[0].fix.rfind("Set NCCL_DMABUF_ENABLE=0", 0), std::string::npos);
  EXPECT_NE(mr.findings[0].fix.find("nvidia-peermem"), std::string::npos);
}

// NCCL's connect retries (INFO, src/os/linux.cc:293 @ v2.30.7-1): "No route to host" until the
// last try is a peer this host cannot reach (hiyouga/LlamaFactory#8045, a worker that could not
// reach the master); a refused connect while the peer starts is a note; SYSCHECKSYNC's EINTR
// retry of another call is no failure.
TEST(NcclMessage, ConnectRetriesAreReadByTheirErrno) {
  const auto retry = [](const std::string& err, const std::string& n) {
    return log_rule(kId, log_text("zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect "
                                  "returned " +
                                  err + ", retrying (" + n + ") after sleep for 3400 msec\n"));
  };
  const RuleOutcome route = retry("No route to host", "34/34");
  ASSERT_EQ(route.findings.size(), 1u);
  EXPECT_NE(route.findings[0].message.find("[socket-connect-retrying]"), std::string::npos);
  EXPECT_EQ(route.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(route.findings[0].cause.rfind("The address this rank dials is not reachable", 0), 0u)
      << route.findings[0].cause;
  EXPECT_NE(route.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
  const RuleOutcome timed = retry("Connection timed out", "34/34");
  ASSERT_EQ(timed.findings.size(), 1u);
  EXPECT_EQ(timed.findings[0].cause.rfind("Nothing answered", 0), 0u) << timed.findings[0].cause;
  // A network error on an early try that a later one may get past: a note (no finding).
  EXPECT_TRUE(retry("No route to host", "1/34").findings.empty());
  EXPECT_TRUE(retry("Connection timed out", "3/34").findings.empty());
  // Refused while the peer starts: quiet; refused to NCCL's last try: the peer is not listening.
  EXPECT_TRUE(retry("Connection refused", "1/34").findings.empty());
  const RuleOutcome last = retry("Connection refused", "34/34");
  ASSERT_EQ(last.findings.size(), 1u);
  EXPECT_EQ(last.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(last.findings[0].cause.rfind("Every try was refused", 0), 0u) << last.findings[0].cause;
  // SYSCHECKSYNC's retry of another call after EINTR and accept's retry: no failure, no finding.
  EXPECT_TRUE(log_rule(kId, log_text("h1:10:20 [0] NCCL INFO misc/socket.cc:120 Call to close "
                                     "returned Interrupted system call, retrying\n"))
                  .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_text("h1:10:20 [0] NCCL INFO Call to accept returned Network is "
                                     "unreachable, retrying\n"))
                  .findings.empty());
  // An ordinary INFO line is none of them.
  EXPECT_TRUE(log_rule(kId, log_text("h1:10:20 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"))
                  .findings.empty());
}

// "Failed to find reverse path" between two GPU nodes (type 0 both ends, paths.cc @ v2.19.3-1)
// is an NVLink one GPU reports and the other does not (vllm-project/vllm#4062, NVIDIA/nccl#1253);
// between other node types it stays a consistency check of NCCL's graph code.
TEST(NcclMessage, AReversePathMissingBetweenGpusIsAOneSidedNvlink) {
  const auto cause = [](const std::string& m) {
    const RuleOutcome o = log_rule(
        kId, log_text("h:1:2 [0] graph/paths.cc:79 NCCL WARN Failed to find reverse path from "
                      "remNode " +
                      m + "\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(cause("0/41000 nlinks 2 to node 0/61000").rfind("Two GPUs disagree about an NVLink", 0),
            0u);
  EXPECT_EQ(cause("1/41000 nlinks 2 to node 3/0").rfind("A bug or an unhandled topology", 0), 0u);
  // RCCL prints the same message (ROCm/rccl#1728, MI300X): no NVML advice there.
  const RuleOutcome amd = log_rule(
      kId, log_text("RCCL version 2.20.5+hip6.2\n"
                    "node-0:1:2 [0] /long/src/extlibs/rccl/build/hipify/src/graph/paths.cc:82 NCCL "
                    "WARN Failed to find reverse path from remNode 0/200000 nlinks 3 to node "
                    "0/700000\n"));
  ASSERT_FALSE(amd.findings.empty());
  EXPECT_EQ(amd.findings[0].cause.find("Two GPUs disagree about an NVLink"), std::string::npos)
      << amd.findings[0].cause;
}

// "ring N does not loop back to start": the rings are joined from every rank's own graph without
// a check that they agree (rings.cc:30-51, connect.cc:366 @ v2.21.5-1): ranks that differ in
// settings, devices or release, read before a bug; a topology file still leads where one is set.
TEST(NcclMessage, ARingThatDoesNotLoopBackIsRanksThatDisagree) {
  const std::string ring =
      "h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (2 != 0)\n";
  const RuleOutcome o = log_rule(kId, log_text(ring));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_EQ(o.findings[0].cause.rfind("The ranks did not build their rings from the same view", 0),
            0u)
      << o.findings[0].cause;
  const RuleOutcome topo = log_rule(
      kId,
      log_text("h:1:1 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /etc/topo.xml\n" + ring));
  ASSERT_FALSE(topo.findings.empty());
  EXPECT_EQ(topo.findings[0].cause.rfind("An injected topology or graph file", 0), 0u)
      << topo.findings[0].cause;
}

// ENODEV from ibv_modify_qp with NCCL_IB_GID_INDEX set by hand: the fixed index names another
// interface's GID (GID tables differ per host and container; a blog.gitcode.com write-up fixed
// by unsetting it); without the setting, the interface behind the GID is down.
TEST(NcclMessage, AnEnodevQpWithAHandSetGidIndexIsThatIndex) {
  const std::string qp =
      "h:1:2 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error No such "
      "device errno 19\n";
  const RuleOutcome set = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.\n" + qp));
  ASSERT_FALSE(set.findings.empty());
  EXPECT_NE(set.findings[0].cause.find("with NCCL_IB_GID_INDEX set by hand"), std::string::npos)
      << set.findings[0].cause;
  EXPECT_EQ(set.findings[0].fix.rfind("Unset NCCL_IB_GID_INDEX", 0), 0u) << set.findings[0].fix;
  const RuleOutcome unset = log_rule(kId, log_text(qp));
  ASSERT_FALSE(unset.findings.empty());
  EXPECT_EQ(unset.findings[0].fix.rfind("Bring the HCA's network interface up", 0), 0u)
      << unset.findings[0].fix;
  // -1 asks NCCL to choose (2.21+): not an index set by hand.
  const RuleOutcome automatic = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to -1.\n" + qp));
  ASSERT_FALSE(automatic.findings.empty());
  EXPECT_EQ(automatic.findings[0].fix.rfind("Bring the HCA's network interface up", 0), 0u)
      << automatic.findings[0].fix;
}

// A system-error trail that begins in the shared-memory transport (shmRecvSetup's shmOpen,
// shm.cc:101 @ v2.8.4-1; TsinghuaAI/CPM-2-Finetune#2 in Docker) is /dev/shm; one that begins in
// the topology code keeps the general reading.
TEST(NcclMessage, ASystemErrorTrailFromTheShmTransportIsDevShm) {
  const auto cause = [](const std::string& first) {
    const RuleOutcome o = log_rule(
        kId, log_text("5756b01ac223:4707:5232 [2] NCCL INFO " + first +
                      " -> 2\n5756b01ac223:4707:5232 [2] NCCL INFO transport.cc:30 -> 2\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(cause("transport/shm.cc:101").rfind("The failure began in NCCL's shared-memory", 0),
            0u);
  EXPECT_EQ(cause("graph/xml.cc:700").rfind("A system call NCCL made failed", 0), 0u);
}

// SYSCHECK's "Call to <name> failed : <errno>" reads the call: a connect NCCL 2.3 did not retry
// (only a refused one is retried, SYSCHECKNTIMES) is an unreachable peer address (NVIDIA/
// nccl-tests#15), a recv/write on a connection that was up is a peer gone; a shared-memory call
// keeps the resource-limit reading.
TEST(NcclMessage, SyscheckFailuresAreReadByTheirCall) {
  const auto cause = [](const std::string& line) {
    const RuleOutcome o =
        log_rule(kId, log_text("h1:10:20 [0] include/socket.h:360 WARN " + line + "\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(cause("Call to connect failed : Connection timed out").rfind("A connect to a peer", 0),
            0u);
  EXPECT_EQ(cause("Call to connect failed : No route to host").rfind("A connect to a peer", 0), 0u);
  EXPECT_EQ(cause("Call to recv failed : Connection reset by peer").rfind("A socket to a peer", 0),
            0u);
  EXPECT_EQ(cause("Call to ftruncate failed : No space left on device").rfind("Resource limits", 0),
            0u);
}

// 2.14-2.15 connect a bootstrap send without waiting (asyncFlag), so a refused one shows as "Call
// to recv from X failed : Connection refused" (EleutherAI/gpt-neox#1147, behind pdsh's "node2: "
// after PyTorch's "Last error:"): nothing listened there, not a path that broke.
TEST(NcclMessage, ARefusedRecvIsAConnectThatNothingAnswered) {
  const RuleOutcome o = log_rule(
      kId,
      log_text("NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3\n"
               "node2: Last error:\n"
               "node2: Net : Call to recv from 10.1.1.2<56843> failed : Connection refused\n"
               "node1: node1:15874:17284 [4] NCCL INFO Channel 00 : 4[61000] -> 3[42000] via "
               "SHM/direct/direct\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("[legacy-socket-recv-from-failed]"), std::string::npos);
  // Not another host's line interleaved after the tag, nor a line past a NCCL record: nothing
  // of PyTorch's message is read from them.
  const auto read_any = [](const std::string& text) {
    for (const Finding& x : log_rule(kId, log_text(text)).findings)
      if (x.message.find("[legacy-socket-recv-from-failed]") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(read_any(
      "node2: Last error:\n"
      "node1: [2023-01-10 10:00:00,000] [INFO] [launch.py:318:sigkill_handler] Killing 12345\n"
      "node2: Net : Call to recv from 10.1.1.2<56843> failed : Connection refused\n"
      "node1: node1:15874:17284 [4] NCCL INFO Channel 00 : 4[61000] -> 3[42000] via SHM\n"));
  EXPECT_FALSE(read_any(
      "Last error:\n"
      "node1:15874:17284 [4] NCCL INFO Channel 00 : 4[61000] -> 3[42000] via SHM/direct/direct\n"
      "Net : Call to recv from 10.1.1.2<56843> failed : Connection refused\n"));
  EXPECT_EQ(o.findings[0].cause.rfind("\"Connection refused\": a connect that was refused", 0), 0u)
      << o.findings[0].cause;
  const RuleOutcome reset =
      log_rule(kId, log_text("h1:10:20 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
                             "10.1.1.2<56843> failed : Connection timed out\n"));
  ASSERT_FALSE(reset.findings.empty());
  EXPECT_EQ(reset.findings[0].cause.rfind("\"Connection timed out\"", 0), 0u);
}

// "Address family not supported" from socket(): with nothing else an empty address (no usable
// interface); in a job whose IB transport is in use (a "via NET/IB" connection line: NET/IB and
// the bootstrap both found an interface), the address has a family this process cannot open,
// IPv6 where it is disabled (NVIDIA/nccl#224).
TEST(NcclMessage, AddressFamilyNotSupportedBesideNetIbIsIpv6) {
  const std::string warn =
      "gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation failed : Address "
      "family not supported by protocol\n";
  const RuleOutcome ib = log_rule(
      kId,
      log_text("gpu7:4105:4372 [0] NCCL INFO Ring 00 : 1 -> 4 [receive] via NET/IB/1/GDRDMA\n" +
               warn));
  ASSERT_EQ(ib.findings.size(), 1u);
  EXPECT_NE(ib.findings[0].cause.find("IPv6 is disabled"), std::string::npos);
  EXPECT_EQ(
      ib.findings[0].cause.rfind("\"Address family not supported by protocol\" in a job whose "
                                 "InfiniBand transport is in use",
                                 0),
      0u)
      << ib.findings[0].cause;
  const RuleOutcome bare = log_rule(kId, log_text(warn));
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_NE(bare.findings[0].cause.find("no usable IP interface"), std::string::npos);
  EXPECT_EQ(bare.findings[0].cause.rfind("\"Address family not supported by protocol\" from a "
                                         "release before 2.16",
                                         0),
            0u)
      << bare.findings[0].cause;
}

// NCCL 2.4's ring fallback: a transport the job turned off is the reading when the log shows it;
// otherwise the 2.4 ring search's known limits, fixed by 2.5's topology search (NVIDIA/nccl#262).
TEST(NcclMessage, RingFallbackOf24ReadsTheSettingsItShows) {
  const std::string warn =
      "h:1:1 [0] misc/rings.cu:319 NCCL WARN Could not create rings, falling back on simple "
      "ring.\n";
  const RuleOutcome bare = log_rule(kId, log_text(warn));
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_EQ(bare.findings[0].cause.rfind("A topology 2.4's ring heuristics", 0), 0u)
      << bare.findings[0].cause;
  EXPECT_NE(bare.findings[0].fix.find("2.5 or later"), std::string::npos);
  const RuleOutcome off = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n" + warn));
  ASSERT_FALSE(off.findings.empty());
  EXPECT_EQ(off.findings[0].cause.rfind("The job turned a transport off", 0), 0u)
      << off.findings[0].cause;
}

// NCCL 2.30.7 replaces a failed PCIe link query with 16 GT/s x16 (src/graph/xml.cc): a note;
// another NVML call's failure still fails init.
TEST(NcclMessage, PcieLinkQueryFailureIsANoteOtherNvmlFailuresAreErrors) {
  const RuleOutcome link = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\n"
                    "h:1:1 [0] misc/nvmlwrap.cc:355 NCCL WARN nvmlDeviceGetCurrPcieLinkWidth() "
                    "failed: Not Supported\n"));
  ASSERT_EQ(link.findings.size(), 1u);
  EXPECT_EQ(link.findings[0].severity, Severity::kInfo);
  EXPECT_NE(link.findings[0].message.find("[nvml-call-failed]"), std::string::npos)
      << link.findings[0].message;
  EXPECT_EQ(link.findings[0].cause.rfind("NVML could not report a GPU's current PCIe link", 0), 0u);
  const RuleOutcome other = log_rule(
      kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\n"
                    "h:1:1 [0] misc/nvmlwrap.cc:166 NCCL WARN nvmlDeviceGetHandleByIndex(0) "
                    "failed: Unknown Error\n"));
  ASSERT_EQ(other.findings.size(), 1u);
  EXPECT_EQ(other.findings[0].severity, Severity::kError);
  EXPECT_NE(other.findings[0].message.find("[nvml-call-failed]"), std::string::npos);
  EXPECT_EQ(other.findings[0].cause.rfind("A GPU is in a bad state", 0), 0u);
  // A bus id NVML does not know (NVIDIA/nccl#1529: two containers on one host, 4 GPUs each): a
  // GPU of another rank of this host hash that this process cannot see, not a GPU to drain.
  const RuleOutcome hidden =
      log_rule(kId, log_text("h:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN "
                             "nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
                             "h:6896:7103 [1] NCCL INFO graph/xml.cc:850 -> 2\n"));
  ASSERT_EQ(hidden.findings.size(), 1u);
  EXPECT_EQ(hidden.findings[0].cause.rfind("NVML has no GPU at that bus id", 0), 0u)
      << hidden.findings[0].cause;
  EXPECT_EQ(hidden.findings[0].fix.find("RMA"), std::string::npos);
}

// Google's NCCL Fast Socket plugin (data/nccl-kb/net-plugin-gcp-fastsocket.yaml): its flow
// placement giving up is a warning with the plugin's own switch as the fix (the lines of
// google/nccl-fastsocket#4, which prints __FILE__); a data socket's zero-copy send refused with
// ENOBUFS reads the optmem cause. GPUDirect-TCPX's own NAPI text stays its entry's.
TEST(NcclMessage, ReadsNcclFastSocketsFlowPlacementAndDataSockets) {
  RuleOutcome o = log_rule(
      kId,
      log_text("a-1:4024:4048 [0] net_fastsocket.cc:765 NCCL WARN Cannot get incoming CPU.\n"
               "a-0:4300:4325 [0] net_fastsocket.cc:785 NCCL WARN Maximum retry reached for "
               "accept 3.\n"
               "a-0:4300:4325 [0] NCCL INFO NET/FastSocket : Connected after 1000 retries.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("[fastsocket-flow-placement]"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_FLOW_PLACEMENT_ENABLE=0"), std::string::npos);
  o = log_rule(kId, log_text("b:1:2 [0] int taskProgress(int, ncclSocketTask*):1022 NCCL WARN Call "
                             "to socket op 0 flags 4000040 failed : No buffer space available\n"
                             "b:1:2 [0] int taskProgress(int, ncclSocketTask*):1025 NCCL WARN "
                             "Turning off TX zero copy\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("[fastsocket-data-socket-failed]"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("optmem_max"), std::string::npos);
  o = log_rule(kId, log_text("c:1:2 [0] int getSoIncomingNapiId(int):319 NCCL WARN Cannot get "
                             "incoming NAPI_ID.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[tcpx-socket-setup-failed]"), std::string::npos);
  // The texts GPUDirect-TCPX keeps from Fast Socket read with TCPX's own cause: the incoming CPU
  // is only logged there (a note), and its GPU sends need SO_ZEROCOPY (an error).
  o = log_rule(kId, log_text("c:1:2 [0] int getSoIncomingCpu(int):331 NCCL WARN Cannot get "
                             "incoming CPU.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(o.findings[0].fix.find("NCCL_FLOW_PLACEMENT_ENABLE"), std::string::npos);
  o = log_rule(kId, log_text("c:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin GPUDirectTCPX "
                             "(v7)\nc:1:2 [0] void setSockZcopy(int):995 NCCL WARN Cannot set "
                             "socket to SO_ZEROCOPY\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  o = log_rule(kId, log_text("c:1:2 [0] void setSockZcopy(int):444 NCCL WARN Cannot set socket "
                             "to SO_ZEROCOPY\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
}

}  // namespace
}  // namespace trainready::test
