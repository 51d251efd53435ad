#pragma once
// Streaming analyser for NCCL_DEBUG=INFO output, however it was captured: bare NCCL lines,
// launcher prefixes, interleaved ranks, mixed with the program's own output, gzip or plain.
// Memory grows with ranks, hosts, communicators and distinct messages, not with the log.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

class NcclScanSource;

// How to read: the block scanner (default; see nccl_log_scan.h) or, as the reference it must
// agree with byte for byte, every line through LineReader and NcclLogAnalyzer::line.
struct NcclReadOptions {
  bool line_reader = false;
  unsigned threads = 0;  // block scanner threads; 0: by input size (nccl_scan_threads)
  std::size_t block_bytes = std::size_t{1} << 18;  // in L2 from classification to application
  // A plain regular file is mapped and its blocks are views of the mapping (no copy); false
  // reads it into blocks with read(2), as when the mapping fails (tests compare both).
  bool map_files = true;
};

class NcclLogAnalyzer {
 public:
  NcclLogAnalyzer();
  ~NcclLogAnalyzer();
  NcclLogAnalyzer(const NcclLogAnalyzer&) = delete;
  NcclLogAnalyzer& operator=(const NcclLogAnalyzer&) = delete;

  void begin_file(const std::string& name);
  void line(std::string_view text, std::uint64_t number, bool cut);
  NcclRunFacts finish();
  // Every line of `src` through the block scanner (src/parsers/nccl_log_scan.cpp): the facts are
  // those of line() over each line LineReader gives. Throws InputError as LineReader does.
  void scan(NcclScanSource& src, unsigned threads, std::size_t block_bytes);
  // Lines scan() read on its connection path (not through line()): how a test tells that the
  // path it times is the one taken.
  std::uint64_t scan_fast_lines() const { return fast_lines_; }

 private:
  struct State;
  // One whole line as the log holds it, once a terminal's hard wrap is undone (log_hard_wrap.h).
  void read_line(std::string_view text, std::uint64_t number, bool cut);
  // read_line for a line in the hard-wrap joiner's buffer: the tail copies it, keeps no view.
  void read_copied_line(std::string_view text, std::uint64_t number, bool cut);
  // What the hard-wrap joiner still holds of this file goes on to read_line.
  void end_file_lines();
  std::unique_ptr<State> s_;
  std::uint64_t fast_lines_ = 0;
};

// Files, directories of per-rank logs (every regular file inside, sorted) and "-" for stdin.
// Throws InputError for a path that cannot be read.
NcclRunFacts analyze_nccl_logs(const std::vector<std::string>& paths,
                               const NcclReadOptions& opt = {});
NcclRunFacts analyze_nccl_log_text(std::string_view text, const std::string& name,
                                   const NcclReadOptions& opt = {});

// False when the logs held nothing NCCL (or a framework reporting on NCCL) wrote: the user
// passed the wrong file, or ran without NCCL_DEBUG=INFO.
bool has_nccl_output(const NcclRunFacts& f);
// True when all the logs hold of NCCL is a version line (a bare banner, a framework's "is using
// nccl==X"): read, but nothing to judge.
bool has_only_nccl_versions(const NcclRunFacts& f);

// True when the text looks like NCCL debug output (for capture detection).
bool looks_like_nccl_log(std::string_view text);

}  // namespace trainready
