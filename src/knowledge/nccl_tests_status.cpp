#include "knowledge/nccl_tests_status.h"

namespace trainready {

std::string_view nccl_tests_status_meaning(int status) {
  // src/common.h testResult_t: 1-3 the same since v2.0.0; 4 was testCuRandError up to v2.11.0
  // and is testTimeout (the -T option) from v2.13.4; 5 testNotImplemented from v2.17.0; 6
  // testInvalidUsage from v2.17.7.
  switch (status) {
    case 1:
      return "testInternalError: the harness itself failed";
    case 2:
      return "testCudaError: one of the harness's own CUDA calls failed";
    case 3:
      return "testNcclError: a NCCL call returned an error";
    case 4:
      return "testTimeout: an operation ran past the -T timeout";
    case 5:
      return "testNotImplemented: not built into this harness";
    case 6:
      return "testInvalidUsage: its arguments were rejected";
    default:
      return {};
  }
}

}  // namespace trainready
