#include "parsers/log_hard_wrap.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_record.h"
#include "parsers/nccl_warn_join.h"

namespace trainready {

std::size_t terminal_columns(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t cols = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b && i + 1 < line.size() && line[i + 1] == '[') {
      // CSI: parameters and intermediates, then one final byte 0x40-0x7e (ECMA-48 5.4).
      i += 2;
      while (i < line.size() && (static_cast<unsigned char>(line[i]) < 0x40 ||
                                 static_cast<unsigned char>(line[i]) > 0x7e))
        ++i;
      continue;
    }
    if (c == '\t') {
      cols = (cols / 8 + 1) * 8;
    } else if ((c & 0xc0) != 0x80) {  // not a UTF-8 continuation byte
      ++cols;
    }
  }
  return cols;
}

bool starts_record(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return true;  // blank
  // A quote ("> ") starts a record only when what it quotes does: a piece may begin with the
  // rest of an arrow ("0[0] -" / "> 1[1] via P2P") or of an address ("10.0.0.5<53218" / ">").
  if (line.size() > 2 && line[0] == '>' && line[1] == ' ') return starts_record(line.substr(2));
  if (is_docker_json_log(line) || line_prefix_length(line) > 0) return true;
  NcclRecord rec;
  if (split_tagged_records(line, &rec, 1) == 1 && rec.text.data() == line.data()) return true;
  // Any other head NCCL prints before its tag: "host:pid NCCL DIAG" (2.31+ diagnostics), a head
  // whose tid was masked ("host:pid:xxx [0] NCCL INFO"): one word with a colon, a device maybe.
  const std::size_t tag = find_nccl_tag(line, 0);
  if (tag == std::string_view::npos || tag == 0 || tag > 128) return false;
  std::string_view head = line.substr(0, tag);
  if (head.back() == ']') {  // " [0]"
    const std::size_t open = head.rfind(" [");
    if (open == std::string_view::npos) return false;
    head = head.substr(0, open);
  }
  return head.find_first_of(" \t") == std::string_view::npos &&
         head.find(':') != std::string_view::npos;
}

bool starts_own_line(std::string_view line) {
  if (starts_record(line)) return true;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t lead = 0;
  while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
  const char c = line[lead];
  if (c == '#' || c == '|' || c == '+') return true;
  // An indented line may be a piece of a table's row or of an indented message; unindented, a
  // line another program starts ("Traceback", "RuntimeError: ...", "E1202 ...").
  return lead == 0 && starts_like_own_output(line);
}

namespace {

bool ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
bool ascii_letter(char c) { return ascii_lower(c) || (c >= 'A' && c <= 'Z'); }

// A cut inside " NCCL <LEVEL> ", the tag of NCCL's record head: joined (as cut, or with the
// blank at the cut that the copy dropped put back), the two lines hold a tag across the cut that
// neither holds alone, and the joined line starts a record. How they join, or kNo.
SingleCut head_cut(std::string_view line, std::string_view next) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  if (line.empty() || next.empty()) return SingleCut::kNo;
  // The piece before the cut holds a record head's device bracket ("[0]") and no tag with a
  // message after it: most pairs of a sample are ruled out here, without a copy.
  if (line.find(']') == std::string_view::npos) return SingleCut::kNo;
  if (const std::size_t tag = find_nccl_tag(line, 0);
      tag != std::string_view::npos && line.size() - tag > 12)
    return SingleCut::kNo;
  for (SingleCut how : {SingleCut::kTight, SingleCut::kBlank}) {
    std::string joined(line);
    if (how == SingleCut::kBlank) joined += ' ';
    const std::size_t seam = joined.size();  // where `next` starts
    joined.append(next.data(), next.size());
    // The first tag must cross the seam: start in `line` (or at its end) and end in `next`
    // (for a blank put back, the blank may be the tag's last byte: "... NCCL WARN" / "NET/...").
    const std::size_t at = find_nccl_tag(joined, 0);
    if (at == std::string_view::npos || at > line.size()) continue;
    bool level = false;
    for (std::string_view lv : {"WARN ", "INFO ", "TRACE ", "ABORT "}) {
      const std::size_t end = at + 6 + lv.size();  // " NCCL " and the level with its blank
      if (std::string_view(joined).substr(at + 6, lv.size()) == lv &&
          (end > seam || (how == SingleCut::kBlank && end == seam)))
        level = true;
    }
    if (level && starts_record(joined)) return how;
  }
  return SingleCut::kNo;
}

}  // namespace

SingleCut single_cut(std::string_view line, std::size_t cols, std::string_view next) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!next.empty() && next.back() == '\r') next.remove_suffix(1);
  if (cols < 40 || cols > 1000 || next.empty()) return SingleCut::kNo;
  if (const SingleCut h = head_cut(line, next); h != SingleCut::kNo) return h;
  // (A word cut inside may leave a piece that starts like "word:": "ncclIn" / "validUsage: ...".)
  if (cols >= 70 && ascii_letter(line.back()) && ascii_lower(next[0]) &&
      terminal_columns(next) <= cols && cut_inside_word(line, next) && !starts_record(next) &&
      !starts_with_output_mark(next))
    return SingleCut::kTight;
  return SingleCut::kNo;
}

std::size_t hard_wrap_width(const std::vector<std::string>& lines,
                            const std::vector<std::size_t>& columns) {
  if (columns.empty()) return 0;
  const std::size_t widest = *std::max_element(columns.begin(), columns.end());
  // Narrower than any terminal people read logs in, or wider than any screen.
  if (widest < 60 || widest > 1000) return 0;
  // A piece is counted once per distinct text: the same line printed again (one WARN a rank
  // repeats, with its timestamp) at the widest length is one observation, not two cuts.
  std::set<std::string_view> pieces;
  std::size_t records = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    // One column short, the next not indented: a cut at a blank the copy dropped.
    if (columns[i] + 1 == widest && columns[i + 1] < widest && lines[i + 1][0] != ' ' &&
        lines[i + 1][0] != '\t' && !starts_own_line(lines[i + 1])) {
      pieces.insert(lines[i]);
      continue;
    }
    if (columns[i] != widest) continue;
    // As wide again: the next row of a fixed-width table (rows alike), or the middle piece of a
    // long line (a record's head, then a piece with none).
    if (columns[i + 1] >= widest) {
      if (starts_own_line(lines[i]) && !starts_own_line(lines[i + 1])) pieces.insert(lines[i]);
      continue;
    }
    if (starts_own_line(lines[i + 1])) {
      if (terminal_columns(lines[i + 1]) > 0) ++records;
    } else {
      pieces.insert(lines[i]);
    }
  }
  return pieces.size() >= 2 && pieces.size() >= records ? widest : 0;
}

void read_log_lines(const std::string& path, const LineReader::Sink& sink) {
  HardWrapJoiner wrap;
  LineReader::read(
      path, [&](std::string_view l, std::uint64_t n, bool cut) { wrap.line(l, n, cut, sink); });
  wrap.end(sink);
}

void read_log_text(std::string_view text, const LineReader::Sink& sink) {
  HardWrapJoiner wrap;
  LineReader::read_text(
      text, [&](std::string_view l, std::uint64_t n, bool cut) { wrap.line(l, n, cut, sink); });
  wrap.end(sink);
}

}  // namespace trainready
