// The text reporter on every page kind: what it shows, and that no control character from an
// input (a host name, a log line, a path) reaches the terminal.
#include <gtest/gtest.h>

#include "core/text.h"
#include "report/sample_reports.h"
#include "report/text/text_reporter.h"

namespace trainready {
namespace {

// Scans for what a terminal would act on, without asking terminal_safe: C0 controls other than
// newline and tab, DEL, C1 controls as UTF-8, and escapes other than the palette's own codes.
bool has_raw_control(const std::string& s, bool allow_palette) {
  static const char* const kPalette[] = {"\x1b[0m",    "\x1b[1m",    "\x1b[1;31m",
                                         "\x1b[1;32m", "\x1b[1;33m", "\x1b[1;36m"};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && allow_palette) {
      bool ours = false;
      for (const char* p : kPalette) {
        const std::string code(p);
        if (s.compare(i, code.size(), code) == 0) {
          ours = true;
          i += code.size() - 1;
          break;
        }
      }
      if (ours) continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

TEST(TextReporter, EveryPageKindRendersItsVerdictFirst) {
  for (const auto& [name, report] : test::all_sample_reports()) {
    const std::string out = render_text(report, {});
    EXPECT_EQ(out.rfind(report.verdict.line.substr(0, 10), 0), 0u) << name << "\n" << out;
    EXPECT_NE(out.find("exit " + std::to_string(report.exit_code)), std::string::npos) << name;
  }
}

TEST(TextReporter, InputTextNeverCarriesControlCharactersToTheTerminal) {
  for (const auto& [name, report] : test::all_sample_reports()) {
    const std::string plain = render_text(report, {false, false});
    EXPECT_EQ(plain.find('\x1b'), std::string::npos) << name;
    EXPECT_FALSE(has_raw_control(plain, false)) << name;
    // With colour, only the reporter's own colour codes pass.
    const std::string colour = render_text(report, {true, false});
    EXPECT_FALSE(has_raw_control(colour, true)) << name;
  }
  Report r = test::doctor_report();
  r.nodes.front().label = "node\x1b]0;pwned\x07\r\x9b";
  const std::string out = render_text(r, {true, false});
  EXPECT_EQ(out.find("\x1b]0;"), std::string::npos);
  EXPECT_NE(out.find("node\\x1b]0;pwned\\x07\\x0d"), std::string::npos) << out;
}

TEST(TerminalSafe, EscapesControlsAndKeepsOnlyThePalette) {
  EXPECT_EQ(terminal_safe("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(terminal_safe("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "\\u009b31m");                             // C1 CSI as UTF-8
  EXPECT_EQ(terminal_safe("h\xc3\xa9"), "h\xc3\xa9");  // é stays
  EXPECT_EQ(terminal_safe("\x1b[1;31mX\x1b[0m", true), "\x1b[1;31mX\x1b[0m");
  EXPECT_EQ(terminal_safe("\x1b[1;31mX\x1b[0m", false), "\\x1b[1;31mX\\x1b[0m");
  EXPECT_EQ(terminal_safe("\x1b[8m", true), "\\x1b[8m");  // conceal: not ours
}

}  // namespace
}  // namespace trainready
