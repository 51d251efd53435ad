#pragma once
// Numbers as the HTML report prints them, with their units: message sizes are 1024-based (as
// nccl-tests prints them), bandwidths 1000-based (GB/s = 1e9 B/s), memory in GiB.
#include <string>

namespace trainready {

std::string fmt_size_iec(double bytes);      // 8 B, 64 KiB, 1 GiB
std::string fmt_gbytes_per_s(double bytes);  // bytes per second -> "12.3 GB/s"
std::string fmt_gib(double bytes);           // "71.2 GiB"
std::string fmt_percent(double ratio);       // 0.93 -> "93%"
std::string fmt_seconds(double s);           // 0.84 s, 12 min, 3.5 h, 2.1 d
std::string fmt_usd(double usd);             // $1,234 / $12.50
std::string fmt_number(double v, int decimals);
// Three significant digits, trailing zeros dropped: 0, 2.5, 9.45, 380, 12300 (axis ticks).
std::string fmt_short(double v);

}  // namespace trainready
