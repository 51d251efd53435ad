#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace trainready {

// Parses JSON; on error throws InputError naming the file, line and column and what was
// expected.
nlohmann::json parse_json_or_throw(std::string_view text, const std::string& file);

}  // namespace trainready
