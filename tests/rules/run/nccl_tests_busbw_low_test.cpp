#include <gtest/gtest.h>

#include <cstdio>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-busbw-low";

RunOptions sku(const char* s, int nodes) {
  RunOptions o;
  o.sku = s;
  o.nodes = nodes;
  return o;
}

TEST(NcclTestsBusbwLow, FiresEthernetClassWhenSocketsCarryTheTraffic) {
  NcclTestsFacts t =
      tests_fixture("nccl-tests/nccl-ebpf-2rank-socket-forced-tag-output-all_reduce_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND96isr_H100_v5", 2));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].cause.find("Ethernet-class"), std::string::npos);
  EXPECT_EQ(o.findings[0].subsumes, std::vector<std::string>{"nccl-inter-node-not-ib"});
}

TEST(NcclTestsBusbwLow, AboutHalfPointsAtGdrdma) {
  NcclTestsFacts t = tests_fixture("nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt");
  for (auto& r : t.rows) {
    if (r.oop_busbw) *r.oop_busbw /= 2;
    if (r.ip_busbw) *r.ip_busbw /= 2;
  }
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND96asr_v4", 4));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("GPUDirect RDMA"), std::string::npos);
}

// ND GB300 v6: Microsoft publishes two levels (Azure/ai-infrastructure-on-azure SKU baselines):
// intra-rack over MNNVL at 16G ~937 GB/s, Warn < 800, GHR < 600; inter-rack IB-only ~200, Warn
// < 180, GHR < 150. Below Warn a warning, below GHR an error, at 16G or larger.
NcclTestsFacts one_row(double busbw, std::uint64_t bytes) {
  NcclTestsFacts t;
  t.collective = "all_reduce";
  NcclTestsRow r;
  r.size_bytes = bytes;
  r.oop_busbw = busbw;
  t.rows.push_back(r);
  return t;
}

TEST(NcclTestsBusbwLow, Gb300UsesMicrosoftsWarnAndGhrLevels) {
  const std::uint64_t k16g = 16ull << 30;
  const auto severity_at = [&](double busbw, int nodes) {
    NcclTestsFacts t = one_row(busbw, k16g);
    RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND128isr_GB300_v6", nodes));
    EXPECT_FALSE(o.skipped) << o.skip_reason;
    return o.findings.empty() ? std::string("quiet")
                              : std::string(to_string(o.findings[0].severity));
  };
  EXPECT_EQ(severity_at(850, 18), "quiet");
  EXPECT_EQ(severity_at(700, 18), "warning");
  EXPECT_EQ(severity_at(550, 18), "error");
  {
    // Inside one rack a shortfall points at multi-node NVLink (IMEX, fabric), not IB.
    NcclTestsFacts t = one_row(550, k16g);
    RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND128isr_GB300_v6", 18));
    ASSERT_EQ(o.findings.size(), 1u);
    EXPECT_NE(o.findings[0].cause.find("IMEX"), std::string::npos) << o.findings[0].cause;
  }
  EXPECT_EQ(severity_at(190, 36), "quiet");
  EXPECT_EQ(severity_at(170, 36), "warning");
  EXPECT_EQ(severity_at(140, 36), "error");
  // One VM: Microsoft publishes no single-VM level, and AzNHC has no GB300 conf.
  NcclTestsFacts t = one_row(100, k16g);
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND128isr_GB300_v6", 1));
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("no published floor"), std::string::npos) << o.skip_reason;
}

TEST(NcclTestsBusbwLow, QuietOnHealthyMultiNodeRuns) {
  struct Case {
    const char* file;
    const char* sku;
    int nodes;
  };
  for (const Case& c :
       {Case{"nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt",
             "Standard_ND96amsr_A100_v4", 2},
        Case{"nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt", "Standard_ND96asr_v4",
             4},
        Case{"nccl-tests/deepops-k8s-2x-dgx-a100-8xhdr-all_reduce_perf.txt", "Standard_ND96asr_v4",
             2},
        Case{"nccl-tests/coreweave-8node-64xh100-sharp-all_reduce_perf-excerpt.txt",
             "Standard_ND96isr_H100_v5", 8}}) {
    NcclTestsFacts t = tests_fixture(c.file);
    RuleOutcome o = run_run_rule(kId, nullptr, &t, sku(c.sku, c.nodes));
    EXPECT_FALSE(o.skipped) << c.file;
    EXPECT_TRUE(o.findings.empty()) << c.file;
  }
}

