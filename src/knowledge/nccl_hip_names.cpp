#include "knowledge/nccl_hip_names.h"

#include <map>

#include "core/embedded.h"

namespace trainready {
namespace {

bool word_char(char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// HIP name -> CUDA name: the first two tab-separated fields of each line; and whether every HIP
// name begins with "hip" (a text without it then holds none).
struct Table {
  std::map<std::string, std::string, std::less<>> names;
  bool all_hip = true;
};

const Table& table() {
  static const Table t = [] {
    Table out;
    for (std::string_view line : embedded_data_lines(embedded_nccl_hip_names())) {
      const std::size_t a = line.find('\t');
      if (a == std::string_view::npos) continue;
      const std::size_t b = line.find('\t', a + 1);
      const std::string_view hip = line.substr(0, a);
      out.all_hip = out.all_hip && hip.starts_with("hip");
      out.names.emplace(std::string(hip), std::string(line.substr(a + 1, b - a - 1)));
    }
    return out;
  }();
  return t;
}

}  // namespace

std::string nccl_cuda_spelling(std::string_view text) {
  const Table& t = table();
  if (t.names.empty() || (t.all_hip && text.find("hip") == std::string_view::npos)) return "";
  const auto& names = t.names;
  std::string out;
  bool changed = false;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!word_char(text[i])) {
      out += text[i++];
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && word_char(text[j])) ++j;
    const std::string_view w = text.substr(i, j - i);
    auto it = names.find(w);
    if (it != names.end()) {
      out += it->second;
      changed = true;
    } else {
      out += w;
    }
    i = j;
  }
  return changed ? out : "";
}

}  // namespace trainready
