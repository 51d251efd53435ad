#include "core/units.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/text.h"

namespace trainready {
namespace {

// Splits "7.5GiB" into 7.5 and "GiB"; nullopt unless the number part is a finite number >= 0.
std::optional<std::pair<double, std::string>> number_and_suffix(std::string_view s) {
  s = trim(s);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                          s[i] == '+' || s[i] == '-' ||
                          ((s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
                           (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' ||
                            s[i + 1] == '+')))) {
    ++i;
  }
  auto v = parse_double(s.substr(0, i));
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return std::make_pair(*v, std::string(trim(s.substr(i))));
}

std::string printf_string(const char* format, double v, const char* unit) {
  std::array<char, 64> b{};
  std::snprintf(b.data(), b.size(), format, v, unit);
  return b.data();
}

}  // namespace

std::optional<double> parse_count(std::string_view s) {
  auto ns = number_and_suffix(s);
  if (!ns) return std::nullopt;
  const std::string suffix = to_lower(ns->second);
  double m = 1;
  if (suffix.empty())
    m = 1;
  else if (suffix == "k")
    m = 1e3;
  else if (suffix == "m")
    m = 1e6;
  else if (suffix == "b" || suffix == "g")
    m = 1e9;
  else if (suffix == "t")
    m = 1e12;
  else
    return std::nullopt;
  const double v = ns->first * m;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> parse_bytes(std::string_view s) {
  auto ns = number_and_suffix(s);
  if (!ns) return std::nullopt;
  std::string suffix = to_lower(ns->second);
  double m = 1;
  static constexpr std::array<char, 5> kPrefixes = {'k', 'm', 'g', 't', 'p'};
  if (suffix.empty() || suffix == "b") {
    m = 1;
  } else {
    double binary = 1;
    double decimal = 1;
    bool found = false;
    for (char p : kPrefixes) {
      binary *= 1024;
      decimal *= 1000;
      if (suffix[0] == p) {
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
    const std::string rest = suffix.substr(1);
    if (rest.empty() || rest == "ib")
      m = binary;  // "64M" and "64MiB" are 1024-based
    else if (rest == "b")
      m = decimal;  // "64MB" is 1000-based
    else
      return std::nullopt;
  }
  const double v = ns->first * m;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string format_gb(double bytes, int decimals) {
  return printf_string(decimals == 0   ? "%.0f %s"
                       : decimals == 1 ? "%.1f %s"
                                       : "%.2f %s",
                       bytes / 1e9, "GB");
}

std::string format_gib(double bytes, int decimals) {
  return printf_string(decimals == 0   ? "%.0f %s"
                       : decimals == 1 ? "%.1f %s"
                                       : "%.2f %s",
                       bytes / 1073741824.0, "GiB");
}

std::string format_number(double v, int significant) {
  std::array<char, 64> b{};
  if (v != 0 && std::fabs(v) < 1e15) {
    const int digits = static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1;
    const int decimals = std::max(0, significant - digits);
    std::snprintf(b.data(), b.size(), "%.*f", decimals, v);
  } else {
    std::snprintf(b.data(), b.size(), "%.*g", significant, v);
  }
  return b.data();
}

std::string format_bytes_si(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "kB", "MB", "GB", "TB", "PB"};
  std::size_t u = 0;
  while (u + 1 < kUnits.size() && std::fabs(bytes) >= 1000) {
    bytes /= 1000;
    ++u;
  }
  return format_number(bytes) + " " + kUnits[u];
}

std::string format_rate_si(double bytes_per_s) { return format_bytes_si(bytes_per_s) + "/s"; }

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "unbounded";
  if (s < 1) return format_number(s * 1000) + " ms";
  if (s < 120) return format_number(s) + " s";
  if (s < 7200) return format_number(s / 60) + " min";
  if (s < 3 * 86400) return format_number(s / 3600) + " h";
  return format_number(s / 86400) + " days";
}

std::string format_bytes_binary(std::uint64_t b) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  std::size_t i = 0;
  while (v >= 1024 && i + 1 < kUnits.size()) {
    v /= 1024;
    ++i;
  }
  std::array<char, 32> out{};
  std::snprintf(out.data(), out.size(), v == std::floor(v) ? "%.0f %s" : "%.1f %s", v, kUnits[i]);
  return out.data();
}

std::string format_usd(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "$?" : v > 0 ? "$unbounded" : "-$unbounded";
  if (v < 0) return "-" + format_usd(-v);
  // Whole dollars from 100 up, printed from the double: a 64-bit integer would wrap above 9.2e18.
  std::string digits;
  if (v >= 1e15) {
    digits = format_number(v, 3);  // "1.23e+20": grouping digits nobody can read helps no one
    return "$" + digits;
  }
  if (v >= 100) {
    std::array<char, 32> b{};
    std::snprintf(b.data(), b.size(), "%.0f", v);
    digits = b.data();
  } else {
    digits = format_number(v, 3);
  }
  std::string out;
  const std::size_t dot = digits.find('.');
  const std::size_t int_len = dot == std::string::npos ? digits.size() : dot;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i < int_len && i > 0 && (int_len - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return "$" + out;
}

std::string format_gbytes_per_s(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f GB/s" : v >= 10 ? "%.1f GB/s" : "%.2f GB/s", v);
  return b;
}

std::string format_tib(double v) {
  return std::fabs(v - std::round(v)) < 1e-9 ? std::to_string(std::llround(v))
                                             : format_number(v, 4);
}

}  // namespace trainready
