#pragma once
// Shared by the telemetry rules: which ranks stand behind the others, from RAS operation counts
// and Flight Recorder sequence numbers; where each rank runs (RAS addresses, Inspector host
// names); and what the facts already given about that node say of its paths.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/fact.h"
#include "facts/collective_progress.h"
#include "facts/node_facts.h"
#include "facts/watch_facts.h"

namespace trainready {

// One communicator (RAS) or process group (Flight Recorder) whose ranks disagree.
struct BehindGroup {
  std::string source;           // "RAS" or "Flight Recorder"
  std::string comm;             // "fa93daea854b060b", "pg 0 (default_pg)"
  int comm_size = 0;            // ranks in it, 0 when unknown
  std::string collective;       // "AllGather", "nccl:all_reduce"
  std::uint64_t behind_at = 0;  // operations launched / last sequence number entered
  std::uint64_t ahead_at = 0;
  int ahead_count = 0;           // how many ranks stand at ahead_at
  std::vector<int> ahead_ranks;  // named, when the source names them
  struct Rank {
    int rank = -1;
    std::string host;  // as the source prints it (RAS: an address)
    long pid = -1;
    int gpu = -1;
    std::string last;  // FR: the last collective it entered, "nccl:all_reduce #640 (completed)"
  };
  std::vector<Rank> behind;  // named ranks
  int behind_count = 0;      // how many are behind (may exceed behind.size() for RAS text)
  std::string unnamed;       // RAS text: who the unnamed behind ranks are ("every rank but 12, 13")
  std::vector<Provenance> where;
};

// Ranks RAS could not reach: missing data, considered dead.
struct SilentRank {
  std::string comm;
  int rank = -1;  // -1 for a process without a rank
  std::string host;
  long pid = -1;
  bool dead = false;
  Provenance where;
};

struct Localisation {
  std::vector<BehindGroup> behind;
  std::vector<SilentRank> silent;
  // Every RAS report says every communicator is consistent (RUNNING, OK), and FR shows no rank
  // behind: the situation of NVIDIA/nccl#1730.
  bool ras_all_ok = false;
  int ras_reports = 0;
  // FR: process groups whose every rank entered the same collective and none completed it.
  std::vector<std::string> stuck_inside;
};

Localisation localise(const CollectiveProgressFacts& f);

// A rank's host as a person knows it: the Inspector's host name for that RAS address / rank
// when one is known, else the address ("node-3 (10.0.0.4)").
struct HostNames {
  std::map<std::string, std::string> by_address;  // RAS address -> host name
  std::map<int, std::string> by_world_rank;       // rank in the largest communicator -> host
  int world_size = 0;
};
HostNames host_names(const CollectiveProgressFacts& f);
std::string display_host(const HostNames& h, const std::string& host, int world_rank);

// What the snapshot or recording of `host` says of its paths, one short clause each ("IB port
// mlx5_ib2/1 DOWN", "Xid 79 x2", "watch: 61 % input-storage"); empty when nothing is given for
// that host or nothing there is wrong. `which` names the snapshot/recording found.
std::vector<std::string> node_paths(const std::string& host, const std::vector<NodeFacts>* nodes,
                                    const WatchFacts* watch, std::string& which);

}  // namespace trainready
