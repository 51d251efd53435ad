#pragma once
// Whether an nccl-tests output shows several processes that each ran the test as a world of its
// own (built without MPI=1, or against another MPI than the launcher's): what only MPI rank 0
// prints with MPI=1 - the header, the "Using devices" list of every rank, the summary
// (nccl-tests src/common.cu run(), util.cu writeDeviceReport) - printed by several processes at
// once. Shared by nccl-tests-separate-jobs (the reading) and nccl-tests-ranks-share-gpu (which
// leaves those processes' device lines to it).
#include <set>
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/nccl_tests_facts.h"

namespace trainready {

struct NcclTestsWorlds {
  std::vector<Evidence> evidence;         // empty: no sign of separate worlds
  int processes = 0;                      // how many at least
  std::set<const NcclTestsDevice*> solo;  // device lines of those processes
  bool one_host = false;                  // every such process on one host
};

NcclTestsWorlds separate_worlds(const NcclTestsFacts& t);

// "host pid N", or the host alone where the version prints no pid.
std::string nccl_tests_process(const NcclTestsDevice& d);

}  // namespace trainready
