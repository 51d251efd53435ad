// Fatal signals and backtrace frames as crash handlers and debuggers print them (see each table
// below for its source): the framework reader's crash events (nccl_framework.cpp).
#include "parsers/nccl_framework_crash.h"

#include <cctype>
#include <cstring>

#include "core/text.h"
#include "facts/nccl_code_area.h"

namespace trainready::framework_lines {
namespace {

struct SignalText {
  std::string_view text;
  std::string_view name;
};

// Whether `t` is one frame of a backtrace, as the handlers that print one write it:
//   gdb                   "#0 0x... in ncclShmOpen(char*, ...) () from .../libnccl.so.2"
//   UCX with BFD          " 2 0x000000000007587d ncclGroupEnd()  ???:0"
//                         (src/ucs/debug/debug.c UCS_DEBUG_BACKTRACE_LINE_FMT "%2d 0x%016lx %s()
//                         %s:%u")
//   UCX without BFD       " 3  /opt/nccl/lib/libnccl.so(+0x120057) [0x7ff1c18c1057]"
//                         ("%2d  %s", the string glibc's backtrace_symbols gives)
//   Open MPI              "[host:186363] [ 5] /usr/lib/libnccl.so.2(+0x6b4d2)[0x7f...]"
//                         (its signal handler: the "[host:pid] " prefix, then the execinfo
//                         component's opal_backtrace_print "[%2d] " and backtrace_symbols_fd)
//   PyTorch (c10)         "frame #4: <unknown function> + 0x6b4d2 (0x7f... in .../libnccl.so.2)"
//   a bare address        "0x7f... ..."
bool backtrace_frame(std::string_view t) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (t.empty()) return false;
  if (t[0] == '#') return t.size() > 1 && digit(t[1]);
  if (t.compare(0, 2, "0x") == 0) return true;
  // Abseil's stack dump under its signal line: "PC: @     0x71bd29eb3ab5  (unknown)  func", then
  // "    @     0x... <frame size>  func" (absl/debugging/internal/examine_stack.cc).
  if (t.compare(0, 4, "PC: ") == 0) t.remove_prefix(4);
  if (t[0] == '@') {
    std::size_t k = 1;
    while (k < t.size() && t[k] == ' ') ++k;
    return k > 1 && t.compare(k, 2, "0x") == 0;
  }
  if (t.compare(0, 7, "frame #") == 0) return t.size() > 7 && digit(t[7]);
  std::size_t i = 0;
  if (t[0] == '[') {
    // Open MPI's "[host:pid] " (optional) then "[ N] ".
    const std::size_t close = t.find(']');
    if (close != std::string_view::npos && close < 128 && t.compare(close, 3, "] [") == 0 &&
        t.find(':') < close)
      i = close + 2;
    if (i < t.size() && t[i] == '[') {
      std::size_t k = i + 1;
      while (k < t.size() && t[k] == ' ') ++k;
      const std::size_t d = k;
      while (k < t.size() && digit(t[k])) ++k;
      return k > d && k - d < 4 && k + 1 < t.size() && t[k] == ']' && t[k + 1] == ' ';
    }
    return false;
  }
  // UCX: the frame number, then " 0x..." (with BFD) or two blanks and a path (without).
  while (i < t.size() && i < 3 && digit(t[i])) ++i;
  if (i == 0 || i >= t.size() || t[i] != ' ') return false;
  return t.compare(i, 3, " 0x") == 0 || t.compare(i, 3, "  /") == 0;
}

// The function of NCCL's a backtrace frame names (facts/nccl_code_area.h: the API and the
// internal names of its modules), or "". A name starts a word (after "::" it is a C++ member,
// c10d::ProcessGroupNCCL::ncclCommWatchdog, not NCCL's) or follows UCX's "0x%016lx" address
// glued to it by a paste that lost the space; "(" or a CJK input method's full-width "（" ends it.
std::string_view nccl_frame_function(std::string_view t) {
  constexpr std::string_view kWideParen = "\xEF\xBC\x88";
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!std::isalpha(static_cast<unsigned char>(t[i]))) continue;
    bool start = i == 0 || std::strchr(" \t*&<", t[i - 1]) != nullptr;
    if (!start && i >= 18 && t[i - 18] == '0' && t[i - 17] == 'x') {
      start = true;
      for (std::size_t k = i - 16; k < i && start; ++k)
        start = std::isxdigit(static_cast<unsigned char>(t[k])) != 0;
    }
    if (!start) continue;
    std::size_t e = i;
    while (e < t.size() && e - i < 64 && ident(t[e])) ++e;
    const std::string_view name = t.substr(i, e - i);
    // gdb writes "#0  0x... in ncclIbDeregMr (comm=0x0, ...) at transport/net_ib.cc:906".
    const bool gdb = i >= 4 && t.compare(i - 4, 4, " in ") == 0 && e + 1 < t.size() &&
                     t[e] == ' ' && t[e + 1] == '(';
    const bool call = e < t.size() && (t[e] == '(' || t.compare(e, 3, kWideParen) == 0 || gdb);
    if (call && nccl_code_area(name) != NcclCodeArea::kUnknown) return name;
    i = e;
  }
  return {};
}

}  // namespace

