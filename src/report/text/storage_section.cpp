#include "report/text/storage_section.h"

#include "core/units.h"

namespace trainready {
namespace {

std::string us(double ns) { return format_number(ns / 1000, 4) + " us"; }

std::string residency_text(const Residency& r) {
  if (!r.known) return "unknown (" + r.why_unknown + ")";
  return format_number(r.fraction() * 100, 3) + "% of " +
         format_bytes_si(static_cast<double>(r.total_bytes)) + " (" + r.method + ")";
}

std::string files_line(const StorageRunInfo& info) {
  std::uint64_t total = 0;
  for (const DatasetFile& f : info.files) total += f.size;
  return std::to_string(info.files.size()) + " file(s), " +
         format_bytes_si(static_cast<double>(total)) + " under " + info.path;
}

}  // namespace

std::string render_raw_read_text(const StorageRunInfo& info, const RawReadOptions& o,
                                 const RawReadResult& r) {
  std::string out = "trainready bench storage: " + files_line(info) + "\n";
  if (!info.created.empty()) out += "  created: " + info.created + "\n";
  out += "  " + std::string(o.random ? "randread" : "read") + ", bs " +
         format_bytes_binary(o.block_size) + ", iodepth " + std::to_string(o.iodepth) + ", jobs " +
         std::to_string(o.jobs) + ", engine " + r.engine +
         (r.engine_fallback.empty() ? "" : " (" + r.engine_fallback + ")") + "\n";
  out += "  I/O: " + r.direct_note + "\n";
  out += "  page cache before: " + residency_text(r.before) +
         "; after: " + residency_text(r.after) +
         (r.evict_note.empty() ? "" : "; eviction: " + r.evict_note) + "\n";
  out += "  result [" + r.cache_state + "]: " + format_rate_si(r.bw_bytes) + ", " +
         format_number(r.iops, 4) + " IOPS, " + format_bytes_si(static_cast<double>(r.bytes)) +
         " in " + format_duration(r.seconds) + "\n";
  const auto pct = [&](const char* k) {
    auto it = r.clat.percentiles.find(k);
    return it == r.clat.percentiles.end() ? std::string("-") : us(static_cast<double>(it->second));
  };
  out += "  clat: min " + us(static_cast<double>(r.clat.min_ns)) + ", mean " + us(r.clat.mean_ns) +
         ", p50 " + pct("50.000000") + ", p99 " + pct("99.000000") + ", p99.9 " + pct("99.900000") +
         ", max " + us(static_cast<double>(r.clat.max_ns)) + "\n";
  out +=
      "  cpu: usr " + format_number(r.usr_cpu, 3) + "%, sys " + format_number(r.sys_cpu, 3) + "%\n";
  if (r.cache_state == "hot" || r.cache_state == "warm")
    out += "  note: part of the data came from the page cache, not the device\n";
  return out;
}

std::string feed_verdict(const FeedOptions& o, const FeedSearch& s) {
  const FeedProfile& p = o.profile;
  const std::string acc = p.accelerator.empty() ? "accelerator" : p.accelerator;
  const double per = demand_per_accelerator(p);
  const int k = s.largest_meeting;
  const std::string workload = p.workload.empty() ? p.name : p.workload;
  std::string v;
  if (k == 0) {
    v = "this path cannot keep one " + acc + " busy on " + workload + " at " +
        format_number(p.au_threshold * 100, 3) + "% AU: one needs " + format_rate_si(per);
  } else {
    v = "this path keeps " + std::to_string(k) + " " + acc + (k > 1 ? "s" : "") + " busy on " +
        workload + " (AU >= " + format_number(p.au_threshold * 100, 3) + "%); " +
        std::to_string(k + 1) + " need " + format_rate_si(per * (k + 1));
  }
  if (s.first_failing >= 0) {
    const FeedResult& f = s.trials[static_cast<std::size_t>(s.first_failing)];
    v += "; at " + std::to_string(f.accelerators) + " it delivered " +
         format_rate_si(f.delivered_bytes_per_s) + " (AU " + format_number(f.au * 100, 3) + "%)";
  } else if (k > 0) {
    v += " (the search stopped at --max-accelerators)";
  }
  return v;
}

std::string render_feed_text(const StorageRunInfo& info, const FeedOptions& o,
                             const FeedSearch& s) {
  const FeedProfile& p = o.profile;
  std::string out = "trainready bench storage --feed: " + files_line(info) + "\n";
  if (!info.created.empty()) out += "  created: " + info.created + "\n";
  out += "  profile " + p.name + ": " + std::to_string(p.batch) + " x " +
         format_bytes_si(p.record_bytes) + " per step, " + format_duration(p.compute_seconds) +
         " of compute, " + std::to_string(p.read_threads) + " read threads, prefetch " +
         std::to_string(o.prefetch) + ", " + std::to_string(o.steps) +
         " steps; pass at AU >= " + format_number(p.au_threshold * 100, 3) + "%" +
         (p.source.empty() ? "" : " (" + p.source + ")") + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %5s %7s %5s %12s %12s %10s %10s %10s  %s\n", "accel", "AU",
                "pass", "delivered", "demand", "wait p50", "wait p99", "samples/s", "cache");
  out += line;
  for (const FeedResult& t : s.trials) {
    auto w = [&](const char* k) {
      auto it = t.wait.percentiles.find(k);
      return it == t.wait.percentiles.end()
                 ? std::string("-")
                 : format_duration(static_cast<double>(it->second) / 1e9);
    };
    std::snprintf(
        line, sizeof line, "  %5d %6.1f%% %5s %12s %12s %10s %10s %10s  %s\n", t.accelerators,
        t.au * 100, t.meets ? "yes" : "no", format_rate_si(t.delivered_bytes_per_s).c_str(),
        format_rate_si(t.demand_bytes_per_s).c_str(), w("50.000000").c_str(),
        w("99.000000").c_str(), format_number(t.samples_per_s, 4).c_str(), t.cache_state.c_str());
    out += line;
  }
  if (!s.trials.empty()) out += "  reads: " + s.trials.front().read_mode + "\n";
  out += feed_verdict(o, s) + "\n";
  return out;
}

std::string render_storage_text(const StorageRun& run) {
  if (run.feed && run.feed_options) return render_feed_text(run.info, *run.feed_options, *run.feed);
  if (run.raw && run.raw_options) return render_raw_read_text(run.info, *run.raw_options, *run.raw);
  return "trainready bench storage: " + files_line(run.info) + "\n";
}

}  // namespace trainready
