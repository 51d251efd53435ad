#include "core/located_json.h"

#include <gtest/gtest.h>

#include "core/input_error.h"

namespace trainready::test {

TEST(LocatedJson, RecordsTheLineOfEveryKeyAndElement) {
  auto d = parse_located_json(
      "{\n  \"a\": {\n    \"b/c\": 1,\n    \"list\": [\n      7,\n      {\"x\": true}\n    ]\n  "
      "}\n}\n",
      "f.json");
  EXPECT_EQ(d.line_of("/a"), 2);
  EXPECT_EQ(d.line_of("/a/b~1c"), 3);
  EXPECT_EQ(d.line_of("/a/list/0"), 5);
  EXPECT_EQ(d.line_of("/a/list/1/x"), 6);
  EXPECT_EQ(d.line_of("/a/list/1/missing"), 6);  // nearest ancestor
  EXPECT_EQ(d.value["a"]["list"][1]["x"], true);
}

TEST(LocatedJson, MalformedJsonNamesFileLineAndColumn) {
  try {
    parse_located_json("{\n  \"a\": [1,\n  2,,\n]}", "bad.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("bad.json:3: column"), std::string::npos);
  }
}

TEST(LocatedJson, DeepNestingAndTruncationDoNotCrash) {
  std::string deep(100000, '[');
  EXPECT_THROW(parse_located_json(deep, "deep.json"), InputError);
  EXPECT_THROW(parse_located_json("{\"a\": \"unterminated", "t.json"), InputError);
  // Valid but absurdly deep JSON is refused with its line, not walked.
  std::string valid_deep = std::string(300, '[') + std::string(300, ']');
  try {
    parse_located_json(valid_deep, "deep.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 256 levels"), std::string::npos);
  }
  EXPECT_THROW(parse_located_json("", "empty.json"), InputError);
}

}  // namespace trainready::test
