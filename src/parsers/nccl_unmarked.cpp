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

}  // namespace

void read_unmarked_nccl_lines(const std::vector<std::string>& paths,
                              const std::function<bool(std::string_view)>& is_nccl_text,
                              NcclRunFacts& f) {
  namespace fs = std::filesystem;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < f.warnings.size(); ++i) index.emplace(f.warnings[i].message, i);
  std::string norm;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || fs::is_directory(p, ec)) continue;
    try {
      LineReader::read(p, [&](std::string_view raw, std::uint64_t n, bool) {
        if (n > kUnmarkedLinesRead) throw Stop{};
        std::string_view t = trim(normalize_nccl_line(raw, norm));
        if (t.size() < 8 || !is_nccl_text(t)) return;
        const std::string msg = quote(t);  // as the line reader quotes a WARN
        ++f.nccl_lines;
        ++f.warning_lines;
        auto it = index.find(msg);
        if (it == index.end()) {
          if (f.warnings.size() >= kSetCap) return;
          it = index.emplace(msg, f.warnings.size()).first;
          NcclWarning w;
          w.message = msg;
          w.first = LogLine{msg, Provenance{p, static_cast<int>(n)}};
          f.warnings.push_back(std::move(w));
        }
        ++f.warnings[it->second].count;
      });
    } catch (const Stop&) {
    }
  }
}

}  // namespace trainready
