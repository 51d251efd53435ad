// Every kind of HTML page opened in headless Chromium (tests/tools/html_check.py): no console
// error, no Content-Security-Policy violation, no request, and a non-empty screenshot. Chromium
// missing is a failure: scripts/setup-deps.sh installs it. TR_HTML_SCREENSHOTS=DIR keeps the
// pages and screenshots in DIR for a look.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "report/html/html_reporter.h"
#include "report/sample_reports.h"
#include "report/tool_run.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::string output_dir(const std::string& name) {
  if (const char* keep = std::getenv("TR_HTML_SCREENSHOTS"); keep && *keep) {
    std::filesystem::create_directories(keep);
    return keep;
  }
  return test::temp_dir(name);
}

test::ToolResult check_page(const std::string& html, const std::string& png,
                            const std::string& scheme = "light") {
  return test::run_tool("python3 '" + test::test_tool("html_check.py") + "' --color-scheme " +
                        scheme + " '" + html + "'" +
                        (png.empty() ? "" : " --screenshot '" + png + "'"));
}

TEST(HtmlBrowser, EveryPageKindLoadsCleanlyInChromium) {
  ASSERT_TRUE(test::have_tool("chromium"))
      << "chromium missing: apt-get install chromium (scripts/setup-deps.sh)";
  const std::string dir = output_dir("html-pages");
  for (const auto& [name, report] : test::all_sample_reports()) {
    SCOPED_TRACE(name);
    const std::string html = test::write_temp_file(dir, name + ".html", render_html(report));
    const std::string png = dir + "/" + name + ".png";
    const test::ToolResult r = check_page(html, png);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(std::filesystem::exists(png)) << r.output;
  }
  // Dark scheme: the same page, the other palette.
  const std::string html = dir + "/doctor.html";
  const test::ToolResult dark = check_page(html, dir + "/doctor-dark.png", "dark");
  EXPECT_EQ(dark.status, 0) << dark.output;
}

TEST(HtmlBrowser, TheCheckCatchesAPolicyViolation) {
  ASSERT_TRUE(test::have_tool("chromium"))
      << "chromium missing: apt-get install chromium (scripts/setup-deps.sh)";
  const std::string dir = test::temp_dir("html-bad");
  // What an unescaped host name would do: an inline script under the report's policy.
  std::string page = render_html(test::doctor_report());
  page.insert(page.find("</body>"), "<script>console.log(1)</script>");
  const std::string html = test::write_temp_file(dir, "bad.html", page);
  const test::ToolResult r = check_page(html, "");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("Content Security Policy"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace trainready
