#pragma once
// The pairwise test on one rank, and rank 0's merge of every rank's records into matrices.
// Kept apart from MPI (they take a CommBackend and plain records), so the schedule walk, the
// timeout path and the merge are tested without a launcher.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "bench/comm_backend.h"
#include "facts/pair_bandwidth_facts.h"
#include "fleet/bandwidth/bandwidth_options.h"
#include "fleet/bandwidth/pair_schedule.h"

namespace trainready {

// One side's view of one pair at one size: what this rank measured.
struct PairRecord {
  std::uint64_t size_bytes = 0;
  int rail = 0;
  int a = -1, b = -1;  // nodes, a < b
  int round = -1;
  bool timed_out = false;
  std::string error;  // the library's error, when the exchange failed rather than timed out
  std::vector<double> repeats_gbytes;
};

using RoundProgress = std::function<void(int done, int total)>;
// Called after every step (a round at one size): lines the rounds up across ranks and says which
// nodes stopped answering (pairs with them are skipped from then on). False: stop the walk.
using RoundSync = std::function<bool(int step, std::set<int>& dead_nodes)>;

// Walks `rounds` for every size: in each round this rank exchanges with the rank of the same rail
// on its partner node. Bandwidth per direction = size x iterations / time of the repeat. A step
// that times out ends that pair at that size (recorded as timed out) and the walk goes on with
// the next round, so a dead peer costs one timeout per size, never a hang. `tag_base` separates
// the main pass from the re-test.
std::vector<PairRecord> run_pair_rounds(CommBackend& backend, const std::vector<PairNode>& nodes,
                                        int my_node, int rail, const std::vector<PairRound>& rounds,
                                        const std::vector<std::uint64_t>& sizes,
                                        const BandwidthOptions& o, int tag_base,
                                        const RoundProgress& progress = {},
                                        const RoundSync& sync = {});

// Rank 0: both sides' records into the facts' matrices (one per size and rail). Per repeat the
// slower side counts; a side that timed out makes the cell timed out. With `retest`, the cells
// named are replaced and keep their first value.
void merge_pair_records(PairBandwidthFacts& facts, const std::vector<PairRecord>& records,
                        bool retest);

std::string pair_records_to_json(const std::vector<PairRecord>& records);
// Throws std::runtime_error on text that is not a record list.
std::vector<PairRecord> pair_records_from_json(const std::string& text);

}  // namespace trainready
