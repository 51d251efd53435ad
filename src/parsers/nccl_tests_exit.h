#pragma once
// The exit status of an nccl-tests program as the thing that ran it reports it: a Go wrapper's
// `exec` error ("exit status 3", as a Kubernetes benchmark operator logs it), a shell or a script
// ("all_reduce_perf exited with code 3", "... exit code: 3"). nccl-tests' main returns its first
// failing check's testResult_t as the process's status (src/common.cu main: TESTCHECK(run()),
// v2.10.0 and later; "return run()" before), so the status says which kind of call failed even
// when the harness's own "Test NCCL failure" line is not in the capture.
#include <optional>
#include <string_view>

namespace trainready {

struct NcclTestsExit {
  std::string_view program;  // "all_reduce_perf", as the line names it
  int status = 0;
};

// The program and status when `line` names an nccl-tests program (a word ending in "_perf" or
// "_perf_mpi") and an exit status beside it; nullopt otherwise.
std::optional<NcclTestsExit> parse_nccl_tests_exit(std::string_view line);

}  // namespace trainready
