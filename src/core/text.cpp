#include "core/text.h"

#include "core/utf8.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace trainready {

std::string_view trim(std::string_view s) {
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  std::size_t e = s.size();
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t nl = s.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

namespace {
// std::tolower in the "C" locale, which the program keeps: A-Z only, inline. lint lowers and
// compares every key of every resource of a template (and every catalog name per VM size
// looked up), so neither a call nor a guarded table per byte.
constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool same_lower(char a, char b) { return lower(a) == lower(b); }
}  // namespace

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}

// Without lower-cased copies: both run for every key of every resource of a template.
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_lower);
}

bool icontains(std::string_view hay, std::string_view needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), same_lower) !=
             hay.end() ||
         needle.empty();
}

std::optional<std::int64_t> parse_int(std::string_view s, int base) {
  s = trim(s);
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::string tmp(s);
  char* end = nullptr;
  double v = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size()) return std::nullopt;
  return v;
}

bool is_printable_text(std::string_view s) {
  for (unsigned char c : s) {
    if (c == 0) return false;
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
    if (c == 0x7f) return false;
  }
  return true;
}

std::string first_line(std::string_view s) {
  auto nl = s.find('\n');
  return std::string(trim(s.substr(0, nl)));
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

namespace {

// The SGR sequences Palette writes: bold, red, green, yellow, cyan, reset.
std::size_t own_sgr_length(std::string_view s, std::size_t i) {
  static constexpr std::string_view kCodes[] = {"\x1b[0m",    "\x1b[1m",    "\x1b[1;31m",
                                                "\x1b[1;32m", "\x1b[1;33m", "\x1b[1;36m"};
  for (std::string_view c : kCodes) {
    if (s.substr(i, c.size()) == c) return c.size();
  }
  return 0;
}

}  // namespace

// Besides the controls, a malformed UTF-8 byte becomes U+FFFD: a raw C1 byte (0x9b) is CSI to some
// terminals, and a quote cut in a character must not garble the line after it.
std::string terminal_safe(std::string_view s, bool keep_sgr) {
  std::string out;
  out.reserve(s.size());
  char buf[16];
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && keep_sgr) {
      if (std::size_t n = own_sgr_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence_length(s, i, &cp);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD for a malformed byte
      ++i;
    } else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
      i += n;
    } else if (cp >= 0x80 && cp <= 0x9f) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string short_hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08llx", static_cast<unsigned long long>(h & 0xffffffffULL));
  return buf;
}

}  // namespace trainready
