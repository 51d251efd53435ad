#pragma once
#include <optional>
#include <string_view>

namespace trainready {

// Ordered: a higher value is more severe.
enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };

std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view s);

}  // namespace trainready
