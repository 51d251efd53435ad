#include "parsers/nccl_unmarked.h"

#include <filesystem>
#include <map>
#include <set>

#include "core/line_reader.h"
#include "core/text.h"
#include "parsers/libfabric_log_line.h"
#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_diag_line.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_internal.h"
#include "parsers/ucx_log_line.h"

namespace trainready {

namespace {

struct Stop {};  // thrown by the sink past kUnmarkedLinesRead

// The line sink both readers share: one line of `source`, offered to the predicate.
class UnmarkedSink {
 public:
  UnmarkedSink(const NcclUnmarkedReader& read, NcclRunFacts& f, bool beside_read = false)
      : read_(read), f_(f) {
    for (std::size_t i = 0; i < f.warnings.size(); ++i) index_.emplace(f.warnings[i].message, i);
    if (beside_read)
      for (const NcclWarning& w : f.warnings) kept_.push_back(w.message);
    for (const LogLine& l : f.failure_info) info_.insert(l.text);
  }
  void operator()(const std::string& source, std::string_view raw, std::uint64_t n) {
    if (n > kUnmarkedLinesRead) throw Stop{};
    std::string_view t = trim(normalize_nccl_line(raw, norm_));
    if (t.size() < 8) return;
    for (const std::string& m : kept_)
      if (!m.empty() && t.find(m) != std::string_view::npos) return;  // read as a WARN already
    // libibverbs', libfabric's and UCX's own lines: the line reader kept them apart already
    // (NcclRunFacts::verbs_lines, library_warnings), where the knowledge base reads them.
    if (starts(t, "libibverbs: ") || find_libfabric_head(t) != std::string_view::npos ||
        read_ucx_log_line(t))
      return;
    // NCCL's own diagnostics lines (2.31+) and the RAS client's refusals: read as such already
    // (NcclRunFacts::diagnostics); their advice words are no WARN of NCCL's.
    if (find_nccl_diag(t) || is_ras_diag_refusal(t)) return;
    const std::optional<NcclUnmarkedText> r = read_(t);
    if (!r) return;
    const std::string msg = quote(r->text);  // as the line reader quotes a WARN
    ++f_.nccl_lines;
    if (r->info) {
      if (f_.failure_info.size() < kUnmarkedInfoKept && info_.insert(msg).second)
        f_.failure_info.emplace_back(msg, Provenance{source, static_cast<int>(n)});
      return;
    }
    ++f_.warning_lines;
    auto it = index_.find(msg);
    if (it == index_.end()) {
      if (f_.warnings.size() >= kSetCap) return;
      it = index_.emplace(msg, f_.warnings.size()).first;
      NcclWarning w;
      w.message = msg;
      w.first = LogLine{msg, Provenance{source, static_cast<int>(n)}};
      f_.warnings.push_back(std::move(w));
    }
    ++f_.warnings[it->second].count;
  }

 private:
  const NcclUnmarkedReader& read_;
  NcclRunFacts& f_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> kept_;  // messages the line reader kept (beside_read)
  std::set<std::string> info_;     // INFO lines kept
  std::string norm_;
};

// The words an error line holds, in any case.
constexpr std::string_view kErrorWords[] = {
    "error",  "fail",   "refused",   "abort",  "exception", "timed out",         "timeout",
    "cannot", "unable", "not found", "denied", "fatal",     "segmentation fault"};

std::string escaped(std::string_view t) {
  constexpr std::size_t kMax = 160;
  std::string out;
  for (unsigned char c : t.substr(0, kMax)) {
    if (c < 0x20 || c == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (t.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::optional<LogLine> first_error_like_line(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || fs::is_directory(p, ec)) continue;
    std::optional<LogLine> found;
    bool after_frame = false;
    try {
      read_log_lines(p, [&](std::string_view l, std::uint64_t n, bool) {
        if (n > kUnmarkedLinesRead) throw Stop{};
        const std::string_view t = trim(l);
        // A Python traceback's frame ('File "...errors/__init__.py", line 357, in wrapper') and
        // the source line it quotes under it ("raise ChildFailedError(") are where, not what.
        const bool quoted_source = after_frame;
        after_frame = t.starts_with("File \"");
        if (after_frame || quoted_source) return;
        for (std::string_view w : kErrorWords) {
          if (!icontains(t, w)) continue;
          found = LogLine{escaped(t), Provenance{p, static_cast<int>(n)}};
          throw Stop{};
        }
      });
    } catch (const Stop&) {
    } catch (const std::exception&) {
    }
    if (found) return found;
  }
  return std::nullopt;
}

namespace {

// nccl-tests' binaries (nccl-tests src/Makefile BIN_FILES_LIST, v2.0.0 .. v2.17.6).
constexpr std::string_view kNcclTestsBinaries[] = {
    "all_reduce_perf", "all_gather_perf", "broadcast_perf", "reduce_scatter_perf",
    "reduce_perf",     "alltoall_perf",   "scatter_perf",   "gather_perf",
    "sendrecv_perf",   "hypercube_perf"};

// A line that names NCCL, an nccl-tests binary, or starts with a net transport's tag as NCCL and
// its plugins print it ("NET/IB : ", "NET/Socket : ", "NET/OFI ", "NET/IBP:"; the analyser reads
// these as NCCL's text too). "vendor err" alone is not NCCL's: Open MPI and UCX print it as well.
bool names_nccl(std::string_view t) {
  if (icontains(t, "nccl") || t.substr(0, 4) == "NET/") return true;
  for (std::string_view b : kNcclTestsBinaries)
    if (t.find(b) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void read_nccl_mentions(const std::vector<std::string>& paths, NcclRunFacts& f) {
  namespace fs = std::filesystem;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || fs::is_directory(p, ec)) continue;
    try {
      read_log_lines(p, [&](std::string_view l, std::uint64_t n, bool) {
        if (n > kUnmarkedLinesRead) throw Stop{};
        const std::string_view t = trim(l);
        if (t.empty() || !names_nccl(t)) return;
        ++f.mention_lines;
        if (f.mentions.size() < kMentionsKept)
          f.mentions.push_back(LogLine{escaped(t), Provenance{p, static_cast<int>(n)}});
      });
    } catch (const Stop&) {
    } catch (const std::exception&) {
    }
  }
}

void read_unmarked_nccl_lines(const std::vector<std::string>& paths, const NcclUnmarkedReader& read,
                              NcclRunFacts& f, bool beside_read) {
  namespace fs = std::filesystem;
  UnmarkedSink sink(read, f, beside_read);
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || fs::is_directory(p, ec)) continue;
    try {
      read_log_lines(p, [&](std::string_view l, std::uint64_t n, bool) { sink(p, l, n); });
    } catch (const Stop&) {
    }
  }
}

void read_unmarked_nccl_text(std::string_view text, const std::string& name,
                             const NcclUnmarkedReader& read, NcclRunFacts& f) {
  UnmarkedSink sink(read, f);
  try {
    read_log_text(text, [&](std::string_view l, std::uint64_t n, bool) { sink(name, l, n); });
  } catch (const Stop&) {
  }
}

}  // namespace trainready
