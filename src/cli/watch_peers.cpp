#include "cli/watch_peers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "bench/mpi_plugin_loader.h"
#include "core/host_name.h"

namespace trainready {
namespace {

using std::chrono::milliseconds;

// A summary is about 250 bytes: MPI sends it eagerly, so a send completes at once once the
// connection to rank 0 is up. One that has not completed in kSendTimeout stays pending (the
// first ones do while TCP connects, which needs rank 0 to drive MPI's progress) and the sample
// goes on. After kMaxFailedSends unfinished in a row, rank 0 is not taking anything: the rank
// stops sending rather than pile up messages (64 x ~250 bytes at most).
constexpr milliseconds kSendTimeout{100};
constexpr int kMaxFailedSends = 64;

[[noreturn]] void sleep_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

std::unique_ptr<WatchPeers> WatchPeers::join(const watch::Thresholds& t, double interval_s,
                                             double timeout_s, double (*clock)()) {
  FleetSession s;
  s.launcher = fleet_launcher();
  if (s.launcher == "none") return nullptr;
  s.world = load_mpi_layer().world();
  s.rank = s.world->rank();
  s.size = s.world->size();
  s.all_answered = true;
  std::unique_ptr<WatchPeers> p(new WatchPeers(std::move(s)));
  p->host_ = p->session_.world->host();
  if (p->host_.empty()) p->host_ = host_name();
  p->fault_ = watch::peer_fault_for(p->session_.rank);
  if (p->session_.rank != 0) {
    // Up to the timeout, while rank 0 waits for it: the TCP connection needs both sides to
    // drive MPI, and once it is up every summary goes out in one write.
    const auto hello_timeout = milliseconds(static_cast<long long>(timeout_s * 1000));
    if (p->fault_ != watch::PeerFault::kSilent)
      p->session_.world->send(watch::encode_peer_hello(p->rank(), p->host_), 0, kWatchHelloChannel,
                              hello_timeout);
    return p;
  }
  // Enough intervals per rank to line up a peer one timeout behind, plus a margin.
  const double n = std::ceil(timeout_s / interval_s) + 8;
  const auto window = static_cast<std::size_t>(std::min(n, 100000.0));
  p->board_ = std::make_unique<watch::PeerBoard>(p->session_.size, t, timeout_s, window, clock());
  p->board_->hello(0, p->host_, clock());
  // Every rank's hello, up to the timeout: rank 0 drives MPI's progress meanwhile, so the
  // connections are up before the first summaries (a summary sent while TCP still connects
  // waits for rank 0's next look, an interval later).
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  while (!p->board_->all_said_hello() && std::chrono::steady_clock::now() < deadline) {
    int source = MpiWorld::kAnyRank;
    int channel = kWatchHelloChannel;
    std::string bytes;
    if (!p->session_.world->receive(source, channel, bytes, milliseconds(50))) continue;
    try {
      p->board_->hello(source, watch::decode_peer_hello(bytes, source), clock());
    } catch (const std::exception& e) {
      p->board_->unreadable(source, e.what());
    }
  }
  return p;
}

void WatchPeers::publish(const watch::LabelledInterval& li, double now) {
  const watch::PeerInterval mine = watch::peer_interval_of(rank(), host_, li);
  if (board_) {
    board_->accept(mine, now);
    return;
  }
  if (!sending_ || fault_ == watch::PeerFault::kSilent) return;
  const std::string bytes = fault_ == watch::PeerFault::kGarbage
                                ? std::string("\xff\x00garbage from a test hook", 25)
                                : watch::encode_peer_interval(mine);
  if (session_.world->send(bytes, 0, kWatchIntervalChannel, kSendTimeout)) {
    failed_sends_ = 0;
  } else if (++failed_sends_ >= kMaxFailedSends) {
    sending_ = false;
    std::fprintf(stderr,
                 "trainready watch: rank %d: rank 0 has not taken %d interval summaries in a row; "
                 "this rank stops sending them and keeps watching its node\n",
                 rank(), kMaxFailedSends);
  }
  if (fault_ == watch::PeerFault::kHang) sleep_forever();  // after its first summary
}

void WatchPeers::drain(double now) {
  for (;;) {
    int source = MpiWorld::kAnyRank;
    int channel = MpiWorld::kAnyChannel;
    std::string bytes;
    if (!session_.world->receive(source, channel, bytes, milliseconds(0))) return;
    if (channel == kWatchDoneChannel) {
      board_->finished(source, now);
      continue;
    }
    if (channel == kWatchHelloChannel) {  // after rank 0 stopped waiting for it
      try {
        board_->hello(source, watch::decode_peer_hello(bytes, source), now);
      } catch (const std::exception& e) {
        board_->unreadable(source, e.what());
      }
      continue;
    }
    if (channel != kWatchIntervalChannel) continue;
    try {
      watch::PeerInterval p = watch::decode_peer_interval(bytes);
      if (p.rank != source)
        throw std::runtime_error("the message says it comes from rank " + std::to_string(p.rank));
      board_->accept(p, now);
    } catch (const std::exception& e) {
      board_->unreadable(source, e.what());
    }
  }
}

WatchPeers::News WatchPeers::poll(double now) {
  News n;
  if (!board_) return n;
  drain(now);
  n.silent = board_->update_silence(now);
  n.stragglers = board_->judge(false);
  return n;
}

WatchPeers::News WatchPeers::finish(double wait_s, double (*clock)()) {
  News n;
  if (!board_) {
    if (sending_ && fault_ != watch::PeerFault::kSilent)
      session_.world->send("done", 0, kWatchDoneChannel, kSendTimeout);
    return n;
  }
  // The peers close their last intervals up to one interval after rank 0 does.
  const double deadline = clock() + wait_s;
  for (;;) {
    const double now = clock();
    drain(now);
    auto silent = board_->update_silence(now);
    n.silent.insert(n.silent.end(), silent.begin(), silent.end());
    bool all_done = true;
    for (int r = 1; r < board_->size(); ++r) {
      const auto st = board_->rank(r).state;
      all_done = all_done && (st == watch::PeerState::kDone || st == watch::PeerState::kSilent);
    }
    if (all_done || now >= deadline) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  n.stragglers = board_->judge(true);
  return n;
}

void WatchPeers::end(int code) {
  // Rank 0 knows whether a rank is missing; when one is, the barrier would wait for it in vain,
  // so rank 0 ends the job at once (its summary is already printed).
  if (board_) session_.all_answered = board_->all_answering();
  std::fflush(stdout);
  std::fflush(stderr);
  end_fleet(session_, code);
}

}  // namespace trainready
