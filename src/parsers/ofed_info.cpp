#include "parsers/ofed_info.h"

#include <cctype>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {
namespace {

constexpr std::string_view kPrefixes[] = {"MLNX_OFED_LINUX-", "OFED-internal-", "DOCA-OFED-",
                                          "MLNX_EN_LINUX-", "OFED-"};

bool version_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

}  // namespace

std::string parse_ofed_info(std::string_view text, const std::string& source) {
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    for (std::string_view p : kPrefixes) {
      auto at = line.find(p);
      if (at == std::string_view::npos) continue;
      std::size_t e = at + p.size();
      if (e >= line.size() || !std::isdigit(static_cast<unsigned char>(line[e]))) continue;
      while (e < line.size() && version_char(line[e])) ++e;
      std::string v(line.substr(at, e - at));
      while (!v.empty() && (v.back() == '-' || v.back() == '.')) v.pop_back();
      return v;
    }
  }
  throw InputError(source, 1,
                   "expected `ofed_info -s` output such as \"MLNX_OFED_LINUX-5.8-1.0.1.1:\"");
}

}  // namespace trainready
