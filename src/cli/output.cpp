#include "cli/output.h"

#include <unistd.h>

#include <cstdio>

#include "core/atomic_file.h"

namespace trainready {

void emit(const std::string& text, const std::string& path) {
  if (!path.empty() && path != "-") {
    write_file_atomically(path, text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) == 1; }

}  // namespace trainready
