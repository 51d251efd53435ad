#include "knowledge/nccl_shared_prefixes.h"

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/embedded.h"

namespace trainready {
namespace {

// The embedded list, sorted: one JSON string a line, # comments. Read when first asked (only a
// cut WARN no entry reads asks).
const std::vector<std::string>& shared() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (std::string_view line : embedded_data_lines(embedded_nccl_shared_prefixes()))
      out.push_back(nlohmann::json::parse(line).get<std::string>());
    std::sort(out.begin(), out.end());
    return out;
  }();
  return list;
}

}  // namespace

bool nccl_messages_share_beginning(std::string_view text) {
  // The texts that begin with `text` sit together in sorted order, from its lower bound on.
  const std::vector<std::string>& list = shared();
  auto it = std::lower_bound(list.begin(), list.end(), text,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != list.end() && std::string_view(*it).substr(0, text.size()) == text;
}

}  // namespace trainready
