#pragma once
// --max-bw: a shared pacing clock. Each read reserves its bytes on the clock and sleeps until its
// slot, so all workers together stay at the cap without a token refill thread.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace trainready::stage {

class RateLimiter {
 public:
  explicit RateLimiter(std::uint64_t bytes_per_s) : rate_(static_cast<double>(bytes_per_s)) {}
  bool active() const { return rate_ > 0; }
  // Blocks until `bytes` may be read; returns the seconds slept.
  double acquire(std::uint64_t bytes) {
    if (rate_ <= 0) return 0;
    const auto now = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point start;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (next_ < now) next_ = now;
      start = next_;
      next_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(static_cast<double>(bytes) / rate_));
    }
    if (start <= now) return 0;
    std::this_thread::sleep_until(start);
    return std::chrono::duration<double>(start - now).count();
  }

 private:
  double rate_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point next_{};
};

}  // namespace trainready::stage
