#pragma once
#include <string>

namespace trainready {

// Writes a report to stdout, or atomically to `path` when given. Throws std::runtime_error when
// stdout cannot take it (a full disk, /dev/full).
void emit(const std::string& text, const std::string& path);
// Flushes stdout; throws std::runtime_error naming the reason when anything written to it was
// lost. Every command's output passes through this before the exit code is returned.
void check_stdout();
[[noreturn]] void throw_stdout_error();
bool stdout_is_tty();

}  // namespace trainready
