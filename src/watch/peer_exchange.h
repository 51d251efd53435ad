#pragma once
// The live straggler: under mpirun/srun (one `watch` rank per node) every rank sends rank 0 a
// short summary of each interval it closes; rank 0 lines them up by wall-clock time and applies
// the same rule as `--replay` of several recordings (mark_stragglers, timeline.h), so the live
// view and the offline view cannot disagree. This file is the part without MPI: the message,
// and rank 0's board of every rank's recent intervals (bounded, so memory stays flat). The MPI
// side is src/cli/watch_peers.cpp.
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/watch_facts.h"
#include "watch/attribution.h"
#include "watch/timeline.h"

namespace trainready::watch {

// What one rank tells rank 0 about one interval it closed.
struct PeerInterval {
  int rank = 0;
  std::string host;
  double start = 0;  // Unix seconds (the nodes' clocks are assumed NTP-synchronised)
  double end = 0;
  double seconds = 0;
  int gpus = 0;
  std::optional<double> gpu_busy;   // ratio 0..1, as in Interval
  std::optional<double> cpu_cores;  // the watched processes' CPU time / wall time
  Label label = Label::kUnknown;    // what the rank's own attribution said
};

inline constexpr int kPeerMessageFormat = 1;

PeerInterval peer_interval_of(int rank, const std::string& host, const LabelledInterval& li);
std::string encode_peer_interval(const PeerInterval& p);
// Throws std::runtime_error saying what is wrong with the bytes (they come from another
// process: never trusted to be well formed).
PeerInterval decode_peer_interval(std::string_view bytes);

// The first message of each rank: who it is. Sent at the start so the MPI connection to rank 0
// is made while rank 0 waits for it (TCP connects only while both sides drive MPI), and so a
// rank that never sends a summary is still named by host.
std::string encode_peer_hello(int rank, const std::string& host);
// The host; throws std::runtime_error like decode_peer_interval.
std::string decode_peer_hello(std::string_view bytes, int rank);

// One interval found to be a straggler's, at rank 0.
struct StragglerEvent {
  int rank = 0;
  std::string node;  // "HOST (rank R)"
  double start = 0;
  double end = 0;
  int peers = 0;       // peers with data at that moment
  bool by_gpu = true;  // false: judged by the processes' CPU activity (no GPUs anywhere)
  double value = 0;    // its GPU busy ratio, or its processes' CPU cores
};

// kWaiting: nothing yet; kOk: summaries coming; kSilent: none for the timeout; kDone: said it
// has finished (its watched processes exited, or its --duration ended).
enum class PeerState { kWaiting, kOk, kSilent, kDone };

struct PeerRank {
  int rank = 0;
  std::string host;
  PeerState state = PeerState::kWaiting;
  bool went_silent = false;  // was silent at some point (reported even if it came back)
  double last_heard = 0;     // rank 0's monotonic seconds
  bool said_hello = false;
  int intervals = 0;  // received
  int judged = 0;
  int straggler_intervals = 0;
  double straggler_seconds = 0;
  int most_peers = 0;  // the most peers it was compared with when it straggled
  int unreadable = 0;  // messages that did not decode
  std::string last_error;
  std::deque<PeerInterval> window;  // the newest intervals, oldest first
  std::size_t unjudged = 0;         // how many at the back of the window are not judged yet
};

class PeerBoard {
 public:
  // `timeout_s`: a rank not heard from for this long is silent and no longer waited for.
  // `window`: intervals kept per rank (at least what the timeout spans, plus a margin).
  PeerBoard(int size, Thresholds t, double timeout_s, std::size_t window, double now);
  void accept(const PeerInterval& p, double now);
  void hello(int rank, const std::string& host, double now);
  bool all_said_hello() const;
  void unreadable(int rank, const std::string& why);
  void finished(int rank, double now);
  // No rank is silent or still to be heard from.
  bool all_answering() const;
  // Ranks that have just gone silent (each once), for the live view.
  std::vector<int> update_silence(double now);
  // Judges every interval whose moment every answering rank has covered (`final`: everything
  // left, with what has come). Returns the straggler intervals found.
  std::vector<StragglerEvent> judge(bool final);

  int size() const { return static_cast<int>(ranks_.size()); }
  const PeerRank& rank(int r) const { return ranks_[static_cast<std::size_t>(r)]; }
  std::string node_name(int r) const;
  // The end summary's lines about the job, and the job as facts for the report.
  std::string text(const std::string& launcher) const;
  WatchJobFacts facts(const std::string& launcher) const;

 private:
  std::vector<PeerRank> ranks_;
  Thresholds t_;
  double timeout_s_;
  std::size_t window_;
};

// "node X (rank R) idle while its N peers work (GPU busy 5 %)".
std::string straggler_line(const StragglerEvent& e);

// Test hook, not a user option: TRAINREADY_WATCH_TEST_FAULT="RANK:KIND[,RANK:KIND...]" makes
// the named ranks misbehave so the tests can show rank 0 carries on (docs/watch.md, "Test
// hooks"). Kinds:
//   silent   watches its node but never sends rank 0 anything
//   hang     sends its first interval, then stops (sleeps) without exiting
//   garbage  sends bytes that are not an interval summary
enum class PeerFault { kNone, kSilent, kHang, kGarbage };
inline constexpr const char* kWatchFaultEnv = "TRAINREADY_WATCH_TEST_FAULT";
// Throws InputError naming the bad entry.
std::map<int, PeerFault> parse_peer_faults(const std::string& spec);
PeerFault peer_fault_for(int rank);

// "{rank}" -> rank and "{host}" -> host in a --root or --record path.
std::string expand_rank_placeholders(std::string path, int rank, const std::string& host);

}  // namespace trainready::watch
