#include "parsers/nccl_tests_exit.h"

#include <array>

namespace trainready {
namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// nccl-tests' programs: "<collective>_perf" with the collectives of src/Makefile BIN_FILES_LIST @
// v2.19.6 (NAME_SUFFIX, empty by default, is "_mpi" in builds some images install beside them).
std::string_view program_in(std::string_view t) {
  static constexpr std::string_view kCollectives[] = {
      "all_reduce", "all_gather", "broadcast", "reduce_scatter", "reduce",   "alltoall",
      "alltoallv",  "scatter",    "gather",    "sendrecv",       "hypercube"};
  for (std::size_t p = t.find("_perf"); p != std::string_view::npos; p = t.find("_perf", p + 5)) {
    std::size_t e = p + 5;
    if (t.compare(e, 4, "_mpi") == 0) e += 4;
    if (e < t.size() && word_char(t[e])) continue;
    std::size_t b = p;
    while (b > 0 && ((t[b - 1] >= 'a' && t[b - 1] <= 'z') || t[b - 1] == '_')) --b;
    const std::string_view name = t.substr(b, p - b);
    for (std::string_view c : kCollectives)
      if (name == c) return t.substr(b, e - b);
  }
  return {};
}

// The number after one of the wordings a runner uses for a process's status.
int status_in(std::string_view t) {
  static constexpr std::array<std::string_view, 5> kHeads = {
      "exit status ",       // Go os/exec ExitError.Error(): "exit status %d"
      "exit code: ",        // Open MPI's help text, many scripts
      "exit code ",         // srun "Exited with exit code %d", bash scripts
      "exited with code ",  // Node child_process, many scripts
      "returned status "};
  for (std::string_view h : kHeads) {
    const std::size_t p = t.find(h);
    if (p == std::string_view::npos) continue;
    std::size_t i = p + h.size();
    int v = 0;
    const std::size_t first = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - first < 4) v = v * 10 + (t[i++] - '0');
    if (i == first || (i < t.size() && word_char(t[i]))) continue;
    return v;
  }
  return -1;
}

}  // namespace

std::optional<NcclTestsExit> parse_nccl_tests_exit(std::string_view line) {
  if (line.size() > 4096 || line.find("_perf") == std::string_view::npos) return std::nullopt;
  const std::string_view program = program_in(line);
  if (program.empty()) return std::nullopt;
  const int status = status_in(line);
  if (status < 0) return std::nullopt;
  return NcclTestsExit{program, status};
}

}  // namespace trainready
