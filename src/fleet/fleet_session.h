#pragma once
// A fleet run under mpirun or srun: every rank probes its node (in a child process, with a
// deadline), rank 0 gathers the facts point to point with a deadline, then tells each rank that
// answered whether the later phases (fleet --bandwidth, ...) run. Without a launcher it is one
// rank and MPI is never loaded.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/mpi_layer.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/group_judgement.h"
#include "fleet/judged_gatherer.h"
#include "probes/probe_options.h"

namespace trainready {

struct FleetOptions {
  // Snapshot directories instead of the live node; "%r" in a path becomes the rank. Several:
  // each rank reads the one at index rank % count (a test can feed 4 ranks from 2 snapshots).
  std::vector<std::string> roots;
  ProbeOptions probe;
  std::chrono::milliseconds probe_timeout{30000};   // each rank's probes
  std::chrono::milliseconds gather_timeout{60000};  // rank 0's wait for every rank's facts
  // --gather-group: 0 picks (fleet_groups.h), 1 one level, K >= 2 a leader per K ranks.
  int gather_group = 0;
  // How group leaders (and rank 0 for its own group) judge their members' nodes: the same
  // catalog, rule selection and options as rank 0.
  JudgeSetup judge;
};

// The MPI tags (MpiWorld channels) of the fleet's own steps; later phases use others.
inline constexpr int kFleetHelloChannel = 7101;
inline constexpr int kFleetFactsChannel = 7102;
inline constexpr int kFleetReleaseChannel = 7103;
inline constexpr int kFleetJudgementChannel = 7104;  // a group leader's judgement to rank 0

struct FleetSession {
  std::unique_ptr<MpiWorld> world;  // null for one rank without a launcher
  int rank = 0;
  int size = 1;
  std::string launcher;                 // "mpirun", "srun", "mpi", "none"
  int gather_group = 1;                 // 1: every rank sent rank 0 its facts; K: via leaders
  std::optional<FleetGather> gathered;  // rank 0 only, one level: every node's facts
  std::optional<JudgedFleet> judged;    // rank 0 only, two levels: the leaders' judgements
  // Every rank answered with facts (or a failure), so the later phases, which use collectives,
  // can run. Known at rank 0 after gather_fleet(), elsewhere after await_release().
  bool all_answered = false;
};

// "mpirun", "srun", "mpi" (a PMI launcher) from the environment, or "none".
std::string fleet_launcher();
// "%r" -> rank; throws InputError when no root is usable.
std::string root_for_rank(const std::vector<std::string>& roots, int rank);

// Probes, then the gather. Throws std::runtime_error when MPI cannot start (no plugin, no
// libmpi.so.40) under a launcher.
FleetSession gather_fleet(const FleetOptions& opt);
// Rank 0: tells each rank that answered whether the later phases run.
void release_ranks(FleetSession& s, bool run_phases, std::chrono::milliseconds timeout);
// Other ranks: waits for rank 0's word; false when the later phases do not run (or no word
// came in time).
bool await_release(FleetSession& s, std::chrono::milliseconds timeout);
// The end of every rank: MPI_Finalize after a barrier when every rank is there; when some rank
// is missing, rank 0 ends the job with MPI_Abort(exit_code) (the missing rank may hang
// forever; its report is already written) and the others leave without MPI_Finalize.
[[noreturn]] void end_fleet(FleetSession& s, int exit_code);

}  // namespace trainready
