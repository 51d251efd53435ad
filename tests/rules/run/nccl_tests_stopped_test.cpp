#include <gtest/gtest.h>

#include "core/input_error.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-stopped";

// nccl-tests' own lines around NCCL_DEBUG=INFO output, in the harness's order (src/common.cu):
// device list, communicator init (NCCL's lines), table header, rows, summary.
const std::string kDevices =
    "# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20\n"
    "#\n"
    "# Using devices\n"
    "#   Rank  0 Pid  15833 on gpu-a device  0 [0x02] NVIDIA RTX A6000\n"
    "#   Rank  1 Pid  15833 on gpu-a device  1 [0x82] NVIDIA RTX A6000\n";
const std::string kInit =
    "gpu-a:15833:15833 [0] NCCL INFO Bootstrap : Using eth0:10.2.3.32<0>\n"
    "gpu-a:15833:15833 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.3.32<0>\n"
    "gpu-a:15833:15833 [1] NCCL INFO Setting affinity for GPU 1 to ff00ff\n";
const std::string kHeader =
    "#                                                       out-of-place                       "
    "in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)       \n";
const std::string kRows =
    "           8             2     float     sum      -1    10.00    0.00    0.00      0    "
    "10.00    0.00    0.00      0\n"
    "     1048576        262144     float     sum      -1    80.00   13.11   13.11      0    "
    "80.00   13.11   13.11      0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 6.5 \n";

// As `trainready nccl` does: nccl-tests' lines are read beside the log when it holds any, and
// a lone run header the reader refuses leaves the log alone.
RuleOutcome judge(const std::string& text) {
  NcclRunFacts f = log_text(text);
  if (f.nccl_tests_file.empty()) return run_run_rule(kId, &f, nullptr);
  try {
    NcclTestsFacts t = parse_nccl_tests(text, "t.log");
    return run_run_rule(kId, &f, &t);
  } catch (const InputError&) {
    return run_run_rule(kId, &f, nullptr);
  }
}

// One GPU listed and a communicator of one rank: the bootstrap's connection to the host itself is
// all init does. An excerpt that kept one device line of two (NVIDIA/nccl-tests, tinygrad
// open-gpu-kernel-modules#35: "#  Rank  1 ... device 1", then ncclCommInitAll "nranks 2") is not
// one GPU.
TEST(NcclTestsStopped, OneGpuOnlyWhenNoCommunicatorHasMoreRanks) {
  const std::string one =
      "#  Rank  0 Group  0 Pid  28273 on lam-0 device  0 [0000:c3:00] NVIDIA GeForce RTX 5090 D\n"
      "lam-0:28273:28337 [0] NCCL INFO ncclCommInitAll comm 0x62fb8090ffb0 rank 0 nranks 1 "
      "cudaDev 0 nvmlDev 0 busId c3000 commId 0x5ff11f9dc5c16162 - Init START\n";
  RuleOutcome o = judge(one);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("nccl-tests listed one GPU"), std::string::npos)
      << o.findings[0].cause;
  const std::string two =
      "#  Rank  1 Group  0 Pid  28273 on lam-0 device  1 [0000:ca:00] NVIDIA GeForce RTX 5090 D\n"
      "lam-0:28273:28337 [0] NCCL INFO ncclCommInitAll comm 0x62fb8090ffb0 rank 0 nranks 2 "
      "cudaDev 0 nvmlDev 0 busId c3000 commId 0x5ff11f9dc5c16162 - Init START\n"
      "lam-0:28273:28338 [1] NCCL INFO ncclCommInitAll comm 0x62fb809979a0 rank 1 nranks 2 "
      "cudaDev 1 nvmlDev 1 busId ca000 commId 0x5ff11f9dc5c16162 - Init START\n";
  o = judge(two);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("nccl-tests listed one GPU"), std::string::npos)
      << o.findings[0].cause;
}

TEST(NcclTestsStopped, FiresWhenTheLogEndsInCommunicatorInitOnOneHost) {
  RuleOutcome o = judge(kDevices + kInit);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  // No "Init START" line: a hang and an excerpt cut after the device list look the same.
  EXPECT_EQ(x.severity, Severity::kWarning);
  EXPECT_NE(x.message.find("or the excerpt was cut there"), std::string::npos) << x.message;
  EXPECT_NE(x.message.find("inside NCCL communicator init"), std::string::npos) << x.message;
  EXPECT_EQ(x.evidence[0].where.line, 4);
  EXPECT_NE(x.cause.find("Access Control Services (ACS)"), std::string::npos) << x.cause;
  EXPECT_EQ(x.fix.rfind("Confirm with NCCL_P2P_DISABLE=1", 0), 0u) << x.fix;
}

