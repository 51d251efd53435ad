#pragma once
// What an nccl-tests program's exit status means. Its main returns the first failing check's
// testResult_t (nccl-tests src/common.cu main, src/common.h), so a wrapper's "exit status 3"
// says which kind of call failed.
#include <string_view>

namespace trainready {

// "testNcclError: a NCCL call returned an error (...)", ...; empty for a status the harness never
// returns (0 is success).
std::string_view nccl_tests_status_meaning(int status);

}  // namespace trainready
