#include "report/html/html_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trainready {

std::string fmt_number(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.*f", decimals, v);
  return b;
}

std::string fmt_short(double v) {
  if (v == 0) return "0";
  const int digits = static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1;
  std::string s = fmt_number(v, std::max(0, 3 - digits));
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string fmt_size_iec(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 5) bytes /= 1024, ++u;
  return fmt_number(bytes, bytes == std::floor(bytes) ? 0 : 1) + " " + kUnits[u];
}

std::string fmt_gbytes_per_s(double bytes) {
  const double g = bytes / 1e9;
  return fmt_number(g, g >= 100 ? 0 : g >= 10 ? 1 : 2) + " GB/s";
}

std::string fmt_gib(double bytes) { return fmt_number(bytes / (1024.0 * 1024 * 1024), 1) + " GiB"; }

std::string fmt_percent(double ratio) { return fmt_number(ratio * 100, 0) + "%"; }

std::string fmt_seconds(double s) {
  if (s < 120) return fmt_number(s, s < 10 ? 2 : 0) + " s";
  if (s < 7200) return fmt_number(s / 60, 0) + " min";
  if (s < 2 * 86400) return fmt_number(s / 3600, 1) + " h";
  return fmt_number(s / 86400, 1) + " d";
}

std::string fmt_usd(double usd) {
  if (std::fabs(usd) >= 1000) {
    std::string digits = fmt_number(usd, 0);
    std::string out;
    const std::size_t start = digits[0] == '-' ? 1 : 0;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > start && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return "$" + out;
  }
  // Cents only where they matter: $12.50, but $0 and $250 on an axis.
  return "$" + fmt_number(usd, usd == std::floor(usd) || std::fabs(usd) >= 100 ? 0 : 2);
}

}  // namespace trainready