// One GPU in all (NVIDIA/nccl-tests#217: -g 1, no MPI): no peer, so no P2P path to blame; init
// still connects over TCP to the host's own address (NCCL's bootstrap), which a firewall or
// security software can block. Two GPUs keep the P2P reading.
TEST(NcclTestsStopped, OneGpuStopsInTheBootstrapNotOnPeerToPeer) {
  const std::string one =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid  69438 on gpu-a device  0 [0x01] NVIDIA RTX A6000\n"
      "gpu-a:69438:69438 [0] NCCL INFO Bootstrap : Using enp3s0f0:10.50.56.33<0>\n"
      "gpu-a:69438:69444 [0] NCCL INFO NET/Socket : Using [0]enp3s0f0:10.50.56.33<0>\n";
  RuleOutcome o = judge(one);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("one rank and no peer"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("firewall"), std::string::npos);
  EXPECT_EQ(o.findings[0].cause.find("Access Control Services"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME=lo"), std::string::npos);
  // The same paste with its device line's host missing from NCCL's heads is still one host.
  std::string mangled = one;
  for (std::size_t p = mangled.find("gpu-a:"); p != std::string::npos; p = mangled.find("gpu-a:"))
    mangled.replace(p, 6, "NAME :");
  RuleOutcome m = judge(mangled);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].cause.find("one rank and no peer"), std::string::npos);
  EXPECT_NE(judge(kDevices + kInit).findings.at(0).cause.find("Access Control Services"),
            std::string::npos);
}

TEST(NcclTestsStopped, FiresWhenTheLogEndsInTheFirstCollective) {
  RuleOutcome o = judge(kDevices + kInit + kHeader);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("inside its first collective"), std::string::npos)
      << o.findings[0].message;
}

TEST(NcclTestsStopped, QuietOnACompleteRun) {
  RuleOutcome o = judge(kDevices + kInit + kHeader + kRows);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.skipped);
}

// The run stopped on an error another rule reads (nccl-system-error): that is the account.
TEST(NcclTestsStopped, QuietWhenAnErrorSaysWhy) {
  RuleOutcome o = judge(kDevices + kInit + "NCCL failure common.cu:874 'unhandled system error'\n");
  EXPECT_TRUE(o.findings.empty());
}

// Every rank finished init: the header went to another stream or the capture was cut after it.
TEST(NcclTestsStopped, QuietWhenInitCompleted) {
  RuleOutcome o = judge(kDevices + kInit +
                        "gpu-a:15833:15833 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 "
                        "busId 2000 - Init START\n"
                        "gpu-a:15833:15833 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 "
                        "busId 2000 - Init COMPLETE\n");
  EXPECT_TRUE(o.findings.empty());
  RuleOutcome open = judge(kDevices + kInit +
                           "gpu-a:15833:15833 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 "
                           "busId 2000 - Init START\n");
  ASSERT_EQ(open.findings.size(), 1u);
  EXPECT_EQ(open.findings[0].severity, Severity::kError);  // init began and never finished
}

