#pragma once
// What `watch` measured, as facts for the watch rules and the reporters: per node, the labelled
// timeline's totals (time per label, the GPUs' idle time on each) and the summary users read. The
// per-interval labels themselves come from the same rules (src/rules/watch/); these totals are
// what the rules judge at the end of a run.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct WatchLabelShare {
  std::string label;  // "communication", "input-storage", ... (watch::label_id)
  int intervals = 0;
  double seconds = 0;           // wall time of the intervals with this label
  double gpu_idle_seconds = 0;  // their (1 - GPU busy share) x length
  double time_share = 0;        // seconds / the node's watched seconds
  double gpu_idle_share = 0;    // gpu_idle_seconds / seconds with GPU counters (0 without)
  // The counters behind it, as the summary words them ("InfiniBand at 96 % of 8 x 400 Gb/s").
  std::string detail;
};

// NCCL RAS (watch/ras_client.h; rank 0 of a job): the newest report NCCL sent, raw and unparsed
// (src/parsers/nccl_ras.h reads it), and why the newest query failed, if it did.
struct WatchNcclRas {
  std::string address;
  int queries = 0;
  int replies = 0;
  std::string format;  // "json" or "text" of the report kept
  std::string text;    // the report, at most 1 MiB (watch::kRasMaxReplyBytes)
  bool truncated = false;
  double time = 0;          // Unix seconds the report kept ended
  std::string unavailable;  // the newest query's failure; empty when it answered
};

// (Outside WatchNodeFacts: clang cannot default-construct a nested struct with member
// initialisers inside std::optional before the enclosing class is complete.)
struct WatchNodeFacts {
  std::string node;  // host name, or "host (recording path)" in a replay
  int intervals = 0;
  double seconds = 0;
  std::optional<double> gpu_busy_ratio;  // over the seconds with GPU counters; none without
  int gpus = 0;
  std::string headline;  // "GPUs were busy 61 % of the time; 31 % waiting on the network (...)"
  std::string text;      // the summary as users read it: headline, by-label line, unavailable
  std::vector<WatchLabelShare> labels;   // every label, in watch::kAllLabels order
  std::vector<std::string> unavailable;  // sources that could not be read, with the reason
  using NcclRas = WatchNcclRas;
  std::optional<NcclRas> nccl_ras;

  const WatchLabelShare* find(std::string_view label) const {
    for (const WatchLabelShare& l : labels)
      if (l.label == label) return &l;
    return nullptr;
  }
};

// Under mpirun/srun, rank 0's view of the job: every rank's interval summaries judged side by
// side with the --replay straggler rule (watch/peer_exchange.h).
struct WatchJobRank {
  int rank = 0;
  std::string host;
  std::string node;   // "host (rank R)"
  std::string state;  // "ok", "silent" (stopped answering for a while), "never_answered"
  int intervals = 0;  // interval summaries received
  int judged_intervals = 0;
  int straggler_intervals = 0;
  double straggler_seconds = 0;
  int peers = 0;  // the most peers it was compared with while it straggled
  int unreadable_messages = 0;
};
struct WatchJobFacts {
  std::string launcher;  // "mpirun", "srun"
  int size = 0;
  std::string text;  // the job's lines as users read them ("Straggler: node ...", "Silent: ...")
  std::vector<WatchJobRank> ranks;
};
struct WatchFacts {
  std::string mode;  // "live" or "replay"
  double hang_after_s = 60;
  std::vector<WatchNodeFacts> nodes;
  std::optional<WatchJobFacts> job;  // rank 0 under a launcher
};

}  // namespace trainready
