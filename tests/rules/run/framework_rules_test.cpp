// The framework-* rules (issue 30 item 3): each fires on a framework's own lines and stays quiet
// when NCCL's lines already explain the failure, or when nothing is wrong.
#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

NcclRunFacts shapes(const std::string& name) {
  return analyze_nccl_logs({std::string(TR_TEST_DATA) + "/nccl-shapes/" + name});
}

TEST(FrameworkNcclError, FiresOnVllmsErrorWithoutNcclLines) {
  RuleOutcome o = log_rule("framework-nccl-error", log_text("RuntimeError: NCCL error: invalid "
                                                            "argument (run with NCCL_DEBUG=WARN "
                                                            "for details)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("vLLM reports that NCCL failed with ncclInvalidArgument"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 1);
}

// NVIDIA/nccl#476: PyTorch built with a NCCL older than 2.10 has no bfloat16.
TEST(FrameworkNcclError, DataTypeTheNcclInUseLacks) {
  RuleOutcome o = log_rule("framework-nccl-error",
                           log_text("RuntimeError: Input tensor data type is not supported for "
                                    "NCCL process group: BFloat16\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("cannot hand BFloat16 tensors to NCCL"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].fix.find("NCCL 2.10 or newer"), std::string::npos);
}

TEST(FrameworkNcclError, QuietWhenNcclsOwnLinesGiveTheReading) {
  // NCCL's WARN names the failing call (the knowledge base reads it): nothing left to rank.
  EXPECT_TRUE(log_rule("framework-nccl-error",
                       log_text("NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to "
                                "4194660 bytes\nRuntimeError: NCCL error: unhandled system error "
                                "(run with NCCL_DEBUG=INFO for details)\n"))
                  .findings.empty());
  EXPECT_TRUE(log_rule("framework-nccl-error",
                       log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"))
                  .findings.empty());
}

// The vLLM docs' example: "unhandled system error" and no NCCL line. nccl-system-error reads it
// with the ranked causes (the node's /dev/shm first when the log shows no second host); this rule
// stays quiet, so the failure has one account.
TEST(FrameworkNcclError, SystemErrorWithoutContextRanksTheNodeFirst) {
  NcclRunFacts f = shapes("vllm-docs-pynccl-unhandled-system-error.log");
  EXPECT_TRUE(log_rule("framework-nccl-error", f).findings.empty());
  RuleOutcome o = log_rule("nccl-system-error", f);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.cause.find("neither a container nor a second host"), std::string::npos) << x.cause;
  EXPECT_NE(x.cause.find("Most likely /dev/shm"), std::string::npos) << x.cause;
  EXPECT_NE(x.cause.find("df -h /dev/shm"), std::string::npos);
  EXPECT_EQ(x.rank, 45);
}

// NCCL user guide, Troubleshooting > Docker: inside a container /dev/shm is the first suspect.
TEST(FrameworkNcclError, SystemErrorInAContainerRanksShmFirst) {
  RuleOutcome o = log_rule(
      "nccl-system-error",
      log_text("$ docker run --gpus all -it nvcr.io/nvidia/pytorch:23.10-py3\n"
               "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, "
               "unhandled system error, NCCL version 2.7.8\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.cause.find("The log shows a container (\"docker run\", line 1)"), std::string::npos)
      << x.cause;
  EXPECT_NE(x.cause.find("Most likely /dev/shm"), std::string::npos);
  EXPECT_EQ(x.fix.rfind("Start the container with --shm-size=1g", 0), 0u) << x.fix;
  EXPECT_EQ(x.evidence.back().where.line, 1);  // the container line, as evidence
}

// Across hosts the network interface and the firewall come first.
TEST(FrameworkNcclError, SystemErrorAcrossHostsRanksTheInterfaceFirst) {
  RuleOutcome o = log_rule(
      "nccl-system-error",
      log_text("torchrun --nnodes=2 --nproc_per_node=8 --rdzv_endpoint=10.0.0.1:29500 train.py\n"
               "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for "
               "details)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.cause.find("several hosts (\"--nnodes\", line 1)"), std::string::npos) << x.cause;
  EXPECT_NE(x.cause.find("Most likely NCCL's sockets"), std::string::npos) << x.cause;
  EXPECT_NE(x.cause.find("NCCL_DEBUG_SUBSYS=INIT,NET"), std::string::npos);
  EXPECT_LT(x.cause.find("firewall"), x.cause.find("/dev/shm"));
  EXPECT_EQ(x.fix.rfind("Set NCCL_SOCKET_IFNAME", 0), 0u) << x.fix;
}

// An issue title that names only the result, and says "multi-machine" (多机).
TEST(FrameworkNcclError, BareInternalErrorAcrossHostsNamesTheInterface) {
  RuleOutcome o =
      log_rule("framework-nccl-error", log_text("\xe5\xa4\x9a\xe6\x9c\xba\xe5\xa4\x9a\xe5\x8d\xa1 "
                                                "fine-tuning fails with ncclInternalError\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message.rfind("NCCL failed with ncclInternalError", 0), 0u)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].cause.find("Most likely the hosts found no common usable network "
                                     "interface"),
            std::string::npos)
      << o.findings[0].cause;
  // Without the second host, a bug of the release comes first.
  RuleOutcome one =
      log_rule("framework-nccl-error", log_text("fine-tuning fails with ncclInternalError\n"));
  ASSERT_EQ(one.findings.size(), 1u);
  EXPECT_NE(one.findings[0].cause.find("Most likely a check inside NCCL failed: a bug"),
            std::string::npos)
      << one.findings[0].cause;
}

// vLLM's custom all-reduce kernel (csrc/custom_all_reduce.cuh CUDACHECK), not NCCL.
TEST(FrameworkCustomAllReduce, PeerAccessUnsupportedDisablesTheCustomKernel) {
  const std::string line =
      "Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer "
      "access is not supported between these two devices'\n";
  RuleOutcome o = log_rule("framework-custom-allreduce-failed", log_text(line + line));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("vLLM's custom all-reduce (its own kernel, not NCCL) failed"),
            std::string::npos)
      << x.message;
  EXPECT_NE(x.cause.find("cannot access each other's memory"), std::string::npos);
  EXPECT_NE(x.fix.find("disable_custom_all_reduce=True"), std::string::npos);
  EXPECT_NE(x.evidence[0].text.find("2 lines like it"), std::string::npos);
}

TEST(FrameworkCustomAllReduce, QuietOnAnotherProgramsCudaCheck) {
  EXPECT_TRUE(log_rule("framework-custom-allreduce-failed",
                       log_text("Failed: Cuda error example.cu:42 'peer access is not supported "
                                "between these two devices'\n"))
                  .findings.empty());
}

// NCCL troubleshooting, PCI ACS: a hang between PCIe-only GPUs, from a person's explicit words.
TEST(FrameworkPcieHang, DeadlockOnPcieGpusIsAcsOrIommu) {
  NcclRunFacts f = log_text(
      "[Bug]: ncclAllReduce deadlocks on 2x RTX 5880 Ada (PCIe PHB topology, no NVLink)\n");
  RuleOutcome o = log_rule("framework-pcie-collective-hang", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("Access Control Services (ACS)"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("lspci -vvv | grep ACSCtl"), std::string::npos);
  EXPECT_TRUE(has_nccl_output(f));  // read, not refused
}

TEST(FrameworkPcieHang, QuietWithoutAllThreeWords) {
  for (const char* text : {
           "training hangs at the first allreduce\n",                 // no PCIe
           "ncclAllReduce on 2x RTX 5880 Ada (PCIe PHB topology)\n",  // no hang
           "allreduce hangs between two H100 with NVLink over PCIe switches\n",
           "change the PHB setting of the nccl allreduce\n",  // "hang" inside a word
       })
    EXPECT_TRUE(log_rule("framework-pcie-collective-hang", log_text(text)).findings.empty())
        << text;
}

// A SIGBUS whose backtrace runs through NCCL (pipedream#76's UCX handler output): /dev/shm.
// rccl-tests on AMD GPUs prints nccl-tests' own failure line (ROCm/rccl-tests#50): the upgrade
// is RCCL's, from ROCm, not NVIDIA's packages; a log on NVIDIA GPUs keeps NVIDIA's.
TEST(FrameworkNcclError, AnRcclLogIsToldToUpgradeRccl) {
  const std::string tail =
      "sharbox-ultra: Test NCCL failure common.cu:1285 'internal error - please report this "
      "issue to the NCCL developers'\n";
  RuleOutcome amd = log_rule(
      "framework-nccl-error",
      log_text("#   Rank  0 Pid 117738 on sharbox-ultra device  0 [0000:63:00.0] AMD Instinct "
               "MI210\n" +
               tail));
  ASSERT_EQ(amd.findings.size(), 1u);
  EXPECT_NE(amd.findings[0].fix.find("pgrade RCCL (a newer ROCm release"), std::string::npos)
      << amd.findings[0].fix;
  EXPECT_EQ(amd.findings[0].fix.find("nvidia-nccl-cu12"), std::string::npos) << amd.findings[0].fix;
  RuleOutcome nv = log_rule(
      "framework-nccl-error",
      log_text("#   Rank  0 Pid 117738 on sharbox-ultra device  0 [0000:63:00.0] NVIDIA H100 "
               "80GB HBM3\n" +
               tail));
  ASSERT_EQ(nv.findings.size(), 1u);
  EXPECT_NE(nv.findings[0].fix.find("nvidia-nccl-cu12"), std::string::npos) << nv.findings[0].fix;
}

TEST(FrameworkNcclError, SigbusInsideNcclIsSharedMemory) {
  RuleOutcome o = log_rule(
      "framework-nccl-error",
      log_text("[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical "
               "address)\n==== backtrace (tid:   3095) ====\n"
               " 2 0x000000000007587d ncclGroupEnd()  ???:0\n"
               " 5 0x00000000000489b1 \?\?\?()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  // ncclGroupEnd beside an unnamed libnccl frame: the nearest exported name, said so.
  EXPECT_NE(o.findings[0].message.find("SIGBUS inside NCCL (libnccl without its symbol table: "
                                       "ncclGroupEnd name"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].cause.find("/dev/shm"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--shm-size"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.size(), 3u);
}

// A SIGBUS with no backtrace, in a log of NCCL's lines and no WARN (deepspeedai/DeepSpeed#2638's
// excerpt): a mapped file /dev/shm could not back; the process NCCL's lines name by its pid is
// evidence. A WARN the knowledge base reads (the shm segment it failed to create) is that reading.
TEST(FrameworkNcclError, SigbusBesideNcclsLinesIsSharedMemory) {
  const std::string nccl =
      "cf0b62962198:378935:382528 [3] NCCL INFO Connected all trees\n"
      "cf0b62962198:378934:382525 [2] NCCL INFO 24 coll channels, 32 p2p channels, 32 p2p "
      "channels per peer\n";
  const std::string bus =
      "[cf0b62962198:378934:0:382579] Caught signal 7 (Bus error: nonexistent physical "
      "address)\n";
  RuleOutcome o = log_rule("framework-nccl-error", log_text(nccl + bus));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("SIGBUS"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("/dev/shm"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--shm-size"), std::string::npos);
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[1].where.line, 2);
  EXPECT_TRUE(log_rule("framework-nccl-error",
                       log_text(nccl +
                                "cf0b62962198:378934:382525 [2] misc/shmutils.cc:70 NCCL WARN "
                                "Error while creating shared memory segment /dev/shm/nccl-x "
                                "(size 9637888)\n" +
                                bus))
                  .findings.empty());
  EXPECT_TRUE(log_rule("framework-nccl-error", log_text(bus)).findings.empty());
  // mpirun's (prterun's) report of the rank that died: the same signal (Open MPI, PRRTE
  // "proc-aborted-strsignal").
  RuleOutcome mp = log_rule(
      "framework-nccl-error",
      log_text(nccl +
               "mpirun noticed that process rank 1 with PID 113190 on node 4c217144f0b1 exited on "
               "signal 7 (Bus error).\n"));
  ASSERT_EQ(mp.findings.size(), 1u);
  EXPECT_NE(mp.findings[0].message.find("SIGBUS"),
            std::string::npos);  // The shell's report of the same (bash: "Bus error (core dumped)")
                                 // is read; a single process
  // (nccl-tests -g 16, NVIDIA/nccl-tests#143) shares no /dev/shm segment with another: no reading.
  RuleOutcome sh = log_rule("framework-nccl-error", log_text(nccl + "Bus error (core dumped)\n"));
  ASSERT_EQ(sh.findings.size(), 1u);
  EXPECT_NE(sh.findings[0].message.find("SIGBUS"), std::string::npos);
  EXPECT_TRUE(log_rule("framework-nccl-error",
                       log_text("nccl-cuda118:27:52 [5] NCCL INFO 24 coll channels, 32 p2p "
                                "channels, 32 p2p channels per peer\n"
                                "nccl-cuda118:27:50 [3] NCCL INFO Connected all trees\n"
                                "Bus error (core dumped)\n"))
                  .findings.empty());
  EXPECT_TRUE(log_rule("framework-nccl-error", log_text(nccl + "A Bus error occurred in my code\n"))
                  .findings.empty());
}

TEST(FrameworkNcclError, OtherSignalsAskForTheBacktrace) {
  RuleOutcome o =
      log_rule("framework-nccl-error",
               log_text("Caught signal 11 (Segmentation fault: address not mapped)\n"
                        "#3 0x00007f in ncclProxyService(void*) () from libnccl.so.2\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("/dev/shm"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_DEBUG=INFO"), std::string::npos);
}

// NVIDIA/nccl#1996: a frame of NCCL's RAS code (its address glued to the name, full-width
// parentheses) names the module and the switch that takes it out of the run.
TEST(FrameworkNcclError, ACrashInTheRasThreadNamesNcclRasEnable) {
  RuleOutcome o =
      log_rule("framework-nccl-error", shapes("nccl1996-ras-segfault-ucx-backtrace.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find(
                "SIGSEGV inside NCCL's RAS service (rasMsgHandlePeersUpdate in the backtrace)"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].fix.find("NCCL_RAS_ENABLE=0"), std::string::npos);
}

// NVIDIA/nccl#1538: only exported names (pncclRedOpDestroy at three offsets, ncclRecv) and
// "???:0": a libnccl without its symbol table, whose names do not say where it crashed.
TEST(FrameworkNcclError, ExportedNamesAloneAreNotTheCrashingFunction) {
  RuleOutcome o =
      log_rule("framework-nccl-error", shapes("nccl1538-segfault-stripped-libnccl-backtrace.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("libnccl without its symbol table: pncclRedOpDestroy, "
                                       "ncclRecv name the nearest exported function"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].fix.find("with symbols"), std::string::npos);
  // One exported name at two addresses: the nearest-symbol caveat too.
  RuleOutcome twice = log_rule(
      "framework-nccl-error", log_text("Caught signal 11 (Segmentation fault: address not mapped)\n"
                                       " 1 0x0000000000050dc2 pncclRedOpDestroy()  ???:0\n"
                                       " 2 0x0000000000051527 pncclRedOpDestroy()  ???:0\n"));
  ASSERT_EQ(twice.findings.size(), 1u);
  EXPECT_NE(twice.findings[0].message.find("without its symbol table: pncclRedOpDestroy name"),
            std::string::npos)
      << twice.findings[0].message;
  // One exported name alone, with nothing else of NCCL's: no caveat to make.
  RuleOutcome one = log_rule("framework-nccl-error",
                             log_text("Caught signal 11 (Segmentation fault: address not mapped)\n"
                                      " 3 0x00000000000512a1 ncclCommInitRank()  ???:0\n"));
  ASSERT_EQ(one.findings.size(), 1u);
  EXPECT_NE(one.findings[0].message.find("(ncclCommInitRank in the backtrace)"), std::string::npos)
      << one.findings[0].message;
}

// NVIDIA/nccl#1363: Open MPI's handler ("Signal: Segmentation fault (11)") under a UCX backtrace
// of a NCCL built with symbols; NVIDIA/nccl#782: gdb's frames ("in ncclIbDeregMr (comm=...").
TEST(FrameworkNcclError, OpenMpisSignalLineAndGdbFrames) {
  RuleOutcome o = log_rule(
      "framework-nccl-error",
      log_text("24 0x0000000000081f9a ncclTopoCompute()  /home/administrator/nccl/src/graph/"
               "search.cc:992\n"
               "[mbay-csp2:627483] *** Process received signal ***\n"
               "[mbay-csp2:627483] Signal: Segmentation fault (11)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("SIGSEGV inside NCCL's topology detection (ncclTopoCompute"),
            std::string::npos)
      << o.findings[0].message;
  RuleOutcome g =
      log_rule("framework-nccl-error",
               log_text("Thread 5 \"python\" received signal SIGSEGV, Segmentation fault.\n"
                        "#0  0x00001554ff97c269 in ncclIbDeregMr (comm=0x0, mhandle=0x0) at "
                        "transport/net_ib.cc:906\n"));
  ASSERT_EQ(g.findings.size(), 1u);
  EXPECT_NE(g.findings[0].message.find("InfiniBand / RoCE transport (ncclIbDeregMr"),
            std::string::npos)
      << g.findings[0].message;
}

TEST(FrameworkNcclError, QuietOnASignalOutsideNccl) {
  EXPECT_TRUE(log_rule("framework-nccl-error",
                       log_text("Caught signal 7 (Bus error: nonexistent physical address)\n"
                                " 2 0x000000000007587d PyObject_Call()  ???:0\n"))
                  .findings.empty());
}

// nccl-tests' NCCLCHECK line with an ncclResult the nccl-* rules only quote back: the result's
// meaning from NCCL's sources (bootstrap.cc / socket.h return ncclInternalError on v2.8).
TEST(FrameworkNcclError, NcclTestsInternalError) {
  RuleOutcome o = log_rule("framework-nccl-error",
                           log_text("Test NCCL failure common.cu:959 'internal error - please "
                                    "report this issue to the NCCL developers / '\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("nccl-tests reports that NCCL failed with "
                                       "ncclInternalError"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].cause.find("NCCL_SOCKET_IFNAME"), std::string::npos);
}

// nccl-tests' CUDACHECK on its own cudaMalloc: the harness's buffers, never NCCL's (no
// NCCL_BUFFSIZE advice); another CUDA error is read without claiming NCCL made the call.
TEST(FrameworkNcclError, NcclTestsCudaFailureIsTheHarnesss) {
  RuleOutcome o = log_rule("framework-nccl-error",
                           log_text("# Using devices\n"
                                    "node1: Test CUDA failure common.cu:892 'out of memory'\n"
                                    " .. node1 pid 1234: Test failure common.cu:401\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("nccl-tests could not allocate its buffers"), std::string::npos)
      << x.message;
  EXPECT_NE(x.fix.find("Lower -e"), std::string::npos) << x.fix;
  EXPECT_EQ((x.cause + x.fix).find("NCCL_BUFFSIZE"), std::string::npos);
  RuleOutcome d = log_rule("framework-nccl-error",
                           log_text("node1: Test CUDA failure common.cu:761 'invalid device "
                                    "ordinal'\n"));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].cause.find("not a call inside NCCL"), std::string::npos);
  EXPECT_NE(d.findings[0].cause.find("not visible"), std::string::npos);
}

// PyTorch's own watchdog thread (c10d::ProcessGroupNCCL::ncclCommWatchdog) is not NCCL's code.
// ProcessGroupNCCL's watchdog line on a collective that failed or timed out, in both wordings
// (sgl-project/sglang#10216's, NVIDIA/nccl#1409's): the communicator is aborted after it.
TEST(FrameworkNcclError, WatchdogDetectedAFailure) {
  for (const char* line :
       {"[rank1]:[E909 08:45:30.126335825 ProcessGroupNCCL.cpp:2252] [PG ID 2 PG GUID 3 Rank 1]  "
        "failure detected by watchdog at work sequence id: 40231 PG status: last enqueued work: "
        "40267, last completed work: 40230\n",
        "[rank7]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 7] "
        "Exception (either an error or timeout) detected by watchdog at work: 80078, last enqueued "
        "NCCL work: 80078, last completed NCCL work: 80077.\n"}) {
    RuleOutcome o = log_rule("framework-nccl-error", log_text(line));
    ASSERT_EQ(o.findings.size(), 1u) << line;
    EXPECT_NE(o.findings[0].cause.find("aborted its NCCL communicator"), std::string::npos)
        << o.findings[0].cause;
  }
}

TEST(FrameworkNcclError, QuietOnASignalInPyTorchsWatchdog) {
  EXPECT_TRUE(
      log_rule("framework-nccl-error",
               log_text("Caught signal 7 (Bus error: nonexistent physical address)\n"
                        "#4 0x00007f1c2a4b1e10 in c10d::ProcessGroupNCCL::ncclCommWatchdog()"
                        " () from /opt/torch/lib/libtorch_cuda.so\n"))
          .findings.empty());
}

// The c10::Error ProcessGroupNCCL's watchdog thread builds when it ends on what it caught
// ("Exception raised from ncclCommWatchdog at ..."): the process is taken down on a collective
// that failed or timed out; the line before says which.
TEST(FrameworkNcclError, TheWatchdogsOwnExceptionEndsTheProcess) {
  RuleOutcome o = log_rule(
      "framework-nccl-error",
      log_text("Exception raised from ncclCommWatchdog at "
               "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1186 (most recent call "
               "first):\n"
               "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 "
               "(0x7fab1c8d7d87 in /usr/local/lib/python3.8/dist-packages/torch/lib/libc10.so)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("watchdog ended the process"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("SIGABRT"), std::string::npos);
}

TEST(FrameworkNcclError, InvalidUsageNamesRanksOnTheSameGpu) {
  RuleOutcome o = log_rule(
      "framework-nccl-error",
      log_text("NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, "
               "invalid usage, NCCL version 2.17.1 ncclInvalidUsage: This usually reflects invalid "
               "usage of NCCL library.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("two ranks on the same GPU"), std::string::npos);
}

// NCCL 2.30 still refuses several ranks on one GPU unless NCCL_MULTI_RANK_GPU_ENABLE=1
// (src/graph/topo.cc:1976-1980 @ v2.30.3-1): on 2.30 invalid usage is still read as two ranks
// on one GPU first, with the variable named.
TEST(FrameworkNcclError, InvalidUsageOn230NamesTheMultiRankSwitch) {
  RuleOutcome o = log_rule(
      "framework-nccl-error",
      log_text("NCCL version 2.30.3+cuda13.0\n"
               "NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, "
               "invalid usage, NCCL version 2.30.3 ncclInvalidUsage: This usually reflects invalid "
               "usage of NCCL library.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("most often two ranks on the same GPU"), std::string::npos)
      << o.findings[0].cause;
  EXPECT_NE(o.findings[0].cause.find("NCCL_MULTI_RANK_GPU_ENABLE=1"), std::string::npos);
}

TEST(FrameworkWatchdogHang, FiresOnTheHeartbeatMonitor) {
  for (const char* name :
       {"llamafactory6953-heartbeat-monitor-timeout.log", "vlmr1-257-watchdog-stuck-wrapped.log"}) {
    RuleOutcome o = log_rule("framework-watchdog-hang", shapes(name));
    ASSERT_EQ(o.findings.size(), 1u) << name;
    EXPECT_NE(o.findings[0].message.find(" s and ended"), std::string::npos)
        << o.findings[0].message;
  }
}

TEST(FrameworkWatchdogHang, QuietOnAWatchdogTimeoutAlone) {
  EXPECT_TRUE(
      log_rule(
          "framework-watchdog-hang",
          log_fixture("nccl-debug/mlengineering-pytorch-watchdog-collective-timeout-desync.log"))
          .findings.empty());
}

TEST(FrameworkRendezvousFailed, FiresOnTheStoreBasedBarrier) {
  RuleOutcome o =
      log_rule("framework-rendezvous-failed", shapes("ezflow194-store-based-barrier-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("(1/2 joined)"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("never arrived"), std::string::npos);
}

TEST(FrameworkRendezvousFailed, MoreWorkersThanTheWorldSize) {
  RuleOutcome o = log_rule(
      "framework-rendezvous-failed",
      log_text("Timed out initializing process group in store based barrier on rank: 0, for key: "
               "store_based_barrier_key:1 (world_size=2, worker_count=4, timeout=0:02:00)\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("two jobs share"), std::string::npos);
}

// PyTorch's Gloo group bound to loopback (its host name resolves to no local address) and its
// full mesh failed (vllm-project/vllm#7074, a Ray worker on a second node): GLOO_SOCKET_IFNAME,
// not NCCL. The warning alone, on one host, is no finding.
TEST(FrameworkRendezvousFailed, GlooOnLoopbackIsGlooSocketIfname) {
  const std::string warn =
      "(RayWorkerWrapper pid=1978, ip=10.41.0.8) [rank9]:[W ProcessGroupGloo.cpp:721] Warning: "
      "Unable to resolve hostname to a (local) address. Using the loopback address as fallback. "
      "Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. (function "
      "operator())\n";
  const RuleOutcome o = log_rule(
      "framework-rendezvous-failed",
      log_text(warn +
               "(RayWorkerWrapper pid=1890, ip=10.41.0.8) [rank8]:[E ProcessGroupGloo.cpp:144] "
               "Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/"
               "pair.cc:144] no error\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("Gloo"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("bound 127.0.0.1"), std::string::npos) << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.rfind("Set GLOO_SOCKET_IFNAME", 0), 0u);
  EXPECT_TRUE(log_rule("framework-rendezvous-failed", log_text(warn)).findings.empty());
  // The fallback alone in a log of two hosts: a warning, its confirmation the warning's absence.
  const RuleOutcome hosts =
      log_rule("framework-rendezvous-failed",
               log_text("node1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                        "node2:200:200 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n" +
                        warn));
  ASSERT_EQ(hosts.findings.size(), 1u);
  EXPECT_EQ(hosts.findings[0].severity, Severity::kWarning);
  EXPECT_NE(hosts.findings[0].fix.find("the loopback warning is gone"), std::string::npos);
}

TEST(FrameworkRendezvousFailed, QuietOnAHealthyLog) {
  EXPECT_TRUE(log_rule("framework-rendezvous-failed",
                       log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

TEST(FrameworkBackendNotNccl, FiresOnGlooForAGpuJob) {
  RuleOutcome o =
      log_rule("framework-backend-not-nccl", shapes("accelerate-multi-gpu-backend-gloo.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("Accelerate initialised the 'gloo' backend"),
            std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.size(), 2u);
}

TEST(FrameworkBackendNotNccl, FiresOnABuildWithoutNccl) {
  RuleOutcome o =
      log_rule("framework-backend-not-nccl",
               log_text("RuntimeError: Distributed package doesn't have NCCL built in\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  // The traceback's raising line, two literals as in distributed_c10d.py, pasted alone
  // (PlayVoice/whisper-vits-svc#97, holdout9).
  EXPECT_EQ(log_rule("framework-backend-not-nccl",
                     log_text("    raise RuntimeError(\"Distributed package doesn't have NCCL \" "
                              "\"built in\")\n"))
                .findings.size(),
            1u);
}

// jax-ml/jax#18391: XLA's NCCL stub could not load libnccl (xla/tsl/cuda/nccl_stub.cc).
TEST(FrameworkBackendNotNccl, FiresWhenXlaCannotLoadNccl) {
  RuleOutcome o = log_rule("framework-backend-not-nccl",
                           shapes("jax18391-xla-unable-to-load-nccl-library.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("XLA (JAX or TensorFlow) could not load the NCCL library"),
            std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("nvidia-nccl-cu12"), std::string::npos);
  // NCCL's own error text for a failed call is not this stub's.
  EXPECT_TRUE(log_rule("framework-backend-not-nccl",
                       log_text("NCCL operation ncclCommInitRank failed: unhandled system "
                                "error\n"))
                  .findings.empty());
}

TEST(FrameworkBackendNotNccl, QuietForACpuJobOrNccl) {
  EXPECT_TRUE(
      log_rule("framework-backend-not-nccl", shapes("accelerate-multi-cpu-backend-gloo.log"))
          .findings.empty());
  EXPECT_TRUE(log_rule("framework-backend-not-nccl",
                       log_text("Distributed environment: MULTI_GPU  Backend: nccl\n"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
