#pragma once
// Which of a log's failure-worded NCCL INFO lines the analyser keeps (NcclRunFacts::failure_info,
// issue 30): a chatty log prints hundreds of them ("GPU Direct RDMA Disabled", "No device
// found", "Could not enable P2P") long before the one that explains the failure, so keeping
// only the first few loses it. Kept, each line once, in the order first printed:
//   - the first kHead distinct lines (setup: what the run could not use);
//   - around each new distinct WARN (the first kFirstWarns, and the latest kLastWarns after
//     those): the last kBefore lines the warning rank printed before it and its next kAfter;
//   - the last kTail distinct lines of the log (what came just before the abort or the end).
// Everything else is counted as folded. Memory is bounded by these constants, not by the log.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

class NcclFailureInfo {
 public:
  static constexpr std::size_t kHead = 16;
  static constexpr std::size_t kTail = 16;
  static constexpr std::size_t kBefore = 4;
  static constexpr int kAfter = 4;
  static constexpr std::size_t kFirstWarns = 8;
  static constexpr std::size_t kLastWarns = 8;

  // One failure-worded line (its quoted message, the time it carries) that stream `who`
  // printed (nullptr: a line without a stream). A repeat of a kept line is counted, not kept
  // twice.
  void info(std::string text, const Provenance& where, const void* who, LineTime time = {});
  // A WARN whose message is new to the log, from `who` (nullptr: unknown, any stream matches).
  void warn(const void* who);
  // The kept lines in the order they were first printed, and how many lines (repeats included)
  // went unkept. Leaves the keeper empty.
  void finish(std::vector<LogLine>& out, std::uint64_t& folded);

 private:
  struct Entry {
    LogLine line;
    std::uint64_t seq = 0;    // order of first appearance
    std::uint64_t count = 0;  // lines it stands for: itself and its repeats while kept
    const void* who = nullptr;
    bool head = false;
    bool in_ring = false;
    int pins = 0;  // windows that hold it
    bool alive = false;
  };
  struct Window {
    const void* who = nullptr;
    int left = kAfter;
    std::vector<std::size_t> ids;  // entries it pinned
  };
  bool kept(const Entry& e) const { return e.head || e.in_ring || e.pins > 0; }
  void release(std::size_t id);  // folds an entry nothing keeps any more
  void pin(Window& w, std::size_t id);
  void after(std::size_t id, const void* who);

  std::vector<Entry> pool_;
  std::vector<std::size_t> free_;
  std::unordered_map<std::string, std::size_t> index_;
  std::deque<std::size_t> ring_;  // oldest first
  std::vector<Window> first_;     // windows of the first kFirstWarns warnings
  std::deque<Window> last_;       // the latest kLastWarns after those
  std::size_t heads_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t folded_ = 0;
};

}  // namespace trainready
