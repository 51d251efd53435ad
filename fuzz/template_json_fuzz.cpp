// Fuzz target: lint's simdjson reader (iac/template_json.h) against the located DOM. Any input
// gives both the same answer: the same error (file, line, message), or the same values and the
// same line for every value, a template's deferred resources parsed back in.
#include <algorithm>
#include <cstdlib>

#include "fuzz/fuzz_target.h"
#include "iac/template_json.h"

TRAINREADY_FUZZ_TARGET(template_json, text) {
  using trainready::InputError;
  using trainready::LocatedJson;
  const std::string s(text);
  std::string expected_error;
  LocatedJson expected;
  try {
    expected = trainready::parse_located_json(s, "fuzz.json", trainready::JsonDialect::kArm);
  } catch (const InputError& e) {
    expected_error = e.what();
  }
  std::string error;
  LocatedJson got;
  try {
    trainready::DeploymentJson d = trainready::parse_deployment_document(s, "fuzz.json");
    got = d.json;
    for (std::size_t i = 0; i < d.resources.size(); ++i) {
      if (!d.deferred(i)) continue;
      LocatedJson piece = d.resource(i);
      got.value["resources"][i] = std::move(piece.value);
      got.lines.insert(got.lines.end(), piece.lines.begin(), piece.lines.end());
    }
    std::sort(got.lines.begin(), got.lines.end());
    got.lines.erase(std::unique(got.lines.begin(), got.lines.end()), got.lines.end());
  } catch (const InputError& e) {
    error = e.what();
  }
  if (error != expected_error) std::abort();
  if (error.empty() && (got.value != expected.value || got.lines != expected.lines)) std::abort();
}
