#include "report/markup_escape.h"

#include <gtest/gtest.h>

namespace trainready {
namespace {

TEST(MarkupEscape, EscapesTheFiveCharacters) {
  EXPECT_EQ(escape_markup("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
}

TEST(MarkupEscape, DropsTerminalEscapesWhole) {
  EXPECT_EQ(printable_text("\x1b[31mred\x1b[0m plain"), "red plain");
  EXPECT_EQ(printable_text("\x1b]0;title\x07"
                           "after"),
            "after");
  EXPECT_EQ(printable_text("a\x1b"
                           "cb"),
            "ab");  // ESC c (reset) and nothing else
}

TEST(MarkupEscape, DropsControlCharactersButKeepsLayout) {
  EXPECT_EQ(printable_text(std::string("a\0b\x01\x7f"
                                       "c\td\ne\r",
                                       11)),
            "abc\td\ne\r");
  EXPECT_EQ(printable_text("x\xc2\x85y"), "xy");      // C1 control NEL
  EXPECT_EQ(printable_text("x\xef\xbf\xbfy"), "xy");  // U+FFFF: not a character in XML 1.0
}

TEST(MarkupEscape, ReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable_text("a\xff"
                           "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(printable_text("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  EXPECT_EQ(printable_text("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
}

TEST(MarkupEscape, TruncatedEscapeAtTheEnd) {
  EXPECT_EQ(printable_text("ok\x1b"), "ok");
  EXPECT_EQ(printable_text("ok\x1b[3"), "ok");
}

}  // namespace
}  // namespace trainready
