#pragma once
// Where each rank of a job stands in its collectives, as NCCL and PyTorch report it themselves:
// the `ncclras` client's report (NCCL 2.24+, text; JSON since 2.28.7), PyTorch Flight Recorder
// dumps (pickle or JSON, format "version" 2.x), and the NCCL Inspector profiler plugin's JSON
// lines (NCCL 2.28.3+). Filled by src/parsers/nccl_ras.*, flight_recorder.* and nccl_inspector.*;
// judged by the rules nccl-ranks-behind and nccl-rank-slow. Parsers only transcribe what the
// source printed (and what the source itself flagged); who is behind is the rules' call.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"

namespace trainready {

// ---- ncclras ---------------------------------------------------------------------------------

// One rank as the RAS report names it: "Rank 12 -- GPU 4 managed by process 323032 on node
// 10.137.190.124" (text) or a "ranks"/"missing_ranks" element (JSON).
struct RasRank {
  int rank = -1;
  std::string host;  // as RAS prints it: the address of the process's RAS socket, or a name
  long pid = -1;
  int cuda_dev = -1;
  std::string gpu;  // the text's "GPU" field as printed ("4", "4 (NVML 5)")
  // Operations launched per collective type (JSON "collective_counts"; the text names a count
  // only for the ranks it lists).
  std::map<std::string, std::uint64_t> op_counts;
  std::string status;  // JSON init_state / text "has status X"; "" when not printed
  bool async_error = false;
  bool abort_flag = false;
  bool unresponsive = false;  // missing ranks (JSON)
  bool dead = false;          // missing ranks (JSON) / DEAD section (text)
  Provenance where;
};

// "Communicator ranks have different AllGather operation counts": how many ranks stand at each
// count, and the ranks RAS listed (it lists the minority only: NVIDIA/nccl#1911).
struct RasCountGroup {
  std::uint64_t ops = 0;  // "launched up to operation N"; 0 for "not launched any operations"
  int ranks = 0;
  std::vector<RasRank> listed;
};
struct RasMismatch {
  std::string collective;  // "AllGather"; "collective" for 2.24-2.25, which count all together
  std::vector<RasCountGroup> groups;  // in the order printed (most ranks first)
  Provenance where;
};

struct RasComm {
  std::string id;              // "#0-0 (fa93daea854b060b)" text label, or the JSON hash
  std::string hash;            // "fa93daea854b060b" (text) / "0x..." (JSON), lower case without 0x
  int size = 0;                // ranks per communicator ("Ranks per comm" / JSON "size")
  int nodes = 0;               // "Nodes per comm" (text table)
  std::string status;          // RUNNING, INIT, FINALIZE, ABORT, NOCOMM (text table)
  std::string errors;          // OK, MISMATCH, INCOMPLETE, ERROR... (text table)
  std::vector<RasRank> ranks;  // JSON: every rank that answered; text: every rank named
  std::vector<RasRank> missing;         // ranks RAS got no data from
  std::vector<RasMismatch> mismatches;  // text only
  std::vector<std::string> notes;       // other lines under the communicator, as printed
  bool all_ranks_listed = false;        // JSON: ranks + missing cover the communicator
  Provenance where;
};

struct RasReport {
  std::string source;  // file name
  std::string format;  // "text" or "json"
  std::string nccl_version;
  std::string timestamp;  // JSON only
  int nodes = 0;
  int processes = 0;
  int gpus = 0;
  std::vector<RasComm> comms;
  std::vector<RasRank> missing_processes;  // "INCOMPLETE ... Missing communicator data from"
  std::vector<RasRank> dead_processes;     // "DEAD ... considered dead"
  int timeouts = 0;                        // communication timeouts while gathering data
  bool clocks_unsynchronized = false;      // "negative travel times were observed"
  std::vector<std::string> flagged;        // what RAS itself flagged, one line each
  bool all_ok = false;  // the communicator table says OK for every group, no errors
};

// ---- PyTorch Flight Recorder ------------------------------------------------------------------

struct FrEntry {
  std::int64_t record_id = -1;
  std::string pg_id;    // process group id as a string ("0")
  std::string pg_name;  // "process_group": (group name, description)
  std::string pg_desc;
  std::int64_t collective_seq_id = -1;
  std::int64_t p2p_seq_id = -1;
  std::int64_t op_id = -1;
  std::string profiling_name;  // "nccl:all_reduce"
  std::int64_t time_created_ns = 0;
  std::string state;  // scheduled, started, completed
  bool is_p2p = false;
  bool retired = false;
  std::optional<double> duration_ms;
  std::int64_t timeout_ms = 0;
  std::string input_sizes;  // "[[1024, 1024]]" as a compact string
};

struct FrProcessGroup {
  std::string id;          // pg_status key ("0")
  std::string name;        // pg_config key / "name"
  std::string desc;        // "default_pg", ...
  std::vector<int> ranks;  // global ranks, from "ranks" ("[0, 1, 2]")
  std::int64_t last_enqueued = -1;
  std::int64_t last_started = -1;
  std::int64_t last_completed = -1;
};

struct FrDump {
  std::string source;   // file name
  std::string format;   // "pickle" or "json"
  int rank = -1;        // global rank, from the file name (<prefix><rank>), -1 when it has none
  std::string version;  // format "version": "2.3" ... "2.10"
  std::string comm_lib_version;
  std::vector<FrProcessGroup> groups;
  std::vector<FrEntry> entries;  // oldest first, as dumped (the last kMaxFrEntries)
};
inline constexpr std::size_t kMaxFrEntries = 20000;

// ---- NCCL Inspector --------------------------------------------------------------------------

// Per communicator, rank and collective: the Inspector's completed operations, summarised.
struct InspectorSeries {
  std::string comm_id;  // header "id" (communicator hash, "0x...")
  std::string comm_name;
  int rank = -1;
  int nranks = 0;
  int nnodes = 0;
  std::string host;  // metadata hostname
  long pid = -1;
  std::string collective;            // "AllReduce"; "Send"/"Recv" for p2p
  std::uint64_t msg_size_bytes = 0;  // the largest message size seen
  std::uint64_t count = 0;
  std::uint64_t last_sn = 0;
  double busbw_median_gbs = 0;  // GB/s (1e9 B/s), as the plugin prints it
  double busbw_min_gbs = 0;
  double busbw_max_gbs = 0;
  double exec_time_median_us = 0;
  std::string timing_source;   // kernel_gpu, kernel_cpu, collective_cpu; "" before 2.29
  std::string format_version;  // "v4.0"
  Provenance where;
};

// ---- all of it -------------------------------------------------------------------------------

struct CollectiveProgressFacts {
  std::vector<std::string> files;
  std::vector<RasReport> ras;
  std::vector<FrDump> flight_recorder;
  std::vector<InspectorSeries> inspector;
  std::vector<std::string> notes;  // what could not be read (a cut last line), with where
  bool empty() const { return ras.empty() && flight_recorder.empty() && inspector.empty(); }
};

// The operation count of a collective on a rank (0 when RAS did not print it).
inline std::uint64_t ras_count(const RasRank& r, const std::string& collective) {
  auto it = r.op_counts.find(collective);
  return it == r.op_counts.end() ? 0 : it->second;
}

}  // namespace trainready
