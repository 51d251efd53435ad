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

// ucs_log_fatal_error's head "[HOST:PID  :THREAD:TID] " (three colons inside the brackets, the
// PID and TID numbers): the position after it, or npos.
std::size_t past_fatal_head(std::string_view t) {
  if (t.size() < 10 || t[0] != '[') return std::string_view::npos;
  const std::size_t close = t.find(']');
  if (close == std::string_view::npos || close > 300) return std::string_view::npos;
  const std::string_view in = t.substr(1, close - 1);
  const std::size_t c3 = in.rfind(':');
  if (c3 == std::string_view::npos || c3 + 1 >= in.size()) return std::string_view::npos;
  for (const char c : in.substr(c3 + 1))
    if (!digit(c)) return std::string_view::npos;  // TID
  const std::size_t c2 = c3 == 0 ? std::string_view::npos : in.rfind(':', c3 - 1);
  const std::size_t c1 =
      c2 == 0 || c2 == std::string_view::npos ? std::string_view::npos : in.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0 || c2 == c1 + 1) return std::string_view::npos;
  std::size_t d = c1 + 1;
  while (d < c2 && digit(in[d])) ++d;
  if (d == c1 + 1) return std::string_view::npos;  // PID
  while (d < c2 && in[d] == ' ') ++d;
  if (d != c2 || c3 == c2 + 1 || c3 - c2 - 1 > 16) return std::string_view::npos;
  // THREAD: a number (ucs_log_get_thread_num before 1.11, ucs_log_get_thread_name's counter
  // after) or the name UCX gives its own threads ("a" async, "s" stats, "f" vfs in 1.12).
  for (const char c : in.substr(c2 + 1, c3 - c2 - 1))
    if (!(digit(c) || (c >= 'a' && c <= 'z'))) return std::string_view::npos;
  return skip_blanks(t, close + 1);
}

// UCX's sources are C ("ucp_context.c", "ib_mlx5.h") with inline headers ("ucp_ep.inl") and a
// few C++ files: a fatal line names one of them.
bool ucx_source_file(std::string_view site) {
  const std::string_view file = site.substr(0, site.rfind(':'));
  for (std::string_view ext : {".c", ".h", ".inl", ".cc", ".cpp"})
    if (file.size() > ext.size() && file.substr(file.size() - ext.size()) == ext) return true;
  return false;
}

// "FILE:LINE" at `i` (a file name with a dot, a decimal line): the word, or empty.
std::string_view site_at(std::string_view t, std::size_t i) {
  const std::string_view site = word_at(t, i);
  const std::size_t colon = site.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= site.size() ||
      site.size() > 128)
    return {};
  for (const char c : site.substr(colon + 1))
    if (!digit(c)) return {};
  if (site.substr(0, colon).find('.') == std::string_view::npos) return {};  // "ucp_context.c"
  return site;
}

// The fatal shape (see the header), or nullopt.
std::optional<UcxLogLine> read_fatal(std::string_view t) {
  std::size_t i = past_fatal_head(t);
  if (i == std::string_view::npos) return std::nullopt;
  const std::string_view site = site_at(t, i);
  if (site.empty() || !ucx_source_file(site)) return std::nullopt;
  i = skip_blanks(t, i + site.size());
  if (word_at(t, i) == "UCX") i = skip_blanks(t, i + 3);
  const std::string_view m = t.substr(i);
  if (m.empty()) return std::nullopt;
  return UcxLogLine{"UCX", site, "FATAL", m};
}

}  // namespace

std::optional<UcxLogLine> read_ucx_log_line(std::string_view t) {
  if (auto f = read_fatal(t)) return f;
  // An excerpt may start at the file ("ucp_context.c:1321 UCX  WARN  ..."): then only UCX's own
  // component name is taken.
  const bool headless = t.empty() || t[0] != '[';
  std::size_t i = headless ? 0 : past_head(t);
  if (i == std::string_view::npos) return std::nullopt;
  // "FILE:LINE"
  const std::string_view site = site_at(t, i);
  if (site.empty()) return std::nullopt;
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
