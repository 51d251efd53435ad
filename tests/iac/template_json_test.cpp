// lint's reader of deployment JSON (iac/template_json.h): the same values, lines and errors as
// the located DOM (core/located_json.h), with a template's resources parsed one at a time.
#include "iac/template_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/input_error.h"

namespace trainready::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The whole document as the located DOM would hold it: every deferred resource parsed back in.
LocatedJson whole(const DeploymentJson& d) {
  LocatedJson out = d.json;
  for (std::size_t i = 0; i < d.resources.size(); ++i) {
    if (!d.deferred(i)) continue;
    LocatedJson piece = d.resource(i);
    out.value["resources"][i] = std::move(piece.value);
    out.lines.insert(out.lines.end(), piece.lines.begin(), piece.lines.end());
  }
  std::sort(out.lines.begin(), out.lines.end());
  out.lines.erase(std::unique(out.lines.begin(), out.lines.end()), out.lines.end());
  return out;
}

struct Outcome {
  bool ok = false;
  LocatedJson doc;
  std::string error;
  int line = 0;
};

Outcome located(const std::string& text, const std::string& name) {
  Outcome o;
  try {
    o.doc = parse_located_json(text, name, JsonDialect::kArm);
    o.ok = true;
  } catch (const InputError& e) {
    o.error = e.what();
    o.line = e.line();
  }
  return o;
}

Outcome fast(const std::string& text, const std::string& name, bool* deferred = nullptr) {
  Outcome o;
  try {
    DeploymentJson d = parse_deployment_document(text, name);
    if (deferred != nullptr)
      *deferred = std::any_of(d.resources.begin(), d.resources.end(),
                              [](const DeploymentJson::Span& s) { return s.end > s.begin; });
    o.doc = whole(d);
    o.ok = true;
  } catch (const InputError& e) {
    o.error = e.what();
    o.line = e.line();
  }
  return o;
}

void expect_same(const std::string& text, const std::string& name) {
  const Outcome a = located(text, name);
  const Outcome b = fast(text, name);
  ASSERT_EQ(a.ok, b.ok) << name << ": " << a.error << " / " << b.error;
  if (!a.ok) {
    EXPECT_EQ(a.error, b.error) << name;
    EXPECT_EQ(a.line, b.line) << name;
    return;
  }
  EXPECT_EQ(a.doc.value, b.doc.value) << name;
  EXPECT_EQ(a.doc.lines, b.doc.lines) << name;
}

const char* kTemplateHead = R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "resources": [
)";

}  // namespace

// Every JSON file the tests ship (ARM templates and parameters, Terraform plans, az and IMDS
// documents, reports): the same tree and the same line of every value as the located DOM.
TEST(TemplateJson, SameTreeAndLinesAsTheLocatedDomOverEveryJsonFixture) {
  int files = 0;
  int deferred_files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TR_TEST_DATA)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const std::string text = slurp(e.path().string());
    const std::string name = e.path().string();
    SCOPED_TRACE(name);
    expect_same(text, name);
    bool deferred = false;
    (void)fast(text, name, &deferred);
    deferred_files += deferred ? 1 : 0;
    ++files;
  }
  EXPECT_GT(files, 100);
  // The fast path and the deferral are what is compared, not only the fallback.
  EXPECT_GT(deferred_files, 10);  // 16 at this writing
}

TEST(TemplateJson, BadJsonGivesTheLocatedDomsErrorWithFileLineAndColumn) {
  const std::string head = kTemplateHead;
  const std::string vm = R"(    {"type": "Microsoft.Compute/virtualMachines", "name": "vm",
     "properties": {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated", head + vm + ",\n" + vm.substr(0, 60)},
      {"invalid-utf8", head + vm + ",\n    {\"type\": \"x\xff\"}\n  ]\n}\n"},
      {"deep", head + "    {\"a\": " + std::string(100000, '[')},
      {"deep-closed",
       head + "    {\"a\": " + std::string(300, '[') + std::string(300, ']') + "}\n  ]\n}\n"},
      {"duplicate", head + "    {\"type\": \"a\",\n     \"type\": \"b\"}\n  ]\n}\n"},
      {"trailing", head + vm + "\n  ]\n}\n}"},
      {"huge-number", head + "    {\"n\": 1e400}\n  ]\n}\n"},
      {"big-integer", head + "    {\"n\": 123456789012345678901234}\n  ]\n}\n"},
      {"lone-surrogate", head + "    {\"s\": \"\\ud800\"}\n  ]\n}\n"},
      {"control-char", head + "    {\"s\": \"a\tb\"}\n  ]\n}\n"},
      {"comment", head + "    // a comment\n" + vm + ",\n  ]\n}\n"},
      {"empty", ""},
      {"scalar", "42"},
      // A syntax error the first pass skips over (it balances a deferred element's brackets):
      // found by fuzz_template_json, the generic "(resource 0)" error said less than the DOM.
      {"colon-in-resource",
       head + "    {\"type\": \"a\", \"properties\":\" {x\": [1, true]}},\n" + vm + "\n  ]\n}\n"},
  };
  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    expect_same(text, what + ".json");
  }
  // The cases that must fail do, naming the line.
  for (const char* bad :
       {"truncated", "invalid-utf8", "deep", "deep-closed", "duplicate", "colon-in-resource"}) {
    SCOPED_TRACE(bad);
    auto it =
        std::find_if(cases.begin(), cases.end(), [&](const auto& c) { return c.first == bad; });
    const Outcome o = fast(it->second, std::string(bad) + ".json");
    EXPECT_FALSE(o.ok);
    EXPECT_GT(o.line, 0);
    EXPECT_EQ(o.error.rfind(std::string(bad) + ".json:", 0), 0u) << o.error;
  }
  EXPECT_NE(fast(cases[2].second, "deep.json").error.find("nested at most 256 levels deep"),
            std::string::npos);
}

