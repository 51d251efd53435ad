#pragma once
// A fatal signal as a crash handler or a debugger prints it (UCX, gdb, CPython's faulthandler,
// torch.distributed.elastic, Open MPI's handler, mpirun's report, Abseil's failure signal
// handler, a shell's report of a killed job), and the backtrace frames in NCCL's code under it.
#include <optional>
#include <string_view>

#include "parsers/nccl_framework_bigrams.h"

namespace trainready::framework_lines {

struct CrashLine {
  bool signal = false;       // a fatal signal; otherwise a backtrace frame in NCCL's code
  std::string_view handler;  // "shell", "crash handler"
  std::string_view detail;   // "SIGBUS", "SIGSEGV"; or the NCCL function, or "libnccl"
};

// The signal or NCCL frame line `t` (trimmed; `bg`: its byte pairs) is, or nothing.
std::optional<CrashLine> crash_line(std::string_view t, const Bigrams& bg);

}  // namespace trainready::framework_lines
