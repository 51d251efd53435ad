#pragma once
// ARM template expressions ("[concat(parameters('p'), '-x')]"): a parser and an evaluator for
// the pure functions real templates use. What depends on the deployment (reference(),
// resourceGroup(), uniqueString(), ...) evaluates to unknown with the raw expression kept, never
// to a guess. User-defined functions are evaluated through the scope.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainready {

struct ArmValue {
  bool known = false;
  nlohmann::json value;  // when known
  std::string why;       // when unknown: what could not be resolved

  static ArmValue of(nlohmann::json v) { return ArmValue{true, std::move(v), {}}; }
  static ArmValue unknown(std::string why) { return ArmValue{false, nullptr, std::move(why)}; }
};

// The names an expression can see. Parameters and variables are looked up lazily so that a
// variable referring to another is evaluated once, on demand.
class ArmScope {
 public:
  virtual ~ArmScope() = default;
  virtual ArmValue parameter(const std::string& name) = 0;
  virtual ArmValue variable(const std::string& name) = 0;
  // copyIndex() / copyIndex('loop'): empty name = the innermost loop.
  virtual std::optional<long long> copy_index(const std::string& loop) const = 0;
  // deployment(): known only where the template's own location is (a linked template read
  // from disk), as {"properties": {"templateLink": {"uri": "file:///..."}}}.
  virtual ArmValue deployment() {
    return ArmValue::unknown("deployment() depends on the deployment or is not evaluated here");
  }
  // A user-defined function "namespace.member" (a template's `functions`, Bicep's __bicep.*)
  // called with evaluated arguments.
  virtual ArmValue user_function(const std::string& name, const std::vector<nlohmann::json>& args) {
    (void)args;
    return ArmValue::unknown("user-defined function " + name + "() not declared");
  }
};

// True for a string ARM evaluates: "[...]" but not the escaped literal "[[...".
bool is_arm_expression(std::string_view s);

// Evaluates one expression string (with its brackets). Throws nothing: a syntax error is an
// unknown value whose `why` says what was expected where.
ArmValue evaluate_arm_expression(std::string_view expression, ArmScope& scope);

// Evaluates every expression string inside `v` (objects, arrays). An expression that stays
// unknown is left in place as its raw "[...]" text, the way ARM itself marks expressions.
nlohmann::json evaluate_arm_json(const nlohmann::json& v, ArmScope& scope);

// A literal string "[[x]" → "[x]"; anything else unchanged.
std::string unescape_arm_literal(const std::string& s);

}  // namespace trainready
