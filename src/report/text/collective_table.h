#pragma once
// `bench allreduce` (and the other collectives) as text: the nccl-tests table layout, so
// `trainready nccl-tests` and existing scripts read it, followed by the spread over repeats.
#include <string>

#include "bench/collective_harness.h"

namespace trainready {

std::string render_collective_table(const HarnessResult& r, const HarnessOptions& o);

}  // namespace trainready
