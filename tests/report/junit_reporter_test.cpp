#include "report/junit/junit_reporter.h"

#include <gtest/gtest.h>

#include "report/sample_reports.h"
#include "report/tool_run.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

bool has(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// xmllint (libxml2-utils) against tests/report/junit.xsd: the XML is well-formed (every hostile
// byte escaped or dropped) and has the structure Jenkins and GitLab read. A schema rather than
// string checks alone, because a misplaced element is what those readers silently ignore.
void expect_valid_junit(const std::string& xml, const std::string& name) {
  ASSERT_TRUE(test::have_tool("xmllint"))
      << "xmllint missing: apt-get install libxml2-utils (scripts/setup-deps.sh)";
  const std::string dir = test::temp_dir("junit-" + name);
  const std::string path = test::write_temp_file(dir, name + ".xml", xml);
  const std::string xsd = std::string(TR_TEST_DATA) + "/../report/junit.xsd";
  const test::ToolResult r =
      test::run_tool("xmllint --noout --schema '" + xsd + "' '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.output << "\n" << xml;
}

TEST(JunitReporter, EverySampleIsValidJunit) {
  for (const auto& [name, report] : test::all_sample_reports()) {
    SCOPED_TRACE(name);
    expect_valid_junit(render_junit(report), name);
  }
}

TEST(JunitReporter, CountsMatchTheRuns) {
  const Report r = test::doctor_report();
  const std::string x = render_junit(r);
  // 7 runs: 1 skipped, 3 failed, of which only the error is at --fail-on error.
  EXPECT_TRUE(has(x,
                  "<testsuite name=\"trainready doctor\" tests=\"7\" failures=\"1\" errors=\"0\" "
                  "skipped=\"1\">"));
  EXPECT_EQ(count(x, "<testcase "), r.evaluation.runs.size());
  EXPECT_EQ(count(x, "<failure "), 1u);
  EXPECT_EQ(count(x, "<skipped "), 1u);
  EXPECT_TRUE(has(x, "classname=\"cluster\" name=\"cluster-pkey-mismatch\"/>"));
  EXPECT_TRUE(has(x, "name=\"gpudirect-rdma-disabled on ndh100-b01\""));
  // Findings below --fail-on pass, their text kept for the reader.
  EXPECT_TRUE(has(x, "<system-out>[warning] nvidia_peermem is not loaded"));
}

TEST(JunitReporter, FailOnWarningFailsWarnings) {
  Report r = test::doctor_report();
  r.fail_on = Severity::kWarning;
  const std::string x = render_junit(r);
  EXPECT_EQ(count(x, "<failure "), 2u);
  EXPECT_TRUE(has(x, "type=\"warning\""));
}

TEST(JunitReporter, FailureCarriesEvidenceCauseFixEscaped) {
  const std::string x = render_junit(test::doctor_report());
  EXPECT_TRUE(has(x,
                  "<failure message=\"mlx5_ib3 port 1 is DOWN/Polling &quot;quoted&quot; &amp; "
                  "&lt;tagged&gt;\" type=\"error\">"));
  EXPECT_TRUE(
      has(x, "evidence: state: 1: DOWN bold (/sys/class/infiniband/mlx5_ib3/ports/1/state:1)"));
  EXPECT_TRUE(has(x, "cause: No link partner answers"));
  EXPECT_TRUE(has(x, "fix: Redeploy"));
  EXPECT_TRUE(has(x, "classname=\"&lt;script&gt;alert(1)&lt;/script&gt;\""));
  EXPECT_FALSE(has(x, "<script"));
  EXPECT_FALSE(has(x, "\x1b"));
}

TEST(JunitReporter, SuppressedFindingIsSkippedNotFailed) {
  const std::string x = render_junit(test::lint_report());
  EXPECT_TRUE(has(x, "tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
  EXPECT_TRUE(
      has(x, "<skipped message=\"suppressed (file): no InfiniBand VMs in this VNet yet\"/>"));
  EXPECT_TRUE(has(x, "classname=\"deployment\""));
}

TEST(JunitReporter, ControlCharactersXmlForbidsAreDropped) {
  Report r = test::nccl_tests_report();
  r.evaluation.findings[0].severity = Severity::kError;
  r.evaluation.findings[0].message = "bad\x01\x02 byte\x0b\x0c end\xff";
  const std::string x = render_junit(r);
  EXPECT_TRUE(has(x, "message=\"bad byte end\xef\xbf\xbd\"")) << x;
  expect_valid_junit(x, "control");
}

TEST(JunitReporter, NoRunsIsAnEmptySuite) {
  Report r;
  r.command = "plan";
  const std::string x = render_junit(r);
  EXPECT_TRUE(has(x, "tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\""));
  expect_valid_junit(x, "empty");
}

}  // namespace
}  // namespace trainready
