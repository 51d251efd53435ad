// Text from inputs: quotes cut on character boundaries, malformed bytes replaced, and nothing a
// terminal would obey (ESC, C0, C1 in either encoding) printed raw.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace trainready {
namespace {

TEST(Utf8, PrefixNeverEndsInsideACharacter) {
  const std::string s = "ab日本";  // 日 = e6 97 a5, 本 = e6 9c ac
  EXPECT_EQ(utf8_prefix(s, 2), "ab");
  EXPECT_EQ(utf8_prefix(s, 3), "ab");
  EXPECT_EQ(utf8_prefix(s, 4), "ab");
  EXPECT_EQ(utf8_prefix(s, 5), "ab日");
  EXPECT_EQ(utf8_prefix(s, 7), "ab日");
  EXPECT_EQ(utf8_prefix(s, 8), s);
  EXPECT_EQ(utf8_prefix("\xf0\x9f\x98\x80x", 3), "");  // a 4-byte emoji goes whole
  EXPECT_EQ(clip_text(s, 4), "ab...");
  EXPECT_EQ(clip_text(s, 40), s);
  for (std::size_t n = 0; n <= s.size(); ++n)
    EXPECT_EQ(valid_utf8(utf8_prefix(s, n)), utf8_prefix(s, n));
}

TEST(Utf8, MalformedBytesAreReplaced) {
  EXPECT_EQ(valid_utf8("ok"), "ok");
  EXPECT_EQ(valid_utf8("a\xe6\x97"), "a\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(valid_utf8("\x9b"), "\xef\xbf\xbd");
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
  EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);         // a surrogate
}

TEST(TerminalSafe, NoControlSequenceSurvives) {
  const std::string hostile =
      "title \x1b]0;owned\x07 clear \x1b[2J c1 \xc2\x9b"
      "31m raw \x9b"
      "1;1H del \x7f ok 日本";
  const std::string safe = terminal_safe(hostile);
  EXPECT_EQ(safe.find('\x1b'), std::string::npos);
  EXPECT_EQ(safe.find('\x07'), std::string::npos);
  EXPECT_EQ(safe.find('\x7f'), std::string::npos);
  EXPECT_EQ(safe.find("\xc2\x9b"), std::string::npos);
  EXPECT_EQ(safe.find('\x9b'), std::string::npos);
  EXPECT_NE(safe.find("\\x1b]0;owned\\x07"), std::string::npos);
  EXPECT_NE(safe.find("\\u009b"), std::string::npos);
  EXPECT_NE(safe.find("日本"), std::string::npos);
  EXPECT_EQ(valid_utf8(safe), safe);
  // The reporters' own colour codes pass only when asked.
  EXPECT_EQ(terminal_safe("\x1b[1;31mERROR\x1b[0m", true), "\x1b[1;31mERROR\x1b[0m");
  EXPECT_EQ(terminal_safe("\x1b[1;31m"), "\\x1b[1;31m");
}

}  // namespace
}  // namespace trainready
