#include "report/text/stage_section.h"

#include <algorithm>

#include "core/text.h"
#include "core/units.h"

namespace trainready {
namespace {

std::string files(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " file" : " files"); }

std::string rate(double bytes, double s) { return s > 0 ? format_rate_si(bytes / s) : "-"; }

// Below this many bytes a CPU cost per GB is the fixed cost of a run (start, listing, journal)
// divided by almost nothing: 0.3 s for 8 bytes read as 327,750 s per GB (issue 29).
constexpr double kMinBytesPerGb = 100e6;

}  // namespace

std::string render_stage_text(const StageFacts& s) {
  std::string out;
  const auto line = [&](const std::string& k, const std::string& v) {
    out += "  " + k + std::string(k.size() < 12 ? 12 - k.size() : 1, ' ') + terminal_safe(v) + "\n";
  };
  if (s.mode == "verify") {
    out += "trainready stage --verify: " + terminal_safe(s.destination) + "\n";
    line("manifest", s.journal + " (source " + s.source + ")");
    line("verified", files(s.files_verified) + ", " +
                         format_bytes_si(static_cast<double>(s.bytes_verified)) + " of " +
                         files(s.files_listed) + " at " +
                         rate(static_cast<double>(s.bytes_verified), s.seconds));
    line("read", s.verify_read_mode);
    line("cpu", format_number(s.cpu_seconds, 3) + " s");
    return out;
  }
  if (s.mode == "hsm-restore") {
    out += "trainready stage --hsm-restore: " + terminal_safe(s.destination) + "\n";
    line("released", files(s.hsm_released) + " before, " + files(s.hsm_restored) + " restored in " +
                         std::to_string(s.hsm_batches) + " batch(es), " +
                         files(s.hsm_still_released.size()) + " still released");
    return out;
  }
  out +=
      "trainready stage: " + terminal_safe(s.source) + " -> " + terminal_safe(s.destination) +
      (s.replicate ? "  (rank " + std::to_string(s.rank) + " of " + std::to_string(s.ranks) +
                         (s.host.empty() ? "" : " on " + terminal_safe(s.host)) + ", --replicate)"
       : s.ranks > 1
           ? "  (rank " + std::to_string(s.rank) + " of " + std::to_string(s.ranks) + ", --shard)"
           : "") +
      "\n";
  line("listed",
       files(s.files_listed) + ", " + format_bytes_si(static_cast<double>(s.bytes_listed)));
  line("copied", files(s.files_copied) + ", " +
                     format_bytes_si(static_cast<double>(s.bytes_copied)) +
                     (s.replicate ? " written here" : " read from the source") + " in " +
                     format_number(s.seconds, 3) + " s (" +
                     rate(static_cast<double>(s.bytes_copied), s.seconds) + ")");
  // Bytes read for files that were not staged (changed, failed their MD5, a full DST) are not
  // copied bytes; said apart so the two counts never disagree.
  if (!s.replicate && s.bytes_read > s.bytes_copied)
    line("read", format_bytes_si(static_cast<double>(s.bytes_read)) + " from the source in all, " +
                     format_bytes_si(static_cast<double>(s.bytes_read - s.bytes_copied)) +
                     " of it for files not staged or not finished");
  if (s.replicate)
    line("fan-out", format_bytes_si(static_cast<double>(s.bytes_from_source)) +
                        " read from the source by this rank, " +
                        format_bytes_si(static_cast<double>(s.bytes_from_peers)) +
                        " received from other ranks and written, " +
                        format_bytes_si(static_cast<double>(s.bytes_received_unneeded)) +
                        " received but here already; " + std::to_string(s.rounds) +
                        " round(s) of MPI broadcasts");
  if (s.chunks_resumed)
    line("resumed", std::to_string(s.chunks_resumed) + " chunk(s), " +
                        format_bytes_si(static_cast<double>(s.bytes_resumed)) +
                        " written by an earlier run, re-hashed and kept");
  if (s.files_skipped)
    line("skipped", files(s.files_skipped) + ", " +
                        format_bytes_si(static_cast<double>(s.bytes_skipped)) +
                        " staged and unchanged already");
  if (s.files_md5_checked) line("md5", files(s.files_md5_checked) + " matched the source's MD5");
  if (!s.not_regular.empty())
    line("not copied", std::to_string(s.not_regular.size()) +
                           " not regular (links not followed, devices), e.g. " +
                           s.not_regular.front());
  const double bytes =
      static_cast<double>(std::max(s.bytes_read, s.bytes_copied) + s.bytes_resumed);
  line("cpu", format_number(s.cpu_seconds, 3) + " s" +
                  (bytes >= kMinBytesPerGb
                       ? " (" + format_number(s.cpu_seconds / (bytes / 1e9), 3) + " s per GB)"
                       : ""));
  line("writes", s.write_mode);
  if (!s.limit.empty()) {
    std::vector<std::pair<double, std::string>> by;
    double total = 0;
    for (const auto& [k, v] : s.time_by_stage) by.push_back({v, k}), total += v;
    std::sort(by.rbegin(), by.rend());
    std::string shares;
    for (std::size_t i = 0; i < by.size() && i < 3 && total > 0; ++i)
      shares += std::string(i ? ", " : "") + by[i].second + " " +
                format_number(100 * by[i].first / total, 2) + "%";
    line("limited by", s.limit + (shares.empty() ? ""
                                                 : (s.replicate ? " (the round loop waited on: "
                                                                : " (worker time: ") +
                                                       shares + ")"));
  }
  line("journal", s.journal);
  return out;
}

}  // namespace trainready
