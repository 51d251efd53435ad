#pragma once
#include <string>

namespace trainready {

// Writes a report to stdout, or atomically to `path` when given.
void emit(const std::string& text, const std::string& path);
bool stdout_is_tty();

}  // namespace trainready
