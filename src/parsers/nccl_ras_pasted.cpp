#include "parsers/nccl_ras_pasted.h"

#include "core/input_error.h"
#include "core/line_reader.h"
#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_ras.h"

namespace trainready {
namespace {

// A text report is a few hundred lines even for a large job (one line per communicator group
// and per problem): stop well after that. The JSON report takes about 25 lines per rank
// (jsonWriteRankData), so it may run to a few hundred thousand.
constexpr std::uint64_t kMaxReportLines = 20000;
constexpr std::size_t kMaxReportBytes = std::size_t{4} << 20;
constexpr std::uint64_t kMaxJsonLines = std::uint64_t{1} << 20;
constexpr std::size_t kMaxJsonBytes = std::size_t{48} << 20;

// The JSON object the block opens with, up to its closing brace (the log goes on after it);
// empty when the block does not open with one or it never closes.
std::string_view json_object(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos || s[b] != '{') return {};
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = b; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > 64) return {};
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return s.substr(b, i - b + 1);
      if (depth < 0) return {};
    }
  }
  return {};
}

}  // namespace

std::vector<RasReport> read_pasted_ras(const std::vector<Provenance>& starts,
                                       const std::set<std::string>& skip) {
  std::vector<RasReport> out;
  for (const Provenance& at : starts) {
    if (at.line <= 0 || at.source == "-" || skip.count(at.source) > 0) continue;
    std::string block;
    std::string scratch;
    const auto first = static_cast<std::uint64_t>(at.line);
    bool json = false;
    bool closed = false;  // the JSON object's last line is in the block
    int depth = 0;
    read_log_lines(at.source, [&](std::string_view l, std::uint64_t n, bool) {
      if (n < first || closed) return;
      if (n == first) {
        const std::string_view t = normalize_nccl_line(l, scratch);
        const std::size_t b = t.find_first_not_of(" \t");
        json = b != std::string_view::npos && t[b] == '{';
      }
      const std::uint64_t max_lines = json ? kMaxJsonLines : kMaxReportLines;
      const std::size_t max_bytes = json ? kMaxJsonBytes : kMaxReportBytes;
      if (n >= first + max_lines || block.size() > max_bytes) return;
      const std::string_view t = normalize_nccl_line(l, scratch);
      block += t;
      block += '\n';
      if (json) {  // stop at the line that closes the object (strings hold no braces here)
        for (char c : t) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        closed = depth <= 0;
      }
    });
    try {
      std::string_view text = block;
      if (json) {
        text = json_object(block);
        if (text.empty()) continue;  // cut short, or not JSON after all
      }
      RasReport r = parse_ras_output(text, at.str());
      out.push_back(std::move(r));
    } catch (const InputError&) {
      // Not a whole report (a fragment, or a banner that only looked like RAS's): skipped.
    }
  }
  return out;
}

}  // namespace trainready
