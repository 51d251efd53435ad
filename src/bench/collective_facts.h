#pragma once
// A collective sweep as the facts an nccl-tests file gives, so `bench allreduce` is judged by
// the same rules, with the same expectation, as `trainready nccl-tests` on a file.
#include "bench/collective_harness.h"
#include "facts/nccl_tests_facts.h"

namespace trainready {

NcclTestsFacts collective_facts(const HarnessResult& r, const HarnessOptions& o);

}  // namespace trainready