TEST(TemplateJson, ATemplatesResourcesAreParsedOneAtATimeInOrder) {
  const std::string text = std::string(kTemplateHead) +
                           "    {\"type\": \"a\", \"name\": \"one\"},\n"
                           "    {\"type\": \"b\",\n"
                           "     \"properties\": {\"x\": [1, -2, 3.5, true, null, \"\\u00e9\"]}},\n"
                           "    7\n"
                           "  ],\n  \"outputs\": {}\n}\n";
  DeploymentJson d = parse_deployment_document(text, "t.json");
  ASSERT_EQ(d.resources.size(), 3u);
  EXPECT_TRUE(d.deferred(0));
  EXPECT_TRUE(d.deferred(1));
  EXPECT_FALSE(d.deferred(2));  // not an object: in the tree as it is
  EXPECT_TRUE(d.json.value["resources"][0].is_null());
  EXPECT_EQ(d.json.value["resources"][2], 7);
  EXPECT_EQ(d.json.line_of("/resources/1"), 6);
  EXPECT_EQ(d.json.line_of("/outputs"), 10);
  const LocatedJson one = d.resource(1);
  EXPECT_EQ(one.value["properties"]["x"][5], "\xc3\xa9");
  EXPECT_TRUE(one.value["properties"]["x"][0].is_number_unsigned());
  EXPECT_TRUE(one.value["properties"]["x"][1].is_number_integer());
  EXPECT_EQ(one.line_of("/resources/1"), 6);
  EXPECT_EQ(one.line_of("/resources/1/properties/x/2"), 7);
  // Text before a resource already read is given back: reading it again is refused.
  EXPECT_THROW((void)d.resource(0), std::logic_error);
}

// A file that is not a template keeps no text and defers nothing (az vm show has "resources").
TEST(TemplateJson, OnlyTemplatesDeferTheirResources) {
  const std::string az = R"({"type": "Microsoft.Compute/virtualMachines", "name": "vm",
  "hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"},
  "resources": [{"name": "ib", "publisher": "Microsoft.HpcCompute"}]})";
  DeploymentJson d = parse_deployment_document(az, "vm.json");
  EXPECT_TRUE(d.resources.empty());
  EXPECT_TRUE(d.text.empty());
  EXPECT_EQ(d.json.value["resources"][0]["name"], "ib");
  EXPECT_EQ(d.json.line_of("/resources/0/publisher"), 3);
}

// A key with an escape is unescaped, which consumes simdjson's copy of the key: its line is
// taken from the raw key before that (a fuzzer found field::key() read after the unescape).
TEST(TemplateJson, AKeyWithAnEscapeKeepsItsLine) {
  const std::string head = kTemplateHead;
  expect_same("{\n  \"a\\u0062\": 1,\n  \"c\": {\n    \"d\\\"e\": [2],\n    \"f\\\\\": 3\n  }\n}\n",
              "escaped-keys.json");
  expect_same(head +
                  "    {\"type\": \"Microsoft.Compute/virtualMachines\", \"name\": \"a\",\n"
                  "     \"hardware\\u0050rofile\": {\"vmSize\": \"Standard_ND96isr_H100_v5\"}}\n"
                  "  ]\n}\n",
              "escaped-resource-key.json");
  expect_same("{\n\n  \"x\\ty\": true\n}\n", "tab-key.json");
}

}  // namespace trainready::test
