#pragma once
// `watch` under mpirun or srun (one rank per node): the MPI side of the live straggler
// (watch/peer_exchange.h). Found the way `fleet` finds its launcher, through the same MPI plugin
// (MpiWorld, bench/mpi_layer.h) and the same ending (end_fleet: finalize when every rank is
// there, MPI_Abort from rank 0 when one is missing). Every message is point to point with a
// deadline, so a silent or slow rank never holds the others up. Without a launcher there is no
// WatchPeers and MPI is never loaded.
#include <memory>
#include <string>
#include <vector>

#include "fleet/fleet_session.h"
#include "watch/peer_exchange.h"

namespace trainready {

// The MPI tags of watch's messages (fleet's are 71xx).
inline constexpr int kWatchIntervalChannel = 7201;
inline constexpr int kWatchDoneChannel = 7202;
inline constexpr int kWatchHelloChannel = 7203;

class WatchPeers {
 public:
  // nullptr when no launcher started this process. Throws std::runtime_error when MPI cannot
  // start under one (no plugin, no libmpi.so.40). `timeout_s`: a rank silent this long is
  // reported and no longer waited for; rank 0 waits up to that for every rank's hello.
  static std::unique_ptr<WatchPeers> join(const watch::Thresholds& t, double interval_s,
                                          double timeout_s, double (*clock)());
  int rank() const { return session_.rank; }
  int size() const { return session_.size; }
  const std::string& host() const { return host_; }
  const std::string& launcher() const { return session_.launcher; }

  // Each closed interval: rank 0 puts its own on the board, the others send theirs.
  void publish(const watch::LabelledInterval& li, double now);
  struct News {
    std::vector<watch::StragglerEvent> stragglers;
    std::vector<int> silent;  // ranks that have just gone silent
  };
  // Rank 0: takes what has arrived (never waits) and judges what every rank has covered.
  News poll(double now);
  // Rank 0 at the end: waits up to `wait_s` for the peers' last intervals, then judges what is
  // left. Other ranks: tell rank 0 this rank has finished.
  News finish(double wait_s, double (*clock)());
  const watch::PeerBoard* board() const { return board_.get(); }
  // Ends this process (see the header comment); rank 0's exit code is `code`.
  [[noreturn]] void end(int code);

 private:
  explicit WatchPeers(FleetSession s) : session_(std::move(s)) {}
  void drain(double now);
  FleetSession session_;
  std::string host_;
  watch::PeerFault fault_ = watch::PeerFault::kNone;
  std::unique_ptr<watch::PeerBoard> board_;  // rank 0 only
  int failed_sends_ = 0;
  bool sending_ = true;
};

}  // namespace trainready
