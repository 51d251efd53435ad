#include "parsers/slurm_hostlist.h"

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"

namespace trainready {
namespace {

[[noreturn]] void bad(std::string_view expr, const std::string& source, int line,
                      const std::string& why) {
  throw InputError(source, line,
                   "expected a Slurm hostlist such as node[01-04,07], got '" +
                       terminal_safe(clip_text(expr, 80)) + "': " + why);
}

// Splits at commas that are outside brackets.
std::vector<std::string_view> top_level_items(std::string_view expr, const std::string& source,
                                              int line) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == '[') {
      if (++depth > 1) bad(expr, source, line, "nested '['");
    } else if (expr[i] == ']') {
      if (--depth < 0) bad(expr, source, line, "']' without '['");
    } else if (expr[i] == ',' && depth == 0) {
      out.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) bad(expr, source, line, "'[' without ']'");
  out.push_back(expr.substr(start));
  return out;
}

// "01-04,07" -> {"01","02","03","04","07"}, keeping the width of the lower bound.
std::vector<std::string> expand_ranges(std::string_view inner, std::string_view expr,
                                       const std::string& source, int line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= inner.size()) {
    std::size_t comma = inner.find(',', start);
    if (comma == std::string_view::npos) comma = inner.size();
    const std::string_view part = trim(inner.substr(start, comma - start));
    if (part.empty()) bad(expr, source, line, "an empty range");
    const std::size_t dash = part.find('-');
    const std::string_view lo_s = part.substr(0, dash);
    const std::string_view hi_s = dash == std::string_view::npos ? lo_s : part.substr(dash + 1);
    const auto lo = parse_int(lo_s);
    const auto hi = parse_int(hi_s);
    if (!lo || !hi || *lo < 0 || *hi < *lo || lo_s.size() > 18 || hi_s.size() > 18)
      bad(expr, source, line, "'" + std::string(part) + "' is not a range N or N-M");
    if (static_cast<std::uint64_t>(*hi - *lo) >= kMaxHostlistNames)
      bad(expr, source, line, "more than " + std::to_string(kMaxHostlistNames) + " names");
    for (std::int64_t v = *lo; v <= *hi; ++v) {
      std::string num = std::to_string(v);
      if (num.size() < lo_s.size()) num.insert(0, lo_s.size() - num.size(), '0');
      out.push_back(std::move(num));
      if (out.size() > kMaxHostlistNames)
        bad(expr, source, line, "more than " + std::to_string(kMaxHostlistNames) + " names");
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expr, const std::string& source,
                                         int line) {
  std::vector<std::string> names;
  for (std::string_view item : top_level_items(trim(expr), source, line)) {
    item = trim(item);
    if (item.empty()) continue;
    // Expand each bracket group left to right: "a[1-2]b[3-4]" -> a1b3 a1b4 a2b3 a2b4.
    std::vector<std::string> partial{""};
    std::size_t pos = 0;
    while (pos < item.size()) {
      const std::size_t open = item.find('[', pos);
      const std::string_view text =
          item.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos);
      for (auto& p : partial) p += text;
      if (open == std::string_view::npos) break;
      const std::size_t close = item.find(']', open);
      const std::vector<std::string> nums =
          expand_ranges(item.substr(open + 1, close - open - 1), expr, source, line);
      if (partial.size() * nums.size() + names.size() > kMaxHostlistNames)
        bad(expr, source, line, "more than " + std::to_string(kMaxHostlistNames) + " names");
      std::vector<std::string> next;
      next.reserve(partial.size() * nums.size());
      for (const auto& p : partial)
        for (const auto& n : nums) next.push_back(p + n);
      partial = std::move(next);
      pos = close + 1;
    }
    for (auto& p : partial) names.push_back(std::move(p));
  }
  return names;
}

}  // namespace trainready
