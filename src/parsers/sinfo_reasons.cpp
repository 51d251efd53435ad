#include "parsers/sinfo_reasons.h"

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/slurm_hostlist.h"

namespace trainready {
namespace {

bool is_header(std::string_view line) {
  line = trim(line);
  return line.rfind("REASON", 0) == 0 && line.find("NODELIST") != std::string_view::npos;
}

// "2024-01-25T15:12:23": sinfo's %H.
bool slurm_time(std::string_view w) {
  if (w.size() != 19 || w[4] != '-' || w[7] != '-' || w[10] != 'T' || w[13] != ':' || w[16] != ':')
    return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (w[i] < '0' || w[i] > '9') return false;
  return true;
}

// A row pasted without its header: "Kill task failed root 2024-01-25T15:12:23 ip-10-0-1-23".
bool is_row(std::string_view line) {
  const auto words = split_ws(trim(line));
  return words.size() >= 4 && slurm_time(words[words.size() - 2]);
}

}  // namespace

bool looks_like_sinfo_reasons(std::string_view text) {
  for (std::string_view line : split_lines(text.substr(0, 4096))) {
    if (trim(line).empty()) continue;
    return is_header(line) || is_row(line);
  }
  return false;
}

SlurmFacts parse_sinfo_reasons(std::string_view text, const std::string& source) {
  SlurmFacts facts;
  facts.source_kind = "sinfo -R";
  std::size_t reason_width = 0;  // REASON column width from the header (20 by default)
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (reason_width == 0 && !is_header(line) && is_row(line))
      reason_width = 20;  // no header: the default format's width
    if (reason_width == 0) {
      if (!is_header(line)) {
        throw InputError(source, line_no,
                         "expected sinfo -R output starting with the header 'REASON USER "
                         "TIMESTAMP NODELIST', got '" +
                             terminal_safe(clip_text(line, 80)) + "'");
      }
      const std::size_t user_at = raw.find("USER");
      reason_width = user_at == std::string_view::npos || user_at == 0 ? 20 : user_at - 1;
      continue;
    }
    // From the right: NODELIST, TIMESTAMP, USER; the reason (which may hold blanks) is the rest.
    const std::vector<std::string_view> words = split_ws(line);
    if (words.size() < 4) {
      throw InputError(source, line_no,
                       "expected a row 'REASON USER TIMESTAMP NODELIST', got '" +
                           terminal_safe(clip_text(line, 80)) + "'");
    }
    const std::string_view nodelist = words[words.size() - 1];
    const std::string_view when = words[words.size() - 2];
    const std::string_view user = words[words.size() - 3];
    const std::size_t user_at = line.rfind(user, line.size() - nodelist.size() - when.size());
    std::string reason(trim(line.substr(0, user_at)));
    bool truncated = reason.size() >= reason_width;
    if (!reason.empty() && reason.back() == '+') {  // newer sinfo marks a cut value with '+'
      reason.pop_back();
      truncated = true;
    }
    for (std::string& name : expand_hostlist(nodelist, source, line_no)) {
      SlurmNodeRecord r;
      r.name = std::move(name);
      r.reason = reason;
      r.reason_user = user == "(null)" ? "" : std::string(user);
      r.reason_time = when == "Unknown" ? "" : std::string(when);
      r.reason_truncated = truncated;
      r.where = {source, line_no};
      facts.nodes.push_back(std::move(r));
    }
  }
  if (reason_width == 0) throw InputError(source, 1, "expected sinfo -R output, got an empty file");
  return facts;
}

}  // namespace trainready
