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
