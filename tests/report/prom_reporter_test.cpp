#include "report/prom/prom_reporter.h"

#include <gtest/gtest.h>

#include <limits>

#include "report/prom/prom_writer.h"
#include "report/sample_reports.h"
#include "report/tool_run.h"
#include "support/paths.h"

namespace trainready {
namespace {

bool has(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// promtool (Debian's prometheus package) parses the exposition and lints names, units and
// help; its word is what a textfile collector will accept.
void expect_promtool_clean(const std::string& text, const std::string& name) {
  ASSERT_TRUE(test::have_tool("promtool"))
      << "promtool missing: apt-get install prometheus (scripts/setup-deps.sh)";
  const std::string dir = test::temp_dir("prom-" + name);
  const std::string path = test::write_temp_file(dir, name + ".prom", text);
  const test::ToolResult r = test::run_tool("promtool check metrics < '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.output << "\n" << text;
  EXPECT_EQ(r.output, "") << "promtool lint: " << r.output;
}

TEST(PromReporter, EverySamplePassesPromtool) {
  for (const auto& [name, report] : test::all_sample_reports()) {
    SCOPED_TRACE(name);
    expect_promtool_clean(render_prom(report), name);
  }
}

TEST(PromReporter, PromtoolCatchesABrokenExposition) {
  // The check can fail: a sample without a value and a counter without _total.
  ASSERT_TRUE(test::have_tool("promtool"));
  const std::string dir = test::temp_dir("prom-broken");
  const std::string path = test::write_temp_file(
      dir, "broken.prom", "# HELP x_bytes h\n# TYPE x_bytes counter\nx_bytes{a=\"1\"} 2\n");
  EXPECT_NE(test::run_tool("promtool check metrics < '" + path + "'").status, 0);
}

TEST(PromReporter, VerdictFindingsAndExitCode) {
  const std::string p = render_prom(test::doctor_report());
  EXPECT_TRUE(has(p, "# TYPE trainready_findings gauge\n"));
  EXPECT_TRUE(has(p, "trainready_findings{command=\"doctor\",severity=\"error\"} 1\n"));
  EXPECT_TRUE(has(p, "trainready_findings{command=\"doctor\",severity=\"warning\"} 1\n"));
  EXPECT_TRUE(has(p, "trainready_findings{command=\"doctor\",severity=\"info\"} 1\n"));
  EXPECT_TRUE(has(p, "trainready_rule_evaluations{command=\"doctor\"} 7\n"));
  EXPECT_TRUE(has(p, "trainready_checks_skipped{command=\"doctor\"} 1\n"));
  EXPECT_TRUE(has(p, "trainready_verdict{command=\"doctor\",status=\"not_ready\"} 1\n"));
  EXPECT_TRUE(has(p, "trainready_verdict{command=\"doctor\",status=\"ready\"} 0\n"));
  EXPECT_TRUE(has(p, "trainready_exit_code{command=\"doctor\"} 1\n"));
}

TEST(PromReporter, NodeLabelsAreEscaped) {
  const std::string p = render_prom(test::doctor_report());
  // 8 ports at 400 Gb/s on each healthy node; the hostile name with its escape dropped.
  EXPECT_TRUE(has(p,
                  "trainready_ib_port_rate_bytes_per_second{node=\"<script>alert(1)</script>\","
                  "device=\"mlx5_ib0\",port=\"1\",link_layer=\"InfiniBand\"} 50000000000\n"))
      << p;
  EXPECT_FALSE(has(p, "\x1b"));
  EXPECT_EQ(prom_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(PromReporter, BusbwPerSizeLargestAndExpected) {
  const std::string p = render_prom(test::nccl_tests_report());
  EXPECT_TRUE(has(p,
                  "trainready_busbw_bytes_per_second{collective=\"all_reduce\",size_bytes=\"8\","
                  "placement=\"out_of_place\"}"));
  EXPECT_TRUE(has(p,
                  "trainready_busbw_largest_bytes_per_second{collective=\"all_reduce\","
                  "size_bytes=\"8589934592\"}"));
  EXPECT_TRUE(has(p,
                  "trainready_busbw_expected_bytes_per_second{collective=\"all_reduce\","
                  "sku=\"Standard_ND96isr_H100_v5\",nodes=\"2\"} 380000000000\n"));
  EXPECT_TRUE(has(p, "trainready_busbw_wrong_elements{collective=\"all_reduce\"} 0\n"));
  const std::string b = render_prom(test::bench_collective_report());
  EXPECT_TRUE(
      has(b,
          "trainready_busbw_bytes_per_second{collective=\"all_reduce\",size_bytes=\"33554432\","
          "placement=\"in_place\"}"));
  EXPECT_FALSE(has(b, "trainready_busbw_expected"));
}

TEST(PromReporter, StorageRawAndFeed) {
  const std::string raw = render_prom(test::bench_storage_raw_report());
  EXPECT_TRUE(has(raw,
                  "trainready_storage_read_bytes_per_second{path=\"/mnt/blob\",engine=\"io_uring\","
                  "cache_state=\"cold-verified\",direct=\"true\",rw=\"randread\","
                  "block_size_bytes=\"131072\"} 4200000000\n"));
  EXPECT_TRUE(has(raw, "trainready_storage_read_iops{"));
  EXPECT_TRUE(has(raw, "# TYPE trainready_storage_read_clat_seconds summary\n"));
  EXPECT_TRUE(has(raw, "quantile=\"0.99\"} 0.0024\n"));
  EXPECT_TRUE(has(raw, "quantile=\"0.999\"} 0.0041\n"));
  const std::string feed = render_prom(test::bench_storage_feed_report());
  EXPECT_TRUE(
      has(feed,
          "trainready_storage_feed_accelerator_utilization_ratio{path=\"/mnt/data/<unet3d>\","
          "profile=\"unet3d-h100\",accelerators=\"1\"} 0.99\n"));
  EXPECT_TRUE(has(feed,
                  "trainready_storage_feed_accelerators_kept_busy{path=\"/mnt/data/<unet3d>\","
                  "profile=\"unet3d-h100\"} 6\n"));
  EXPECT_TRUE(has(feed, "trainready_storage_feed_au_threshold_ratio{"));
  EXPECT_FALSE(has(feed, "trainready_storage_read_bytes_per_second"));
}

TEST(PromReporter, PlanPredictions) {
  const std::string p = render_prom(test::plan_report());
  const std::string l = "sku=\"Standard_ND96isr_H100_v5\",vms=\"2\",gpus=\"16\"";
  EXPECT_TRUE(has(p, "trainready_plan_step_seconds{" + l + "} 5.1\n"));
  EXPECT_TRUE(has(p, "trainready_plan_run_cost_usd{" + l + "} 2100\n"));
  EXPECT_TRUE(
      has(p, "trainready_plan_memory_per_gpu_bytes{" + l + ",component=\"usable\"} 77309411328\n"));
  EXPECT_TRUE(has(p, "trainready_plan_memory_per_gpu_bytes{" + l + ",component=\"states\"}"));
  EXPECT_FALSE(has(p, "Standard_ND96amsr_A100_v4"));  // candidates[0] only
}

TEST(PromReporter, NoMeasurementNoMeasuredFamilies) {
  const std::string p = render_prom(test::lint_report());
  EXPECT_FALSE(has(p, "busbw"));
  EXPECT_FALSE(has(p, "storage"));
  EXPECT_FALSE(has(p, "plan"));
  EXPECT_FALSE(has(p, "# HELP trainready_ib_port"));  // no samples, no family
}

TEST(PromWriter, FirstSeriesWinsAndNumbersRoundTrip) {
  PromWriter w;
  w.family("a_bytes", "gauge", "h");
  w.sample("a_bytes", {{"k", "v"}}, 1);
  w.sample("a_bytes", {{"k", "v"}}, 2);
  EXPECT_EQ(w.str(), "# HELP a_bytes h\n# TYPE a_bytes gauge\na_bytes{k=\"v\"} 1\n");
  PromWriter h;
  h.family("b", "gauge", "two\nlines \\ \"q\"");
  h.sample("b", {}, 0);
  EXPECT_EQ(h.str(), "# HELP b two\\nlines \\\\ \"q\"\n# TYPE b gauge\nb 0\n");
  EXPECT_EQ(prom_number(0.1), "0.1");
  EXPECT_EQ(prom_number(1e21), "1e+21");
  EXPECT_EQ(prom_number(std::numeric_limits<double>::infinity()), "+Inf");
}

}  // namespace
}  // namespace trainready
