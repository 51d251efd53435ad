#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/nccl_tests.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-separate-jobs";

// Real outputs in which each process printed its own header, device list or summary.
TEST(NcclTestsSeparateJobs, FiresOnProcessesThatEachRanAlone) {
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case& c : {
           // two headers before any device line (mpirun -np 2, -g 8)
           Case{"nccl-tests/nccltests213-2x-h800-mpirun-two-headers-excerpt.txt", "header"},
           // ranks 0-7 on node3, then rank 0 again on node2
           Case{"nccl-tests/nccltests306-2x-h20-rank0-on-two-nodes-excerpt.txt", "node2"},
           // an old nccl-tests without Pid: rank 0 on both hosts
           Case{"nccl-tests/nccltests17-2x-m60-rank0-twice-excerpt.txt", "ip-172-31-12-213"},
           // two summaries back to back, quoted in prose (nccl-tests#27)
           Case{"../nccl-public/gh-nccltests-27-built-without-mpi.log", "summary"},
       }) {
    NcclTestsFacts t = tests_fixture(c.file);
    RuleOutcome o = run_run_rule(kId, nullptr, &t);
    ASSERT_EQ(o.findings.size(), 1u) << c.file;
    const Finding& f = o.findings[0];
    EXPECT_EQ(f.severity, Severity::kError) << c.file;
    EXPECT_NE(f.message.find("2 processes"), std::string::npos) << c.file << ": " << f.message;
    std::string ev;
    for (const auto& e : f.evidence) ev += e.text + " @" + std::to_string(e.where.line) + "\n";
    EXPECT_NE(ev.find(c.says), std::string::npos) << c.file << ":\n" << ev;
    EXPECT_NE(f.fix.find("MPI=1"), std::string::npos);
  }
}

// One MPI job (rank 0 prints every rank once), and runs one after the other in one file.
TEST(NcclTestsSeparateJobs, QuietOnOneJobAndOnRunsInSequence) {
  for (const char* f : {"nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt",
                        "nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt",
                        "nccl-tests/coreweave-8node-64xh100-sharp-all_reduce_perf-excerpt.txt",
                        "nccl-tests/nccl-ebpf-2rank-socket-forced-tag-output-all_reduce_perf.txt",
                        "nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt"}) {
    NcclTestsFacts t = tests_fixture(f);
    EXPECT_TRUE(run_run_rule(kId, nullptr, &t).findings.empty()) << f;
  }
  // A script that runs all_gather then all_reduce: two headers, two device lists with the
  // same ranks and two summaries, each run's table between them.
  const std::string both =
      read_fixture("nccl-tests/superbench-1node-8xa100-40g-all_gather_perf.txt") +
      read_fixture("nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt");
  NcclTestsFacts t = parse_nccl_tests(both, "sequence");
  ASSERT_GE(t.summaries.size(), 2u);
  EXPECT_TRUE(run_run_rule(kId, nullptr, &t).findings.empty());
}

// What runs one after the other, or MPI jobs, print: quiet.
TEST(NcclTestsSeparateJobs, QuietOnGreppedSummariesAndOnMpiLists) {
  // A loop over tests piped through grep: each summary after its own "starting" line.
  NcclTestsFacts grep = parse_nccl_tests(
      "# Collective test starting: all_reduce_perf\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 187.42 \n"
      "# Collective test concluded: all_reduce_perf\n"
      "# Collective test starting: all_gather_perf\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 176.9 \n",
      "grep");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &grep).findings.empty());
  // Two MPI jobs writing into one log at once: each header is one job's rank 0, and its list
  // holds every rank under its own pid (ranks above 0 elsewhere: an MPI gather).
  std::string two;
  for (int job = 0; job < 2; ++job)
    two += "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5\n";
  two += "#\n# Using devices\n";
  for (int job = 0; job < 2; ++job)
    for (int r = 0; r < 4; ++r)
      two += "#  Rank  " + std::to_string(r) + " Group  0 Pid " +
             std::to_string(1000 * (job + 1) + r) + " on  node" + std::to_string(r / 2) +
             " device  " + std::to_string(r % 2) + " [0x1" + std::to_string(r % 2) +
             "] NVIDIA H100\n";
  NcclTestsFacts mpi = parse_nccl_tests(two, "two-jobs");
  ASSERT_EQ(mpi.devices.size(), 8u);
  EXPECT_TRUE(run_run_rule(kId, nullptr, &mpi).findings.empty());
}

