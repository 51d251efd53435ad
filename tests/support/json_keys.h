#pragma once
// The JSON reports promise snake_case keys everywhere (docs/json-output.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace trainready::test {

// `.modules` is keyed by kernel module name, the one documented exception.
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