TEST(NcclTestsBusbwLow, QuietOnOneVmMatchedFromItsGpus) {
  NcclTestsFacts t = tests_fixture("nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclTestsBusbwLow, SkipsWithoutSizeOrNodes) {
  NcclTestsFacts t =
      tests_fixture("nccl-tests/aws-2x-p4de-efa-srun-label-prefix-all_reduce_perf-excerpt.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--sku"), std::string::npos);
  RunOptions only_sku;
  only_sku.sku = "Standard_ND96asr_v4";
  o = run_run_rule(kId, nullptr, &t, only_sku);
  ASSERT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--nodes"), std::string::npos);
}

// One VM of 8 x H100 in nccl-tests' own layout (2.x, out-of-place and in-place columns), the
// largest size at the given busbw; algbw = busbw x 8 / 14.
NcclTestsFacts one_h100_vm(double busbw_at_16g) {
  std::string text =
      "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 17179869184 step: 2(factor) warmup "
      "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < 8; ++r)
    text += "#  Rank  " + std::to_string(r) + " Group  0 Pid  4242" + std::to_string(r) +
            " on nd-h100-0 device  " + std::to_string(r) + " [0x1" + std::to_string(r) +
            "] NVIDIA H100 80GB HBM3\n";
  text +=
      "#\n#                                                              out-of-place       "
      "                in-place\n#       size         count      type   redop    root     time "
      "  algbw   busbw #wrong     time   algbw   busbw #wrong\n#        (B)    (elements)      "
      "                         (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  char row[256];
  std::snprintf(row, sizeof row,
                "  17179869184    4294967296     float     sum      -1   %8.1f  %6.2f  %6.2f      "
                "0   %8.1f  %6.2f  %6.2f      0\n",
                17179869184.0 / (busbw_at_16g * 8 / 14) / 1e3, busbw_at_16g * 8 / 14, busbw_at_16g,
                17179869184.0 / (busbw_at_16g * 8 / 14) / 1e3, busbw_at_16g * 8 / 14, busbw_at_16g);
  text += row;
  return parse_nccl_tests(text, "one-h100-vm.txt");
}

TEST(NcclTestsBusbwLow, OneVmBelowTheHealthCheckLineIsAnError) {
  // 440 GB/s is 0.96 of ND H100 v5's 460: AzNHC fails this node, so the rule does too.
  NcclTestsFacts t = one_h100_vm(440);
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_TRUE(run_run_rule(kId, nullptr, &(t = one_h100_vm(472))).findings.empty());
}

TEST(NcclTestsBusbwLow, OneVmAtTheRingLevelPointsAtNvlsFirst) {
  // 368 GB/s on 8 x H100: ring-only all-reduce (NVIDIA/nccl-tests#212: ~370 with NCCL_ALGO=RING).
  NcclTestsFacts t = one_h100_vm(368);
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("without NVLink SHARP"), std::string::npos)
      << o.findings[0].cause;
  EXPECT_NE(o.findings[0].fix.find("fabricmanager"), std::string::npos);
  // A GPU fault well below the ring level is not blamed on NVLS.
  t = one_h100_vm(200);
  o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("NVLink SHARP"), std::string::npos);
  // ... unless the log says NVLS was turned off.
  NcclRunFacts log =
      log_text("nd-h100-0:4242:4242 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n");
  o = run_run_rule(kId, &log, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL_NVLS_ENABLE=0"), std::string::npos)
      << o.findings[0].cause;
}

TEST(NcclTestsBusbwLow, AlltoallIsNotJudgedAgainstTheAllReduceLine) {
  // The docs' `bench alltoall --sku Standard_ND96isr_H100_v5` on one VM: no all-reduce floor.
  NcclTestsFacts t = tests_fixture("nccl-tests/superbench-1node-8xa100-40g-alltoall_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND96isr_H100_v5", 1));
  ASSERT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("alltoall"), std::string::npos) << o.skip_reason;
}

}  // namespace
}  // namespace trainready::test
