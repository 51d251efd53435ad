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

class NcclLogAnalyzer {
 public:
  NcclLogAnalyzer();
  ~NcclLogAnalyzer();
  NcclLogAnalyzer(const NcclLogAnalyzer&) = delete;
  NcclLogAnalyzer& operator=(const NcclLogAnalyzer&) = delete;

  void begin_file(const std::string& name);
  void line(std::string_view text, std::uint64_t number, bool cut);
  NcclRunFacts finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Files, directories of per-rank logs (every regular file inside, sorted) and "-" for stdin.
// Throws InputError for a path that cannot be read.
NcclRunFacts analyze_nccl_logs(const std::vector<std::string>& paths);
NcclRunFacts analyze_nccl_log_text(std::string_view text, const std::string& name);

// False when the logs held nothing NCCL (or a framework reporting on NCCL) wrote: the user
// passed the wrong file, or ran without NCCL_DEBUG=INFO.
bool has_nccl_output(const NcclRunFacts& f);

// True when the text looks like NCCL debug output (for capture detection).
bool looks_like_nccl_log(std::string_view text);

}  // namespace trainready
