#include "cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/atomic_file.h"

namespace trainready {

void emit(const std::string& text, const std::string& path) {
  if (!path.empty() && path != "-") {
    write_file_atomically(path, text);
    return;
  }
  // A full disk or /dev/full behind stdout is an error, not a report: exit 2 with the reason.
  errno = 0;
  const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() &&
                  std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  if (!ok) throw_stdout_error();
}

void throw_stdout_error() {
  const int e = errno;
  throw std::runtime_error(std::string("stdout: write failed: ") +
                           (e != 0 ? std::strerror(e) : "I/O error") +
                           " (the report is incomplete)");
}

void check_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) throw_stdout_error();
}

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) == 1; }

}  // namespace trainready
