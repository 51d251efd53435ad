#pragma once
// What a run's NCCL log says about the bus bandwidth its nccl-tests table measured: the channels
// and per-channel bandwidth NCCL's search built (its own model of the bandwidth, graph/tuning.cc:
// busBw = nChannels x bw), the algorithm and protocol chosen at the largest size, and the
// transports the connections used. Empty when the log shows none of these.
#include <string>
#include <vector>

#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"

namespace trainready {

struct BusbwFromLog {
  std::vector<std::string> lines;  // one explanation each, with its numbers and units
  // NCCL's modelled bus bandwidth of the ring graph, GB/s, 0 when the log has no search line.
  double model_gbytes = 0;
};

BusbwFromLog explain_busbw_from_log(const NcclTestsFacts& t, const NcclRunFacts& log);

}  // namespace trainready
