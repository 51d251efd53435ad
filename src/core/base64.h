#pragma once
// RFC 4648 base64, for customData / userData / custom_data and ARM's base64() functions.
#include <optional>
#include <string>
#include <string_view>

namespace trainready {

std::string base64_encode(std::string_view in);
// Standard alphabet; padding optional; whitespace (line breaks in YAML / cloud-init) skipped.
// nullopt when any other byte is not in the alphabet.
std::optional<std::string> base64_decode(std::string_view in);

}  // namespace trainready