// A wrapper logged the harness's exit status before its output, which ends in the device list
// (nebius/soperator#296: `kubectl logs` of a Go benchmark runner; Go's os/exec "exit status 3").
// nccl-tests exits with its first failing check's testResult_t (src/common.h): 3 is a NCCL call
// that failed, so the log is a cut capture of an error, not a hang.
TEST(NcclTestsStopped, AnExitStatusIsAFailureNotAHang) {
  const std::string wrapper =
      "{\"error\":\"exit status 3\",\"level\":\"fatal\",\"msg\":\"Failed to execute "
      "all_reduce_perf\",\"output\":\"\n";
  RuleOutcome o = judge(wrapper + kDevices);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_EQ(x.severity, Severity::kError);
  EXPECT_NE(x.message.find("exited with status 3 (testNcclError"), std::string::npos) << x.message;
  EXPECT_NE(x.cause.find("not a hang"), std::string::npos) << x.cause;
  EXPECT_EQ(x.evidence[0].where.line, 1);
  // A shell's 128+N: killed by a signal, which nccl-tests never returns itself.
  RuleOutcome k = judge(kDevices + "all_gather_perf_mpi exited with code 137\n");
  ASSERT_EQ(k.findings.size(), 1u);
  EXPECT_NE(k.findings[0].cause.find("killed by signal 9 (SIGKILL"), std::string::npos)
      << k.findings[0].cause;
  // 127: the shell's "command not found" or the loader's missing library; the program never ran.
  RuleOutcome nf = judge("all_reduce_perf exited with code 127\n");
  ASSERT_EQ(nf.findings.size(), 1u);
  EXPECT_NE(nf.findings[0].cause.find("never ran"), std::string::npos) << nf.findings[0].cause;
  EXPECT_NE(nf.findings[0].fix.find("ldd"), std::string::npos) << nf.findings[0].fix;
  // The program printed its device list, so it ran: 127 is another command's.
  RuleOutcome ran = judge(kDevices + "all_reduce_perf exited with code 127\n");
  ASSERT_EQ(ran.findings.size(), 1u);
  EXPECT_NE(ran.findings[0].cause.find("another command's"), std::string::npos)
      << ran.findings[0].cause;
  // A preflight test that passed above the one that failed: the failure is read.
  RuleOutcome pre = judge("sendrecv_perf exited with code 0\n" + kDevices +
                          "all_reduce_perf exited with code 3\n");
  ASSERT_EQ(pre.findings.size(), 1u);
  EXPECT_NE(pre.findings[0].message.find("status 3"), std::string::npos);
  // Only nccl-tests' programs: another benchmark's status is not the harness's.
  EXPECT_NE(judge(kDevices + "benchmark_perf finished: exit status 1\n")
                .findings[0]
                .message.find("ends inside"),
            std::string::npos);
  // A preflight test's success above the device list is an earlier run's: the stop is read.
  RuleOutcome preflight = judge("sendrecv_perf exited with code 0\n" + kDevices + kInit);
  ASSERT_EQ(preflight.findings.size(), 1u);
  EXPECT_NE(preflight.findings[0].message.find("ends inside"), std::string::npos);
  // Status 0: it finished; the capture kept only its start.
  EXPECT_TRUE(judge(kDevices + "sendrecv_perf: exit status 0\n").findings.empty());
  // A status beside no nccl-tests program, or a program named inside a longer word, is not read.
  ASSERT_EQ(judge(kDevices + "train.py: exit status 3\n").findings.size(), 1u);
  EXPECT_NE(judge(kDevices + "train.py: exit status 3\n").findings[0].message.find("ends inside"),
            std::string::npos);
  EXPECT_NE(judge(kDevices + "my_perfx exit status 3\n").findings[0].message.find("ends inside"),
            std::string::npos);
}

// A WARN NCCL went on from (2.14 ignores a CUDA library it cannot open, then sets up its network)
// did not stop the run: the stop is still unexplained (NVIDIA/nccl-tests#115, an IOMMU stall). A
// WARN that is the last NCCL line, or one with an error trail after it, did.
TEST(NcclTestsStopped, AWarningNcclWentOnFromDoesNotExplainTheStop) {
  const std::string warn =
      "gpu-a:15833:15833 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in "
      "/usr/local/cuda-11.7 (NCCL_CUDA_PATH=/usr/local/cuda-11.7)\n";
  RuleOutcome went_on = judge(kDevices + warn + kInit);
  ASSERT_EQ(went_on.findings.size(), 1u);
  // Each rank printed it (the usual case), then NCCL went on.
  const std::string warn1 =
      "gpu-a:15834:15834 [1] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in "
      "/usr/local/cuda-11.7 (NCCL_CUDA_PATH=/usr/local/cuda-11.7)\n";
  EXPECT_EQ(judge(kDevices + warn + warn1 + kInit).findings.size(), 1u);
  EXPECT_NE(went_on.findings[0].cause.find("IOMMU"), std::string::npos);
  EXPECT_TRUE(judge(kDevices + kInit + warn).findings.empty());
  EXPECT_TRUE(judge(kDevices + warn + "gpu-a:15833:15833 [0] NCCL INFO init.cc:1102 -> 2\n" + kInit)
                  .findings.empty());
}

TEST(NcclTestsStopped, DoesNotApplyWithoutTheHarnessDeviceList) {
  RuleOutcome o = judge(kInit);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.skipped);
  EXPECT_FALSE(o.not_applicable.empty());
}

}  // namespace
}  // namespace trainready::test
