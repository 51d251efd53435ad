#include "parsers/ucx_log_line.h"

namespace trainready {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

std::size_t skip_blanks(std::string_view t, std::size_t i) {
  while (i < t.size() && t[i] == ' ') ++i;
  return i;
}

// The word at `i` (up to a blank), or empty.
std::string_view word_at(std::string_view t, std::size_t i) {
  std::size_t e = i;
  while (e < t.size() && t[e] != ' ') ++e;
  return t.substr(i, e - i);
}

// Past "[SEC.USEC]" and the bracketed "[HOST:PID:THREAD]" / "[THREAD]" after it; npos when `t`
// does not start so.
std::size_t past_head(std::string_view t) {
  std::size_t i = 0;
  if (t.empty() || t[0] != '[') return std::string_view::npos;
  ++i;
  const std::size_t sec = i;
  while (i < t.size() && digit(t[i])) ++i;
  if (i == sec || i >= t.size() || t[i] != '.') return std::string_view::npos;
  const std::size_t usec = ++i;
  while (i < t.size() && digit(t[i])) ++i;
  if (i - usec != 6 || i >= t.size() || t[i] != ']') return std::string_view::npos;
  i = skip_blanks(t, i + 1);
  if (i < t.size() && t[i] == '[') {
    const std::size_t close = t.find(']', i);
    if (close == std::string_view::npos || close - i > 300) return std::string_view::npos;
    i = skip_blanks(t, close + 1);
  }
  return i;
}

}  // namespace

std::optional<UcxLogLine> read_ucx_log_line(std::string_view t) {
  // An excerpt may start at the file ("ucp_context.c:1321 UCX  WARN  ..."): then only UCX's own
  // component name is taken.
  const bool headless = t.empty() || t[0] != '[';
  std::size_t i = headless ? 0 : past_head(t);
  if (i == std::string_view::npos) return std::nullopt;
  // "FILE:LINE"
  const std::string_view site = word_at(t, i);
  const std::size_t colon = site.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= site.size() ||
      site.size() > 128)
    return std::nullopt;
  for (const char c : site.substr(colon + 1))
    if (!digit(c)) return std::nullopt;
  const std::string_view file = site.substr(0, colon);
  if (file.find('.') == std::string_view::npos) return std::nullopt;  // "ucp_context.c"
  i = skip_blanks(t, i + site.size());
  // "UCX" (the component), then the level.
  const std::string_view component = word_at(t, i);
  if (component.empty() || component.size() > 32 || (headless && component != "UCX"))
    return std::nullopt;
  for (const char c : component)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || digit(c) || c == '_'))
      return std::nullopt;
  i = skip_blanks(t, i + component.size());
  const std::string_view level = word_at(t, i);
  static constexpr std::string_view kLevels[] = {"FATAL", "ERROR", "WARN", "DIAG", "INFO",
                                                 "DEBUG", "TRACE", "REQ",  "DATA", "ASYNC",
                                                 "FUNC",  "POLL",  "PRINT"};
  bool known = false;
  for (std::string_view l : kLevels) known = known || level == l;
  if (!known) return std::nullopt;
  UcxLogLine u;
  u.component = component;
  u.site = site;
  u.level = level;
  u.message = t.substr(skip_blanks(t, i + level.size()));
  if (u.message.empty()) return std::nullopt;  // every level prints a message
  return u;
}

}  // namespace trainready
