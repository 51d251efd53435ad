#pragma once
// What a `fleet` run learned about its ranks, besides their nodes' facts: who answered, who did
// not, and what each sent. The fleet rules (src/rules/fleet/) judge it; a rank that is silent,
// failed, or sent facts rank 0 cannot read is a finding about that rank's node, never a crash.
#include <string>
#include <vector>

namespace trainready {

enum class FleetRankState {
  kOk,           // its facts arrived and were read
  kSilent,       // nothing arrived before the deadline, not even its hello
  kStalled,      // its hello arrived (it started), its facts did not
  kFailed,       // it reported that it could not gather its facts (the reason is in `detail`)
  kUnreadable,   // bytes arrived that are not facts rank 0 can read
  kIncompatible  // another trainready whose message format this one does not read
};

const char* fleet_rank_state_name(FleetRankState s);  // "ok", "silent", ...

struct FleetRank {
  int rank = 0;
  std::string host;  // MPI_Get_processor_name as the rank sent it; empty when nothing came
  int pid = 0;
  FleetRankState state = FleetRankState::kSilent;
  std::string detail;        // the failure, the decode error, or the incompatible format
  std::string tool_version;  // trainready version the rank runs; empty when unknown
  int node = -1;             // index into the run's nodes when facts arrived
  double hello_s = -1;       // seconds from the start of the gather to its hello (-1: none)
  double facts_s = -1;       // ... to its facts (-1: none)
  std::size_t bytes = 0;     // size of its facts message
};

struct FleetFacts {
  int size = 1;                  // ranks in the world
  std::string launcher;          // "mpirun", "srun", "none" (one rank)
  std::string root_version;      // trainready version of rank 0
  double timeout_s = 0;          // how long rank 0 waited for facts
  double gather_s = 0;           // how long the gather took
  std::vector<FleetRank> ranks;  // one per rank, in rank order
};

}  // namespace trainready

namespace trainready {
// "rank 3 (node-c)", or "rank 3" when its host is unknown: how findings name a rank without facts.
std::string fleet_rank_label(const FleetRank& r);
// "rank 3: state silent, host h, pid 42": the evidence line of every finding about one rank.
std::string fleet_rank_evidence(const FleetRank& r);
// Seconds with one decimal, as the fleet's findings quote deadlines and delays.
std::string fleet_seconds(double s);
}  // namespace trainready