// Each process printed the same warning between its lines (an X11 or MPI notice): still two
// processes at once, told apart from runs one after the other by rows and summaries only.
TEST(NcclTestsSeparateJobs, NoiseEachProcessPrintsDoesNotSeparateThem) {
  NcclTestsFacts t = parse_nccl_tests(
      "Authorization required, but no authorization protocol specified\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid  10107 on     Meowth device  0 [0x01] NVIDIA GeForce RTX 3090\n"
      "Authorization required, but no authorization protocol specified\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid  10108 on     Meowth device  0 [0x01] NVIDIA GeForce RTX 3090\n"
      "#       size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  "
      "#wrong\n"
      "           8      2  float   sum    -1  4.51   0.00   0.00       0  4.33   0.00   0.00  "
      "     0\n"
      "# Out of bounds values : 0 OK\n",
      "noise");
  const RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("second attempt"), std::string::npos);  // one host
}

// NCCL's own communicator lines in the same log: nccl-separate-jobs reads the cause from them,
// so the table's layout does not say it a second time.
TEST(NcclTestsSeparateJobs, LeavesItToNcclsOwnLinesWhenTheLogHasThem) {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid   1001 on      node1 device  0 [0x10] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  0 Group  0 Pid   2002 on      node2 device  0 [0x10] NVIDIA A100-SXM4-80GB\n"
      "node1:1001:1011 [0] NCCL INFO comm 0x550 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 10000 "
      "commId 0x3e9abc - Init COMPLETE\n"
      "node2:2002:2012 [0] NCCL INFO comm 0x550 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 10000 "
      "commId 0x7d2abc - Init COMPLETE\n";
  const NcclRunFacts log = log_text(text);
  NcclTestsFacts t = parse_nccl_tests(text, "t.log");
  EXPECT_EQ(run_run_rule(kId, nullptr, &t).findings.size(), 1u);  // the table alone: read
  const RuleOutcome beside = run_run_rule(kId, &log, &t);
  EXPECT_TRUE(beside.findings.empty());
  EXPECT_FALSE(beside.not_applicable.empty());
  EXPECT_EQ(run_run_rule("nccl-separate-jobs", &log, &t).findings.size(), 1u);
}

// A first attempt that failed in init, then a retry: two headers with nothing of the table
// between them, as separate jobs print; the log's failure says they can be one after another.
TEST(NcclTestsSeparateJobs, QuietBesideAFailureThatEndedAnAttempt) {
  const std::string text =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid   1001 on      node1 device  0 [0x10] NVIDIA A100-SXM4-80GB\n"
      "node1:1001:1011 [0] misc/ibvwrap.cc:105 NCCL WARN Call to ibv_open_device failed\n"
      "node1: Test NCCL failure common.cu:1005 'internal error'\n"
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid   1002 on      node1 device  0 [0x10] NVIDIA A100-SXM4-80GB\n";
  const NcclRunFacts log = log_text(text);
  NcclTestsFacts t = parse_nccl_tests(text, "t.log");
  const RuleOutcome beside = run_run_rule(kId, &log, &t);
  EXPECT_TRUE(beside.findings.empty());
  EXPECT_NE(beside.not_applicable.find("attempts one after another"), std::string::npos);
}

// Several processes at once on one host: all used device 0 (each its local rank 0). That is
// this rule's reading, not several ranks of one job sharing a GPU.
TEST(NcclTestsSeparateJobs, OneHostTwoWorldsIsNotRanksSharingAGpu) {
  NcclTestsFacts t = parse_nccl_tests(
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#\n# Using devices\n#\n# Using devices\n"
      "#  Rank  0 Group  0 Pid  101 on  node1 device  0 [0x17] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  0 Group  0 Pid  102 on  node1 device  0 [0x17] NVIDIA A100-SXM4-80GB\n",
      "one-host");
  EXPECT_EQ(run_run_rule(kId, nullptr, &t).findings.size(), 1u);
  EXPECT_TRUE(run_run_rule("nccl-tests-ranks-share-gpu", nullptr, &t).findings.empty());
}

// A single run's header with no table is still not something to judge.
TEST(NcclTestsSeparateJobs, OneHeaderWithoutATableIsStillRefused) {
  EXPECT_THROW(parse_nccl_tests("# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor)\n"
                                "#  Rank  0 Group  0 Pid  1 on  n device  0 [0x17] GPU\n",
                                "head"),
               InputError);
  EXPECT_TRUE(looks_like_nccl_tests("# nThread 1 nGpus 8 minBytes 8 maxBytes 8\n"));
}

}  // namespace
}  // namespace trainready::test
