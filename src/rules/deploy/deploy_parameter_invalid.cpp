// deploy-parameter-invalid: a value supplied for an ARM template parameter (a parameters file
// or -p) that ARM refuses before it deploys anything: not of the declared type, not one of the
// allowedValues, outside minValue/maxValue or minLength/maxLength, or not declared by the
// template; or a -p text az cannot convert to the declared type. The readers found it
// (iac/parameter_values.cpp); the rest of the template was linted with the value unknown.
#include "queries/deployment_queries.h"
#include "rules/deploy/parameter_location.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployParameterInvalid final : public Rule {
 public:
  std::string_view id() const override { return "deploy-parameter-invalid"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Parameter value the deployment would refuse"; }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const ParameterProblem& p : ctx.deployment->parameter_problems) {
      if (!p.refused) continue;
      Finding f = finding(p.message);
      f.evidence.push_back({"declared: " + p.declaration, p.declared});
      f.cause =
          p.placeholder
              ? "The parameters file was published with a value for the user to fill in. Resource "
                "Manager checks every supplied value against the parameter's declaration before "
                "it creates anything, and this one fails that check: the deployment is refused."
              : "Resource Manager checks every supplied value against the parameter's "
                "declaration (type, allowedValues, minValue/maxValue, minLength/maxLength, and "
                "that the template declares it) before it creates anything; this one fails, so "
                "the deployment is refused. The rest of the template was linted with this value "
                "unknown.";
      f.fix = p.placeholder
                  ? "Fill in the value for your deployment (one the declaration allows) in the "
                    "parameters file, or pass it with -p " +
                        p.name + "=VALUE."
                  : "Pass a value the declaration allows (see the evidence), or change the "
                    "declaration if the template is yours.";
      locate_parameter_value(f, p);
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_parameter_invalid() {
  return std::make_unique<DeployParameterInvalid>();
}

}  // namespace trainready
