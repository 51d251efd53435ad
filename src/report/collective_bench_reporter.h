#pragma once
// `bench allreduce` (and the other collectives) output: the nccl-tests table layout, so
// `trainready nccl-tests` and existing scripts read it, followed by the spread over repeats and a
// verdict line; and JSON with every size's min / median / max.
#include <optional>
#include <string>

#include "bench/collective_harness.h"
#include "facts/busbw_expectation.h"

namespace trainready {

struct CollectiveBenchVerdict {
  std::optional<double> busbw;  // GB/s at the largest size, the better placement
  std::uint64_t size_bytes = 0;
  BusbwExpectation expected;
  std::optional<double> ratio;
  std::string line;  // the verdict, in words
};

std::string render_collective_table(const HarnessResult& r, const HarnessOptions& o);
// Reads the table back with the nccl-tests reader and judges busbw at its largest size.
CollectiveBenchVerdict judge_collective_table(const std::string& table, const Catalog& catalog,
                                              const RunOptions& options);
std::string render_collective_json(const HarnessResult& r, const HarnessOptions& o,
                                   const CollectiveBenchVerdict& v);

}  // namespace trainready
