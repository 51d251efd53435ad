#pragma once
// What a crash in one part of NCCL means, and the switch that takes that part out of the run to
// confirm it (facts/nccl_code_area.h reads the part from a backtrace frame's function name).
#include <string_view>

#include "facts/nccl_code_area.h"

namespace trainready {

struct NcclCodeAreaReading {
  NcclCodeArea area;
  std::string_view name;     // "NCCL's RAS service"
  std::string_view cause;    // what a crash there means
  std::string_view confirm;  // the experiment, with the variable's source
};

// nullptr for kUnknown, kApi and kOther: the name does not tell the module.
const NcclCodeAreaReading* nccl_code_area_reading(NcclCodeArea area);

}  // namespace trainready
