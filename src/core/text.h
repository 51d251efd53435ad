#pragma once
// Small text helpers shared by probes and parsers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);  // handles \n and \r\n
std::vector<std::string_view> split_ws(std::string_view s);
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool icontains(std::string_view hay, std::string_view needle);
std::optional<std::int64_t> parse_int(std::string_view s, int base = 10);
std::optional<double> parse_double(std::string_view s);
// A short attribute that should be printable text (sysfs, IMDS strings): no NULs, no control
// bytes other than whitespace, valid-looking ASCII/UTF-8.
bool is_printable_text(std::string_view s);
// First line, trimmed: what a one-line sysfs attribute holds.
std::string first_line(std::string_view s);
// Removes ANSI escape sequences (nvidia-smi writes underline codes into its header).
std::string strip_ansi(std::string_view s);
// Makes text safe to print on a terminal: every control character other than newline and tab
// (C0, DEL, and C1 as UTF-8) becomes a visible escape such as "\x1b" or "\u009b", so text from
// inputs cannot move the cursor, retitle the window or hide itself. With keep_sgr, the colour
// codes the reporters themselves write ("\x1b[1;31m" ... "\x1b[0m") pass through unchanged.
std::string terminal_safe(std::string_view s, bool keep_sgr = false);
// Stable short hex digest, used to pseudonymise identifiers.
std::string short_hash(std::string_view s);

}  // namespace trainready
