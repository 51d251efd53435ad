#pragma once
// Progress of a long phase on stderr (rank 0 only): on a terminal one line redrawn in place;
// into a file or a pipe (a Slurm output file, CI) a line per step at most every few seconds, so a
// log shows it moving without a wall of carriage returns.
#include <chrono>
#include <cstdio>
#include <string>

namespace trainready {

class ProgressLine {
 public:
  // `out` null: silent (the other ranks).
  explicit ProgressLine(std::FILE* out);
  ProgressLine(std::FILE* out, bool tty) : out_(out), tty_(tty) {}
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void note(const std::string& line);  // a whole line, kept
  void update(const std::string& what, int done, int total);
  void finish();  // ends an in-place line

 private:
  std::FILE* out_;
  bool tty_ = false;
  bool open_line_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace trainready
