#pragma once
// PyTorch Flight Recorder dumps: what each rank's ProcessGroupNCCL recorded of its last
// collectives (torch/csrc/distributed/c10d/FlightRecorder*.{hpp,cpp}). Two encodings of one
// structure: the pickle FlightRecorder::dump() writes through DebugInfoWriter to
// <TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank> (default /tmp/nccl_trace_rank_<rank>), and the JSON of
// dump_json() (torch._C._distributed_c10d._dump_nccl_trace_json). Format "version" 2.x is read
// (2.3, 2.4, 2.7, 2.10 seen in PyTorch's source); a dump without one is refused.
#include <string_view>

#include "facts/collective_progress.h"

namespace trainready {

// Pickle or JSON, told apart by content. The rank comes from the digits that end the file name
// (the writer's <prefix><rank>); -1 when the name has none. Throws InputError naming the file.
FrDump parse_flight_recorder(std::string_view data, std::string_view source_name);

bool looks_like_flight_recorder(std::string_view data);

}  // namespace trainready
