#pragma once
// The test hooks of the multi-rank commands (fleet, watch under a launcher): an environment
// variable "RANK:KIND[,RANK:KIND...]" that makes the named ranks misbehave, so the tests can show
// rank 0 carries on. One reader for every such hook, so they spell and fail alike.
#include <map>
#include <string>

#include "core/input_error.h"

namespace trainready {

// Throws InputError naming `env` when an item is not RANK:KIND with KIND one of `kinds`.
template <class Kind>
std::map<int, Kind> parse_rank_faults(const std::string& spec,
                                      const std::map<std::string, Kind>& kinds, const char* env) {
  std::map<int, Kind> out;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    std::size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t colon = item.find(':');
    auto kind = colon == std::string::npos ? kinds.end() : kinds.find(item.substr(colon + 1));
    const std::string digits = colon == std::string::npos ? "" : item.substr(0, colon);
    if (kind == kinds.end() || digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      std::string names;
      for (const auto& [name, k] : kinds) names += (names.empty() ? "" : ", ") + name;
      throw InputError(env, 0, "expected RANK:KIND (KIND: " + names + "), got \"" + item + "\"");
    }
    out[std::stoi(digits)] = kind->second;
  }
  return out;
}

}  // namespace trainready
