#pragma once
// Quantities users type: "8B" parameters, "2TiB" of data, "16G" messages. One reading for the
// CLI and for job files, so a value means the same wherever it is written.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainready {

// A count with an optional decimal suffix: K = 1e3, M = 1e6, B or G = 1e9, T = 1e12
// ("8B", "2851M", "7.5e9", "1.5T"). nullopt when it is not one, negative, or not finite.
std::optional<double> parse_count(std::string_view s);

// Bytes: "512", "1.5TB" (1e12), "2TiB" (2^40), "64M" (a bare suffix is 1024-based, as in fio and
// nccl-tests: K, M, G, T, P). nullopt when it is not one, negative, or not finite.
std::optional<double> parse_bytes(std::string_view s);

// Human forms for reports: "16.6 GB" (1e9 based), "15.93 GiB", "1.2 TB/s".
std::string format_gb(double bytes, int decimals = 1);
std::string format_gib(double bytes, int decimals = 2);
std::string format_bytes_si(double bytes);       // picks kB/MB/GB/TB/PB
std::string format_rate_si(double bytes_per_s);  // picks kB/s .. TB/s
std::string format_duration(double seconds);     // "340 ms", "12.4 s", "3.2 h", "41 days"
std::string format_number(double v, int significant = 3);
// A TiB figure as Azure's docs write it: "48", "8.5" (whole numbers without decimals).
std::string format_tib(double tib);
std::string format_usd(double usd);                    // "$84,597", "$98.3"
std::string format_bytes_binary(std::uint64_t bytes);  // "64 MiB", "1.5 KiB": nccl-tests' sizes
// A bandwidth in GB/s (1e9 B/s, nccl-tests' unit): "460 GB/s", "47.5 GB/s", "0.35 GB/s".
std::string format_gbytes_per_s(double gbytes_per_s);

}  // namespace trainready
