#pragma once
// Helpers for tests that read the JSON reports of the CLI.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/run_cli.h"

namespace trainready::test {

// Runs trainready with --json appended, expects `want_code`, returns the parsed report.
inline nlohmann::json report_json(std::vector<std::string> args, int want_code) {
  args.push_back("--json");
  CliResult r = run_trainready(args);
  EXPECT_EQ(r.code, want_code) << r.out << r.err;
  return nlohmann::json::parse(r.out);
}

// The rule ids of the report's findings, in report order.
inline std::vector<std::string> rules_of(const nlohmann::json& j) {
  std::vector<std::string> ids;
  for (const auto& f : j["findings"]) ids.push_back(f["rule"]);
  return ids;
}

// The reports promise snake_case keys everywhere (docs/json-output.md); `.modules` is keyed by
// kernel module name, the one documented exception.
inline void expect_snake_case_keys(const nlohmann::json& j, const std::string& path = "$") {
  static const std::regex snake("^[a-z0-9_]+$");
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      EXPECT_TRUE(std::regex_match(it.key(), snake) || path.find(".modules") != std::string::npos)
          << path << "." << it.key();
      expect_snake_case_keys(it.value(), path + "." + it.key());
    }
  } else if (j.is_array()) {
    for (const auto& x : j) expect_snake_case_keys(x, path + "[]");
  }
}

}  // namespace trainready::test
