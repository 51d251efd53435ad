// deploy-parameter-invalid and deploy-parameter-placeholder: each fires on its kind of
// ParameterProblem, at the value's line (or, for a -p value, on the declaration), and stays quiet
// on the other kind and on values that are fine.
#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {
namespace {

DeploymentFacts with_problem(bool refused, bool placeholder, Provenance where) {
  DeploymentFacts d;
  ParameterProblem p;
  p.name = "vmssName";
  p.refused = refused;
  p.placeholder = placeholder;
  p.message = "parameter 'vmssName' = \"GEN-UNIQUE-8\" is a value left to fill";
  p.declaration = "type string, maxLength 8, required";
  p.where = std::move(where);
  p.declared = Provenance{"azuredeploy.json", 12};
  d.parameter_problems.push_back(p);
  return d;
}

}  // namespace

TEST(DeployParameterInvalid, FiresOnARefusedValueAtItsLine) {
  auto o = run_deploy_rule("deploy-parameter-invalid",
                           with_problem(true, true, {"azuredeploy.parameters.json", 6}));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.location.str(), "azuredeploy.parameters.json:6");
  EXPECT_EQ(f.resource, "parameters('vmssName')");
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_EQ(f.evidence[0].where.str(), "azuredeploy.json:12");
  EXPECT_NE(f.fix.find("-p vmssName=VALUE"), std::string::npos);
}

TEST(DeployParameterInvalid, ACliValueSitsOnTheDeclaration) {
  auto o =
      run_deploy_rule("deploy-parameter-invalid", with_problem(true, false, {"-p vmssName", 0}));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_TRUE(o.findings[0].location.source.empty());
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[1].text, "value given as -p vmssName");
}

TEST(DeployParameterInvalid, QuietOnPlaceholdersArmAcceptsAndOnNoProblems) {
  EXPECT_TRUE(run_deploy_rule("deploy-parameter-invalid", with_problem(false, true, {"p.json", 6}))
                  .findings.empty());
  EXPECT_TRUE(run_deploy_rule("deploy-parameter-invalid", DeploymentFacts{}).findings.empty());
}

TEST(DeployParameterPlaceholder, FiresOnAPlaceholderArmAccepts) {
  auto o =
      run_deploy_rule("deploy-parameter-placeholder", with_problem(false, true, {"p.json", 6}));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(o.findings[0].location.str(), "p.json:6");
}

TEST(DeployParameterPlaceholder, QuietOnRefusedValuesAndOnNoProblems) {
  EXPECT_TRUE(
      run_deploy_rule("deploy-parameter-placeholder", with_problem(true, true, {"p.json", 6}))
          .findings.empty());
  EXPECT_TRUE(run_deploy_rule("deploy-parameter-placeholder", DeploymentFacts{}).findings.empty());
}

}  // namespace trainready::test
