#include "stage/progress.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <system_error>

#include "core/units.h"

namespace trainready::stage {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kRead:
      return "source reads";
    case Phase::kWrite:
      return "destination writes";
    case Phase::kMeta:
      return "metadata (open, create, rename, sync)";
    case Phase::kHash:
      return "CPU (hashing)";
    case Phase::kThrottle:
      return "--max-bw";
    case Phase::kIdle:
      return "listing the source (metadata)";
    case Phase::kCount:
      break;
  }
  return "?";
}

double process_cpu_seconds() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

Sample take_sample(const Counters& c, double t) {
  Sample s;
  s.t = t;
  s.cpu_s = process_cpu_seconds();
  s.bytes_done = c.bytes_done.load();
  s.bytes_read = c.bytes_read.load();
  s.files_done = c.files_done.load();
  for (int i = 0; i < static_cast<int>(Phase::kCount); ++i) s.phase_ns[i] = c.phase_ns[i].load();
  return s;
}

std::string limit_between(const Sample& a, const Sample& b, const LimitContext& ctx) {
  const double dt = b.t - a.t;
  if (dt <= 0) return "";
  const double read_rate = static_cast<double>(b.bytes_read - a.bytes_read) / dt;
  // A ceiling the workers cannot see in their own time: the NIC (a remote source reading at
  // 90% of the VM's front-end bandwidth) and the CPU (the process using 90% of every core).
  if (ctx.nic_bytes_per_s > 0 && read_rate >= 0.9 * ctx.nic_bytes_per_s)
    return "the VM's NIC (" + format_rate_si(ctx.nic_bytes_per_s) + ")";
  if ((b.cpu_s - a.cpu_s) / dt >= 0.9 * ctx.cores) return "CPU";
  int best = -1;
  std::uint64_t best_ns = 0;
  for (int i = 0; i < static_cast<int>(Phase::kCount); ++i) {
    const std::uint64_t d = b.phase_ns[i] - a.phase_ns[i];
    if (d > best_ns) best_ns = d, best = i;
  }
  if (best < 0) return "";
  return phase_name(static_cast<Phase>(best));
}

std::string progress_line(const Sample& prev, const Sample& now, const Counters& c,
                          const LimitContext& ctx, int width) {
  const double total = static_cast<double>(c.bytes_listed.load());
  const bool listing = !c.listing_done.load();
  const double done = static_cast<double>(now.bytes_done);
  const double dt = now.t - prev.t;
  const double rate = dt > 0 ? static_cast<double>(now.bytes_done - prev.bytes_done) / dt : 0;
  const int bar = std::clamp(width - 100, 10, 40);
  const double frac = total > 0 ? std::min(1.0, done / total) : 0;
  const int filled = static_cast<int>(std::lround(frac * bar));
  std::string line = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                     std::string(static_cast<std::size_t>(bar - filled), '.') + "] ";
  line += format_bytes_si(done) + " / " + format_bytes_si(total) + (listing ? "+" : "") + "  " +
          std::to_string(now.files_done) + " / " + std::to_string(c.files_listed.load()) +
          (listing ? "+" : "") + " files  " + format_rate_si(rate);
  if (!listing && rate > 0 && total >= done)
    line +=
        "  ETA " + std::to_string(static_cast<long long>(std::ceil((total - done) / rate))) + "s";
  const std::string limit = limit_between(prev, now, ctx);
  if (!limit.empty()) line += "  limit: " + limit;
  return line;
}

ProgressPrinter::ProgressPrinter(const Counters& c, const LimitContext& ctx,
                                 std::chrono::steady_clock::time_point t0) {
  try {
    thread_ = std::thread([this, &c, ctx, t0] {
      try {
        Sample prev = take_sample(c, 0);
        std::unique_lock<std::mutex> lock(mu_);
        while (!stop_) {
          cv_.wait_for(lock, std::chrono::milliseconds(500));
          const double t =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          Sample now = take_sample(c, t);
          const std::string line = progress_line(prev, now, c, ctx, 140);
          std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
          std::fflush(stderr);
          prev = now;
        }
      } catch (const std::exception&) {
        // The progress line is a convenience: without it the copy goes on.
      }
      std::fputs("\n", stderr);
    });
  } catch (const std::system_error&) {
    // No progress line without a thread for it; the copy goes on.
  }
}

void ProgressPrinter::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace trainready::stage
