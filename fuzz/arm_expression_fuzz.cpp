// Fuzz target: the ARM expression parser and evaluator (one expression per input).
#include "fuzz/fuzz_target.h"
#include "iac/arm_expression.h"

namespace {
class Scope : public trainready::ArmScope {
 public:
  trainready::ArmValue parameter(const std::string& n) override {
    return n == "n" ? trainready::ArmValue::of(3) : trainready::ArmValue::unknown("no");
  }
  trainready::ArmValue variable(const std::string& n) override {
    return n == "s" ? trainready::ArmValue::of("a,b") : trainready::ArmValue::unknown("no");
  }
  std::optional<long long> copy_index(const std::string&) const override { return 1; }
};
}  // namespace

TRAINREADY_FUZZ_TARGET(arm_expression, text) {
  Scope s;
  (void)trainready::evaluate_arm_expression(text, s);
}
