#pragma once
// The bandwidth phase of `fleet --bandwidth`, run by every rank under mpirun / srun:
//   1. hello: every rank tells rank 0 its host and whether it can run NCCL (point to point,
//      with a deadline: a rank that does not answer is a node that did not respond);
//   2. rank 0 groups ranks into nodes (by host) and rails (a rank's place on its node), makes
//      the round-robin schedule over the nodes that answered, and sends everyone the plan;
//   3. an all-reduce sweep over every rank (the collective harness of `bench`, NCCL on GPUs,
//      MPI on host memory), only when every rank answered: a collective cannot leave one out;
//   4. the pairwise rounds (pair_rounds.h), the records to rank 0;
//   5. rank 0 classifies the largest size's matrices, and the suspicious cells run again
//      before anything is reported.
// Every step has a deadline. The all-reduce is the one step MPI and NCCL cannot cancel: it
// runs under a watchdog that ends the job with a message naming the step, so the worst case is
// a clear error, never a silent hang (the hello just before it has shown every rank alive).
#include <cstdio>
#include <optional>

#include "bench/collective_harness.h"
#include "bench/mpi_layer.h"
#include "catalog/catalog.h"
#include "facts/pair_bandwidth_facts.h"
#include "fleet/bandwidth/bandwidth_options.h"
#include "rules/run_options.h"

namespace trainready {

struct BandwidthPhase {
  PairBandwidthFacts facts;                // complete on rank 0
  std::optional<HarnessResult> allreduce;  // rank 0, when it ran
  bool participated = false;               // this rank got a plan and ran its rounds
};

// `sku`: the VM size (for the per-rail expectation), or null. `progress`: where rank 0 says how
// long it will take and how far it is (stderr), or null for silence.
BandwidthPhase run_bandwidth_phase(MpiLayer& layer, MpiWorld& world, const BandwidthOptions& o,
                                   const SkuEntry* sku, const RunOptions& run_options,
                                   std::FILE* progress);

}  // namespace trainready
