// --replicate's read-ahead: this rank's units read from the source by several threads, handed
// on in unit order, bounded in bytes held.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stage/rate_limiter.h"
#include "stage/replicate_wire.h"
#include "stage/source.h"

namespace trainready::stage::fanout {

class ReadAhead {
 public:
  ReadAhead(Source& src, const std::vector<SourceEntry>& entries, const std::vector<Unit>& units,
            std::vector<std::uint64_t> mine, int threads, std::uint64_t cap, RateLimiter& limiter)
      : src_(src),
        entries_(entries),
        units_(units),
        mine_(std::move(mine)),
        cap_(cap),
        limiter_(limiter) {
    for (int i = 0; i < threads && static_cast<std::size_t>(i) < mine_.size(); ++i) {
      try {
        threads_.emplace_back([this] { loop(); });
      } catch (const std::system_error& e) {
        // Fewer readers; with none, every unit is answered with this error (never a wait).
        if (threads_.empty()) error_ = std::string("cannot start a source reader: ") + e.what();
        break;
      }
    }
  }
  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::size_t count() const { return mine_.size(); }
  // The result of this rank's unit number `seq` (in order), waiting for it.
  UnitResult take(std::size_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_.count(seq) != 0 || !error_.empty(); });
    if (done_.count(seq) == 0) {
      UnitResult failed;
      failed.unit = mine_[seq];
      failed.status = kIoSt;
      failed.message = entries_[units_[mine_[seq]].file].path + ": " + error_;
      return failed;
    }
    UnitResult r = std::move(done_.at(seq));
    done_.erase(seq);
    inflight_ -= units_[mine_[seq]].len;
    cv_.notify_all();
    return r;
  }
  std::uint64_t unit_len(std::size_t seq) const { return units_[mine_[seq]].len; }
  bool ready(std::size_t seq) {
    std::lock_guard<std::mutex> lock(mu_);
    return done_.count(seq) != 0 || !error_.empty();
  }
  std::uint64_t bytes_read() const { return bytes_read_.load(); }

 private:
  // A thread's entry point: nothing may escape it (std::terminate). A reader that fails outside
  // read() (memory) turns every unit not read yet into an error, so the round loop never waits
  // for it.
  void loop() {
    try {
      read_units();
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      if (error_.empty()) error_ = std::string("a source reader failed: ") + e.what();
    }
    cv_.notify_all();
  }
  void read_units() {
    for (;;) {
      std::size_t seq;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // Reserved in order, so the units the consumer waits for always hold their room.
        cv_.wait(lock, [&] {
          return stop_ || next_ >= mine_.size() || inflight_ == 0 ||
                 inflight_ + units_[mine_[next_]].len <= cap_;
        });
        if (stop_ || next_ >= mine_.size()) return;
        seq = next_++;
        inflight_ += units_[mine_[seq]].len;
      }
      UnitResult r = read(mine_[seq]);
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_[seq] = std::move(r);
      }
      cv_.notify_all();
    }
  }
  UnitResult read(std::uint64_t unit) {
    const Unit& u = units_[unit];
    const SourceEntry& e = entries_[u.file];
    UnitResult r;
    r.unit = unit;
    try {
      limiter_.acquire(u.len);
      std::unique_ptr<SourceReader> rd = src_.open(e);
      r.bytes.resize(static_cast<std::size_t>(u.len));
      if (u.len)
        rd->read_at(u.off, std::span<std::byte>(reinterpret_cast<std::byte*>(r.bytes.data()),
                                                r.bytes.size()));
      rd->confirm_unchanged();
      bytes_read_ += u.len;
    } catch (const SourceError& err) {
      r.status = status_of(err.kind());
      r.message = err.what();
      r.bytes.clear();
    } catch (const std::exception& err) {
      r.status = kIoSt;
      r.message = e.path + ": " + err.what();
      r.bytes.clear();
    }
    return r;
  }

  Source& src_;
  const std::vector<SourceEntry>& entries_;
  const std::vector<Unit>& units_;
  std::vector<std::uint64_t> mine_;
  std::uint64_t cap_;
  RateLimiter& limiter_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t next_ = 0;
  std::uint64_t inflight_ = 0;
  bool stop_ = false;
  std::map<std::size_t, UnitResult> done_;
  std::string error_;  // a reader failed outside read(): every unit not read yet fails with it
  std::atomic<std::uint64_t> bytes_read_{0};
  std::vector<std::thread> threads_;
};

}  // namespace trainready::stage::fanout
