#pragma once
// A client of NCCL's RAS service (NCCL 2.24 and later): the socket each NCCL process's RAS
// thread listens on for `ncclras`, by default localhost:28028, elsewhere NCCL_RAS_ADDR
// (src/ras/client_support.cc rasClientInitSocket; NCCL_RAS_CLIENT_PORT in src/ras/ras_internal.h).
// It speaks the protocol ncclras speaks (src/ras/client.cc at v2.24.3 .. v2.30.7), one line a
// command, each answered by one line before the next is sent:
//   "CLIENT PROTOCOL 2"  -> "SERVER PROTOCOL 2"   (NCCL_RAS_CLIENT_PROTOCOL)
//   "TIMEOUT <s>"        -> "OK"                  (how long RAS waits for its peers)
//   "SET FORMAT json"    -> "OK" from 2.28.7 on; "ERROR: Unknown command ..." before: text
//   "STATUS"             -> the report, then the server closes the connection.
// This is a source: it returns the raw reply text (bounded) or why there is none; it parses no
// report (src/parsers/nccl_ras.h does). Every step has a deadline, and a stop flag ends a query
// within 100 ms, so a RAS thread that accepts and never answers holds nothing up.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "watch/sample.h"

namespace trainready::watch {

inline constexpr const char* kRasDefaultAddress = "localhost:28028";  // NCCL_RAS_CLIENT_PORT
inline constexpr int kRasClientProtocol = 2;                          // NCCL_RAS_CLIENT_PROTOCOL
// RAS_COLLECTIVE_LEG_TIMEOUT_SEC (ras_internal.h): what ncclras sends as TIMEOUT by default.
inline constexpr int kRasDefaultTimeoutS = 5;
// The reply is kept up to this many bytes (trainready's bound; the rest is read and dropped
// until the server closes or the deadline passes, then the reply is marked truncated).
inline constexpr std::size_t kRasMaxReplyBytes = std::size_t{1} << 20;
// One handshake line (ncclras reads it into a 1,024-byte buffer).
inline constexpr std::size_t kRasMaxLineBytes = 1024;

struct RasQueryOptions {
  std::string address = kRasDefaultAddress;  // HOST:PORT or [IPV6]:PORT, as NCCL_RAS_ADDR
  // Connect and each handshake reply: ncclras starts with a 1 s socket timeout
  // (TIMEOUT_INCREMENT) "to quickly eliminate non-responsive processes".
  double connect_timeout_s = 1;
  // Sent as "TIMEOUT <s>"; the report must then arrive within 1 + 2 x this many seconds: ncclras
  // waits TIMEOUT_INCREMENT + timeout + RAS_COLLECTIVE_EXTRA_TIMEOUT_SEC (= the leg timeout).
  int ras_timeout_s = kRasDefaultTimeoutS;
  std::size_t max_reply_bytes = kRasMaxReplyBytes;
  bool json = true;  // ask for JSON (2.28.7+), falling back to text when the server refuses
};

// One query, blocking for at most connect + 3 handshake lines + the report deadline; returns
// early when *stop becomes true. Never throws for anything the peer does.
RasReply query_ras(const RasQueryOptions& o, const std::atomic<bool>* stop = nullptr);

// Queries in a thread of its own, one at a time, the first at once and then every `every_s`
// seconds after the last ended; the sampler takes the newest reply when it has one. Destroying
// it stops the thread within about 100 ms; a thread still inside getaddrinfo (a host name whose
// DNS does not answer: no deadline bounds it) after 1 s is left to end on its own, detached,
// with the state it shares, so watch never waits on it.
class RasPoller {
 public:
  RasPoller(RasQueryOptions o, double every_s);
  ~RasPoller();
  RasPoller(const RasPoller&) = delete;
  RasPoller& operator=(const RasPoller&) = delete;
  // The reply finished since the last call, if any.
  std::optional<RasReply> take();

 private:
  struct State {
    RasQueryOptions options;
    double every_s = 60;
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::condition_variable cv;
    std::optional<RasReply> ready;
    bool finished = false;
  };
  static void run(const std::shared_ptr<State>& st);
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace trainready::watch
