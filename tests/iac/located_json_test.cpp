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

TEST(LocatedJson, ArmDialectCommentsTrailingCommasAndMultiLineStringsKeepLines) {
  const std::string text =
      "{ // a template\n"                                              // 1
      "  /* block\n"                                                   // 2
      "     comment */ \"a\": 1,\n"                                    // 3
      "  \"expr\": \"[if(equals(1, 1),\n"                              // 4
      "      'x', 'y')]\",\n"                                          // 5
      "  \"list\": [1, 2, /* three */ ],\n"                            // 6
      "  \"url\": \"https://x/y//z\", // not a comment in a string\n"  // 7
      "  \"last\": true, // trailing\n"                                // 8
      "}\n";                                                           // 9
  EXPECT_THROW(parse_located_json(text, "t.json"), InputError);        // strict JSON refuses it
  auto d = parse_located_json(text, "t.json", JsonDialect::kArm);
  EXPECT_EQ(d.line_of("/a"), 3);
  EXPECT_EQ(d.line_of("/expr"), 4);
  EXPECT_EQ(d.value["expr"], "[if(equals(1, 1),\n      'x', 'y')]");  // the line break is kept
  EXPECT_EQ(d.line_of("/list"), 6);
  EXPECT_EQ(d.value["list"].size(), 2u);
  EXPECT_EQ(d.value["url"], "https://x/y//z");
  EXPECT_EQ(d.line_of("/last"), 8);
  EXPECT_EQ(d.value["last"], true);
}

TEST(LocatedJson, ArmDialectStillRefusesWhatArmRefuses) {
  for (const char* bad : {"{\"a\": [1,,]}", "[,]", "{,}", "{\"a\": 1 /* open", "{\"a\": 1,, }",
                          "{\"a\": 1} trailing", "{\"a\" 1}"}) {
    EXPECT_THROW(parse_located_json(bad, "b.json", JsonDialect::kArm), InputError) << bad;
  }
  try {
    parse_located_json("{\n  \"a\": [1,\n  2,,\n]}", "bad.json", JsonDialect::kArm);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3) << e.what();
  }
}

TEST(LocatedJson, DuplicateKeysAreRefusedNamingBothLines) {
  for (JsonDialect dialect : {JsonDialect::kStrict, JsonDialect::kArm}) {
    try {
      parse_located_json(
          "{\n  \"sku\": {\n    \"capacity\": 2,\n    \"name\": \"x\",\n"
          "    \"capacity\": 200\n  }\n}\n",
          "dup.json", dialect);
      FAIL();
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 5);
      EXPECT_NE(std::string(e.what()).find("\"capacity\" appears twice in one object (line 3 and "
                                           "line 5)"),
                std::string::npos)
          << e.what();
    }
  }
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_located_json("[{\"a\": 1}, {\"a\": 2}]", "ok.json"));
}

TEST(LocatedJson, LineTableStaysSmall) {
  // One 16-byte entry per value, not a node of a hash map per value.
  std::string text = "[";
  for (int i = 0; i < 10000; ++i) text += (i ? ",\n" : "\n") + std::to_string(i);
  text += "]";
  auto d = parse_located_json(text, "n.json");
  EXPECT_EQ(d.lines.size(), 10000u);
  EXPECT_EQ(d.line_of("/9999"), 10001);
  EXPECT_EQ(d.line_of("/0"), 2);
}

}  // namespace trainready::test
