#include "parsers/env_file.h"

#include <algorithm>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {

bool is_nccl_related_key(std::string_view key) {
  return key.rfind("NCCL_", 0) == 0 || key.rfind("UCX_", 0) == 0;
}

std::map<std::string, std::string> parse_env_capture(std::string_view text) {
  std::map<std::string, std::string> out;
  const char sep = text.find('\0') != std::string_view::npos ? '\0' : '\n';
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(start, end - start);
    if (!entry.empty() && entry.back() == '\r') entry.remove_suffix(1);
    if (entry.rfind("export ", 0) == 0) entry.remove_prefix(7);
    auto eq = entry.find('=');
    if (eq != std::string_view::npos) {
      std::string_view key = trim(entry.substr(0, eq));
      if (is_nccl_related_key(key)) {
        std::string_view v = entry.substr(eq + 1);
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
          v = v.substr(1, v.size() - 2);
        }
        out[std::string(key)] = std::string(v);
      }
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

std::map<std::string, std::string> parse_nccl_conf(std::string_view text,
                                                   const std::string& source) {
  std::map<std::string, std::string> out;
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    std::string_view key = eq == std::string_view::npos ? line : trim(line.substr(0, eq));
    const bool key_ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (eq == std::string_view::npos || !key_ok) {
      throw InputError(source, lineno, "expected NAME=VALUE or a # comment");
    }
    out[std::string(key)] = std::string(trim(line.substr(eq + 1)));
  }
  return out;
}

}  // namespace trainready
