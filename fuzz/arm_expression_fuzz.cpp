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
  trainready::ArmValue deployment() override {
    return trainready::ArmValue::of(
        {{"properties", {{"templateLink", {{"uri", "file:///t/main.json"}}}}}});
  }
  // A user-defined function: its arguments' count, or itself re-entered once.
  trainready::ArmValue user_function(const std::string& name,
                                     const std::vector<nlohmann::json>& args) override {
    if (depth_ > 0 || args.empty() || !args[0].is_string())
      return trainready::ArmValue::of(static_cast<long long>(args.size()));
    ++depth_;
    auto r = trainready::evaluate_arm_expression(args[0].get<std::string>(), *this);
    --depth_;
    (void)name;
    return r;
  }

 private:
  int depth_ = 0;
};
}  // namespace

TRAINREADY_FUZZ_TARGET(arm_expression, text) {
  Scope s;
  (void)trainready::evaluate_arm_expression(text, s);
}
