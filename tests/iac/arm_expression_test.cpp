#include "iac/arm_expression.h"

#include <gtest/gtest.h>

#include <map>

namespace trainready::test {

namespace {
class FakeScope : public ArmScope {
 public:
  std::map<std::string, nlohmann::json> params{{"count", 12}, {"size", "Standard_ND96isr_H100_v5"}};
  ArmValue parameter(const std::string& n) override {
    auto it = params.find(n);
    return it == params.end() ? ArmValue::unknown("no " + n) : ArmValue::of(it->second);
  }
  ArmValue variable(const std::string& n) override {
    if (n == "obj") return ArmValue::of({{"Name", "x"}, {"list", {1, 2, 3}}});
    return ArmValue::unknown("no " + n);
  }
  std::optional<long long> copy_index(const std::string&) const override { return 2; }
};

nlohmann::json eval(const std::string& e) {
  FakeScope s;
  ArmValue v = evaluate_arm_expression(e, s);
  return v.known ? v.value : nlohmann::json("UNKNOWN: " + v.why);
}
}  // namespace

TEST(ArmExpression, EvaluatesThePureFunctionsTemplatesUse) {
  EXPECT_EQ(eval("[concat('nd-', string(copyIndex(1)))]"), "nd-3");
  EXPECT_EQ(eval("[format('{0}/{1}', 'vm', padLeft(string(add(copyIndex(), 5)), 3, '0'))]"),
            "vm/007");
  EXPECT_EQ(eval("[if(greater(parameters('count'), 100), 'big', 'small')]"), "small");
  EXPECT_EQ(
      eval("[and(equals(toLower(parameters('size')), 'standard_nd96isr_h100_v5'), not(false()))]"),
      true);
  EXPECT_EQ(eval("[or(true(), reference('x').y)]"), true);  // short-circuit past an unknown
  EXPECT_EQ(eval("[length(variables('obj').list)]"), 3);
  EXPECT_EQ(eval("[variables('obj')['name']]"), "x");
  EXPECT_EQ(eval("[int('42')]"), 42);
  EXPECT_EQ(eval("[bool('true')]"), true);
  EXPECT_EQ(eval("[split('a,b', ',')[1]]"), "b");
  EXPECT_EQ(eval("[contains(toLower(split(parameters('size'), '_')[1]), 'r')]"), true);
  EXPECT_EQ(eval("[base64ToString(base64('NCCL_IB_DISABLE=1'))]"), "NCCL_IB_DISABLE=1");
  EXPECT_EQ(eval("[resourceId('Microsoft.Compute/availabilitySets', 'set')]"),
            "/subscriptions/{subscription}/resourceGroups/{resourceGroup}/providers/"
            "Microsoft.Compute/availabilitySets/set");
  EXPECT_EQ(eval("[length(range(0, parameters('count')))]"), 12);
  EXPECT_EQ(eval("[union(createObject('a', 1), createObject('b', 2))]"),
            nlohmann::json({{"a", 1}, {"b", 2}}));
  EXPECT_EQ(eval("[[not an expression]"), "[not an expression]");
}

TEST(ArmExpression, WhatDependsOnTheDeploymentStaysUnknown) {
  FakeScope s;
  for (const char* e : {"[resourceGroup().location]", "[uniqueString('a')]",
                        "[parameters('missing')]", "[__bicep.fn(1)]", "[reference('x').id]"}) {
    ArmValue v = evaluate_arm_expression(e, s);
    EXPECT_FALSE(v.known) << e;
    EXPECT_FALSE(v.why.empty()) << e;
  }
}

TEST(ArmExpression, UriAndMultiLineExpressions) {
  EXPECT_EQ(eval("[uri('https://x/y/main.json', 'child.json')]"), "https://x/y/child.json");
  EXPECT_EQ(eval("[uri('https://x/y/', '/nested/c.json')]"), "https://x/y/nested/c.json");
  // A multi-line expression (ARM's dialect keeps the line break in the string).
  EXPECT_EQ(eval("[if(greater(parameters('count'), 100),\n    'big',\n    'small')]"), "small");
  FakeScope s;
  EXPECT_FALSE(evaluate_arm_expression("[deployment().properties.templateLink.uri]", s).known);
}

TEST(ArmExpression, SyntaxErrorsAreUnknownWithWhereExpected) {
  FakeScope s;
  for (const char* e : {"[concat('a']", "[format(]", "['unterminated]", "[a b]", "[1.2.3.]"}) {
    ArmValue v = evaluate_arm_expression(e, s);
    EXPECT_FALSE(v.known) << e;
  }
  EXPECT_TRUE(evaluate_arm_expression("[concat('a'", s).known);  // no closing ']': a literal
  ArmValue v = evaluate_arm_expression("[concat('a']", s);
  EXPECT_NE(v.why.find("expected"), std::string::npos);
  std::string deep = "[" + std::string(500, '(');
  EXPECT_FALSE(evaluate_arm_expression(deep + "]", s).known);
}

}  // namespace trainready::test
