#include "report/html/html_reporter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "report/html/svg_chart.h"
#include "report/sample_reports.h"

namespace trainready {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool has(const std::string& page, const std::string& needle) {
  return page.find(needle) != std::string::npos;
}

TEST(HtmlReporter, HostileHostNameIsEscapedEverywhere) {
  for (const auto& [name, report] : test::all_sample_reports()) {
    SCOPED_TRACE(name);
    const std::string page = render_html(report);
    const std::string l = lower(page);
    EXPECT_FALSE(has(l, "<script")) << "raw script tag in the " << name << " page";
    EXPECT_FALSE(has(page, "\x1b")) << "terminal escape in the " << name << " page";
    EXPECT_FALSE(has(l, "<link")) << name;
    EXPECT_FALSE(has(l, " src=")) << name;
    EXPECT_FALSE(has(l, "url(")) << name;
  }
  const std::string page = render_html(test::doctor_report());
  // The host name appears (as text) in the findings, the node table and the skipped checks.
  const std::string shown = "&lt;script&gt;alert(1)&lt;/script&gt;";
  std::size_t count = 0;
  for (std::size_t at = page.find(shown); at != std::string::npos; at = page.find(shown, at + 1))
    ++count;
  EXPECT_GE(count, 3u);
  EXPECT_TRUE(has(page, "&quot;quoted&quot; &amp; &lt;tagged&gt;"));
  EXPECT_TRUE(has(page, "state: 1: DOWN bold"));  // the escape sequences dropped, text kept
}

TEST(HtmlReporter, HostileTextInsideSvgAndAttributesIsEscaped) {
  LineChartSpec spec;
  spec.id = "x\"onload=\"alert(1)";
  spec.title = "<script>t</script>";
  spec.description = "d";
  spec.x_format = [](double) { return std::string("<i>"); };
  spec.y_format = [](double) { return std::string("\""); };
  spec.series = {{"<s>", {{1, 1}, {2, 2}}, 0, false}};
  const std::string svg = svg_line_chart(spec);
  EXPECT_FALSE(has(svg, "<script"));
  EXPECT_FALSE(has(svg, "\"onload"));
  EXPECT_FALSE(has(svg, "<i>"));
  EXPECT_FALSE(has(svg, "<s>"));
  EXPECT_TRUE(has(svg, "&lt;script&gt;t&lt;/script&gt;"));
}

TEST(HtmlReporter, SelfContainedWithAStrictPolicy) {
  const std::string page = render_html(test::doctor_report());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(
      has(page, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""));
  EXPECT_TRUE(has(page, "prefers-color-scheme: dark"));
  EXPECT_TRUE(has(page, "@media print"));
  EXPECT_TRUE(has(page, "</html>"));
}

TEST(HtmlReporter, DoctorPageHasVerdictFindingsNodesAndSkips) {
  const std::string page = render_html(test::doctor_report());
  EXPECT_TRUE(has(page, "class=\"verdict not-ready\""));
  // The verdict word once, in the badge.
  EXPECT_TRUE(has(page, "<span class=\"status\">NOT READY</span>1 of 2 nodes"));
  EXPECT_TRUE(has(page, "<h3>Errors (1)</h3>"));
  EXPECT_TRUE(has(page, "<h3>Warnings (1)</h3>"));
  EXPECT_TRUE(has(page, "<h3>Info (1)</h3>"));
  EXPECT_TRUE(has(page,
                  "href=\"https://github.com/trainready/trainready/blob/main/docs/rules/"
                  "ib-port-not-active.md\""));
  EXPECT_TRUE(has(page, "<code>/sys/class/infiniband/mlx5_ib3/ports/1/state:1</code>"));
  EXPECT_TRUE(has(page, "<dt>cause</dt>"));
  EXPECT_TRUE(has(page, "<dt>fix</dt><dd>modprobe nvidia_peermem</dd>"));
  EXPECT_TRUE(has(page, "id=\"nodes\""));
  EXPECT_TRUE(has(page, "ndh100-b01"));
  EXPECT_TRUE(has(page, "id=\"not-checked\""));
  EXPECT_TRUE(has(page, "NVML not found &lt;libnvidia-ml.so.1&gt;"));
  EXPECT_TRUE(has(page, "link speed unreadable"));
  // No measurement, no chart.
  EXPECT_FALSE(has(page, "<svg"));
}

TEST(HtmlReporter, VerdictColourFollowsTheStatus) {
  EXPECT_TRUE(has(render_html(test::nccl_tests_report()), "class=\"verdict warnings\""));
  EXPECT_TRUE(has(render_html(test::bench_collective_report()), "class=\"verdict incomplete\""));
  EXPECT_TRUE(has(render_html(test::plan_report()), "class=\"verdict ready\""));
}

TEST(HtmlReporter, BusbwChartFromNcclTestsWithExpectedLine) {
  const std::string page = render_html(test::nccl_tests_report());
  EXPECT_TRUE(has(page, "<title id=\"busbw-title\">Bus bandwidth of all_reduce by message size"));
  EXPECT_TRUE(has(page, "out-of-place"));
  EXPECT_TRUE(has(page, "in-place"));
  EXPECT_TRUE(has(page, "class=\"ref\""));  // the expected busbw line
  EXPECT_TRUE(has(page, "expected 380 GB/s"));
  EXPECT_TRUE(has(page, ">1 GiB</text>"));            // a log2 tick with its unit
  EXPECT_TRUE(has(page, "<summary>Data</summary>"));  // the text alternative
  EXPECT_FALSE(has(page, "feed-au"));
  EXPECT_FALSE(has(page, "plan-memory"));
}

TEST(HtmlReporter, BusbwChartFromBenchWithoutExpectedLine) {
  const std::string page = render_html(test::bench_collective_report());
  EXPECT_TRUE(has(page, "busbw-title"));
  EXPECT_TRUE(has(page, "all_reduce over 4 ranks, mpi back end"));
  EXPECT_FALSE(has(page, "class=\"ref\""));  // no expectation known: no line
}

TEST(HtmlReporter, NoBusbwChartWithoutRows) {
  Report r = test::nccl_tests_report();
  auto t = std::make_shared<NcclTestsFacts>(*r.nccl_tests);
  t->rows.clear();
  r.nccl_tests = t;
  EXPECT_FALSE(has(render_html(r), "busbw-title"));
}

TEST(HtmlReporter, StorageFeedCharts) {
  const std::string page = render_html(test::bench_storage_feed_report());
  EXPECT_TRUE(has(page, "feed-au-title"));
  EXPECT_TRUE(has(page, "feed-bw-title"));
  EXPECT_TRUE(has(page, "threshold 90%"));
  EXPECT_TRUE(has(page, ">6 H100s</text>"));
  EXPECT_TRUE(has(page, "class=\"bad\""));  // 7 and 8 accelerators fall short
  EXPECT_TRUE(has(page, "class=\"ok\""));
  EXPECT_TRUE(has(page, "/mnt/data/&lt;unet3d&gt;"));
  EXPECT_FALSE(has(page, "raw-vs-need"));
}

TEST(HtmlReporter, RawReadsAgainstTheNeed) {
  const std::string page = render_html(test::bench_storage_raw_report());
  EXPECT_TRUE(has(page, "raw-vs-need-title"));
  EXPECT_TRUE(has(page, "against what 8 H100s need"));
  EXPECT_TRUE(has(page, "4.20 GB/s"));
  EXPECT_FALSE(has(page, "feed-au"));
  Report no_demand = test::bench_storage_raw_report();
  auto f = std::make_shared<StorageBenchFacts>(*no_demand.storage_facts);
  f->accelerators_needed = 0;
  no_demand.storage_facts = f;
  EXPECT_FALSE(has(render_html(no_demand), "raw-vs-need"));
}

TEST(HtmlReporter, PlanCharts) {
  const std::string page = render_html(test::plan_report());
  EXPECT_TRUE(has(
      page, "<title id=\"plan-memory-title\">Memory per GPU on Standard_ND96isr_H100_v5 (fits)"));
  EXPECT_TRUE(has(page, "model states"));
  EXPECT_TRUE(has(page, "usable 72 GiB"));
  EXPECT_TRUE(has(page, "Cost per run by candidate"));
  EXPECT_TRUE(has(page, "$2,100"));
  EXPECT_TRUE(has(page, "Checks to run once deployed"));
}

TEST(HtmlReporter, PlanWithoutPricesChartsTime) {
  Report r = test::plan_report();
  auto p = std::make_shared<Plan>(*r.plan);
  p->candidates[1].cost.reset();
  r.plan = p;
  const std::string page = render_html(r);
  EXPECT_TRUE(has(page, "Time per run by candidate (no price known)"));
  EXPECT_FALSE(has(page, "Cost per run by candidate"));
}

TEST(HtmlReporter, LintFilesAndSuppressions) {
  const std::string page = render_html(test::lint_report());
  EXPECT_TRUE(has(page, "infra/params &lt;prod&gt;.json"));
  EXPECT_TRUE(has(page, "12 resource(s) read."));
  EXPECT_TRUE(has(page, "Suppressed findings (1)"));
  EXPECT_TRUE(has(page, "no InfiniBand VMs in this VNet yet"));
  EXPECT_TRUE(has(page, "<code>.trainready-suppressions.json:3</code>"));
  EXPECT_TRUE(has(page, "<code>infra/main.arm.json:42</code>"));
  EXPECT_TRUE(has(page, "could not be resolved"));
  EXPECT_FALSE(has(page, "<svg"));
}

TEST(SvgChart, NiceSteps) {
  EXPECT_DOUBLE_EQ(nice_step(380, 5), 100);
  EXPECT_NEAR(nice_step(1, 5), 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(nice_step(9.5, 5), 2);
  EXPECT_DOUBLE_EQ(nice_step(0, 5), 1);
}

}  // namespace
}  // namespace trainready
