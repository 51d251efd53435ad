#include <gtest/gtest.h>

#include "parsers/perftest.h"
#include "support/paths.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

const char* kGpuTools = "perftest/gpu-tools-ib_write_bw-cuda-dmabuf-a40-roce-client.txt";

NodeFacts with_capture(const std::string& rel) {
  NodeFacts n = healthy_nd_h100();
  n.ib_write_bw =
      Fact<IbWriteBwFacts>::present(parse_ib_write_bw(read_fixture(rel), rel), {rel, 0});
  return n;
}

}  // namespace

// schmaustech/gpu-tools: 181.46 Gb/s from GPU memory. ND96isr_H100_v5 expects 380 per HCA
// (AzNHC conf): fires, as a warning because the run used 64 KiB messages, and says the device
// was RoCE.
TEST(IbWriteBwLow, RealCaptureBelowTheH100Floor) {
  RuleOutcome o = run_rule("ib-write-bw-low", with_capture(kGpuTools));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.message.find("1 of 1 ib_write_bw run below 380.00 Gb/s"), std::string::npos);
  EXPECT_NE(f.message.find("Standard_ND96isr_H100_v5"), std::string::npos);
  ASSERT_EQ(f.evidence.size(), 2u);  // the run, then the levels of the size
  EXPECT_NE(f.evidence[1].text.find("repair (GHR) below 380 Gb/s"), std::string::npos)
      << f.evidence[1].text;
  EXPECT_NE(f.evidence[0].text.find("mlx5_1: 181.46 Gb/s average"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.find("0.48x"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.find("GPU memory (NVIDIA A40)"), std::string::npos);
  EXPECT_NE(f.cause.find("Ethernet (RoCE)"), std::string::npos);
  EXPECT_NE(f.cause.find("-s 8388608"), std::string::npos);
}

// The same run against ND96asr_v4's 180 Gb/s floor is quiet.
TEST(IbWriteBwLow, QuietAboveTheA100Floor) {
  RunOptions opt;
  opt.sku = "Standard_ND96asr_v4";
  EXPECT_TRUE(run_rule("ib-write-bw-low", with_capture(kGpuTools), opt).findings.empty());
}

// At 8 MiB below the floor it is an error; no floor for the size or no size -> skipped; no
// capture -> nothing to judge (not skipped).
TEST(IbWriteBwLow, ErrorAtFullSizeSkipsWithoutFloorQuietWithoutCapture) {
  NodeFacts n = healthy_nd_h100();
  IbWriteBwRun r;
  r.device = "mlx5_ib3";
  r.link_type = "IB";
  r.gpu_memory = true;
  r.bytes = 8388608;
  r.average_gbps = 190;
  r.unit_text = "Gb/sec";
  n.ib_write_bw = Fact<IbWriteBwFacts>::present(IbWriteBwFacts{{r}}, {"cap.txt", 0});
  RuleOutcome o = run_rule("ib-write-bw-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  RunOptions gb200;
  gb200.sku = "Standard_ND128isr_NDR_GB200_v6";
  EXPECT_TRUE(run_rule("ib-write-bw-low", n, gb200).skipped);
  NodeFacts none = healthy_nd_h100();
  RuleOutcome q = run_rule("ib-write-bw-low", none);
  EXPECT_FALSE(q.skipped);
  EXPECT_TRUE(q.findings.empty());
  EXPECT_NE(q.not_applicable.find("--capture ib_write_bw"), std::string::npos) << q.not_applicable;
}

// A bidirectional run (-b) sums both directions: 2 x 190 Gb/s is an HCA at half its 380 Gb/s
// floor per direction on ND96isr_H100_v5, and fires; 2 x 390 is quiet.
TEST(IbWriteBwLow, BidirectionalRunsAreJudgedAgainstTwiceTheFloor) {
  NodeFacts n = with_capture(kGpuTools);
  IbWriteBwRun& r = n.ib_write_bw.value.runs.at(0);
  r.bidirectional = true;
  r.bytes = 8388608;
  r.link_type = "IB";
  r.average_gbps = 380;
  RuleOutcome o = run_rule("ib-write-bw-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("0.50x of 760.00 Gb/s"), std::string::npos)
      << o.findings[0].evidence[0].text;
  r.average_gbps = 780;
  EXPECT_TRUE(run_rule("ib-write-bw-low", n).findings.empty());
}
