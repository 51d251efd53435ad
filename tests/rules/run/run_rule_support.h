#pragma once
// Reads the logs and tables the run-rule tests judge.
#include <string>

#include "engine/engine.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"
#include "support/paths.h"
#include "support/rule_harness.h"

namespace trainready::test {

inline NcclRunFacts log_fixture(const std::string& rel) {
  return analyze_nccl_logs({fixture(rel)});
}
inline NcclRunFacts log_synthetic(const std::string& name) {
  return analyze_nccl_logs({synthetic_log(name)});
}
inline NcclRunFacts log_text(const std::string& text) {
  return analyze_nccl_log_text(text, "t.log");
}
// Every rule over a log written in the test, in the engine's order (first failure in time,
// severity, rank): what `trainready nccl` would print first.
inline std::vector<Finding> judge_log(const std::string& text) {
  const NcclRunFacts f = log_text(text);
  RunInputs run;
  run.nccl_log = &f;
  return evaluate_rules({}, Catalog::builtin(), {}, &run).findings;
}
inline NcclTestsFacts tests_fixture(const std::string& rel) {
  return parse_nccl_tests_file(fixture(rel));
}
inline RuleOutcome log_rule(const std::string& id, const NcclRunFacts& f) {
  return run_run_rule(id, &f, nullptr);
}

}  // namespace trainready::test