// A fatal signal as a crash handler or debugger prints it, and the backtrace frames in NCCL's
// code under it: each line is one event; the rule reads them together.
std::optional<CrashLine> crash_line(std::string_view t, const Bigrams& bg) {
  // UCX ucs/debug/debug.c ucs_debug_handle_error_signal: "Caught signal %d (%s)" with
  // strsignal()'s text, e.g. "Caught signal 7 (Bus error: nonexistent physical address)";
  // gdb: "Thread N \"name\" received signal SIGBUS, Bus error."; CPython faulthandler:
  // "Fatal Python error: Bus error"; torch.distributed.elastic (api.py _terminate_process_handler):
  // "Signal 7 (SIGBUS) received by PID %d"; Open MPI's handler (opal/util/stacktrace.c
  // show_stackframe): "[host:pid] Signal: %s (%d)" with strsignal(); mpirun / prterun when a rank
  // died of a signal (Open MPI help-orterun.txt, PRRTE help-prun.txt
  // "proc-aborted-strsignal"): "%s noticed that process rank %lu with PID %lu on node %s exited on
  // signal %d (%s)." - the rank's own output may not be in the log at all.
  // A shell's report of a foreground job killed by a signal (bash: strsignal() and
  // " (core dumped)"), a line of its own, is read below.
  static constexpr SignalText kSignals[] = {
      {"exited on signal 7 (Bus error)", "SIGBUS"},
      {"exited on signal 11 (Segmentation fault)", "SIGSEGV"},
      {"Caught signal 7 (Bus error", "SIGBUS"},
      {"received signal SIGBUS", "SIGBUS"},
      {"Fatal Python error: Bus error", "SIGBUS"},
      {"(SIGBUS) received by PID", "SIGBUS"},
      {"Signal: Bus error (7)", "SIGBUS"},
      {"Caught signal 11 (Segmentation fault", "SIGSEGV"},
      {"received signal SIGSEGV", "SIGSEGV"},
      {"Fatal Python error: Segmentation fault", "SIGSEGV"},
      {"(SIGSEGV) received by PID", "SIGSEGV"},
      {"Signal: Segmentation fault (11)", "SIGSEGV"},
      // Abseil's failure signal handler (absl/debugging/failure_signal_handler.cc, which JAX,
      // TensorFlow and gRPC install): "*** %s received at time=%ld%s ***", " on cpu %d".
      {"*** SIGBUS received at time=", "SIGBUS"},
      {"*** SIGSEGV received at time=", "SIGSEGV"},
  };
  // Every form holds "ignal", "Fatal Python error" or Abseil's "received at time=": one search
  // before the table on a plain line.
  const bool maybe_signal =
      has(bg, t, "ignal") || has(bg, t, "Fatal Python error") || has(bg, t, " received at time=");
  const std::string_view whole = trim(t);
  for (const SignalText& s :
       {SignalText{"Bus error", "SIGBUS"}, SignalText{"Segmentation fault", "SIGSEGV"}}) {
    if (whole == s.text || (whole.substr(0, s.text.size()) == s.text &&
                            whole.substr(s.text.size()) == " (core dumped)")) {
      return CrashLine{true, "shell", s.name};
    }
  }
  for (const SignalText& s : kSignals) {
    if (maybe_signal && has(bg, t, s.text)) {
      return CrashLine{true, "crash handler", s.name};
    }
  }
  if (!backtrace_frame(t)) return std::nullopt;
  if (const std::string_view name = nccl_frame_function(t); !name.empty()) {
    return CrashLine{false, "crash handler", name};
  }
  if (has(bg, t, "/libnccl.so") || has(bg, t, " libnccl.so")) {
    return CrashLine{false, "crash handler", "libnccl"};
  }
  return std::nullopt;
}

}  // namespace trainready::framework_lines
