#include "parsers/nccl_unmarked.h"

#include <filesystem>
#include <map>

#include "core/line_reader.h"
#include "core/text.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_internal.h"

namespace trainready {

namespace {

struct Stop {};  // thrown by the sink past kUnmarkedLinesRead

// The line sink both readers share: one line of `source`, offered to the predicate.
class UnmarkedSink {
 public:
  UnmarkedSink(const std::function<bool(std::string_view)>& is_nccl_text, NcclRunFacts& f,
               bool beside_read = false)
      : is_nccl_text_(is_nccl_text), f_(f) {
    for (std::size_t i = 0; i < f.warnings.size(); ++i) index_.emplace(f.warnings[i].message, i);
    if (beside_read)
      for (const NcclWarning& w : f.warnings) read_.push_back(w.message);
  }
  void operator()(const std::string& source, std::string_view raw, std::uint64_t n) {
    if (n > kUnmarkedLinesRead) throw Stop{};
    std::string_view t = trim(normalize_nccl_line(raw, norm_));
    if (t.size() < 8) return;
    for (const std::string& m : read_)
      if (!m.empty() && t.find(m) != std::string_view::npos) return;  // read as a WARN already
    if (!is_nccl_text_(t)) return;
    const std::string msg = quote(t);  // as the line reader quotes a WARN
    ++f_.nccl_lines;
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
  const std::function<bool(std::string_view)>& is_nccl_text_;
  NcclRunFacts& f_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> read_;  // messages the line reader kept (beside_read)
  std::string norm_;
};

}  // namespace

void read_unmarked_nccl_lines(const std::vector<std::string>& paths,
                              const std::function<bool(std::string_view)>& is_nccl_text,
                              NcclRunFacts& f, bool beside_read) {
  namespace fs = std::filesystem;
  UnmarkedSink sink(is_nccl_text, f, beside_read);
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || fs::is_directory(p, ec)) continue;
    try {
      LineReader::read(p, [&](std::string_view l, std::uint64_t n, bool) { sink(p, l, n); });
    } catch (const Stop&) {
    }
  }
}

void read_unmarked_nccl_text(std::string_view text, const std::string& name,
                             const std::function<bool(std::string_view)>& is_nccl_text,
                             NcclRunFacts& f) {
  UnmarkedSink sink(is_nccl_text, f);
  try {
    LineReader::read_text(text,
                          [&](std::string_view l, std::uint64_t n, bool) { sink(name, l, n); });
  } catch (const Stop&) {
  }
}

}  // namespace trainready
