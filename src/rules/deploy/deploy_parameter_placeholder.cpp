// deploy-parameter-placeholder: a value supplied for an ARM template parameter that its authors
// left for the user to fill ("GEN-UNIQUE", "<your-vnet>", "REPLACE_ME", an empty string for a
// required parameter) and that ARM would accept as written: the deployment would go ahead with
// the placeholder as a name, password or key. A placeholder ARM refuses is
// deploy-parameter-invalid instead.
#include "queries/deployment_queries.h"
#include "rules/deploy/parameter_location.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployParameterPlaceholder final : public Rule {
 public:
  std::string_view id() const override { return "deploy-parameter-placeholder"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Parameter value left to fill"; }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const ParameterProblem& p : ctx.deployment->parameter_problems) {
      if (p.refused || !p.placeholder) continue;
      Finding f = finding(p.message);
      f.evidence.push_back({"declared: " + p.declaration, p.declared});
      f.cause =
          "The parameters file was published with a value for the user to fill in. Resource "
          "Manager accepts it as written, so the deployment would create resources named, "
          "keyed or logged into with the placeholder itself. The rest of the template was "
          "linted with this value unknown.";
      f.fix = "Fill in the value for your deployment in the parameters file, or pass it with -p " +
              p.name + "=VALUE (a secret: a Key Vault reference in the parameters file).";
      locate_parameter_value(f, p);
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_parameter_placeholder() {
  return std::make_unique<DeployParameterPlaceholder>();
}

}  // namespace trainready
