#include "cli/capture_sections.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/input_error.h"
#include "core/text.h"
#include "parsers/pasted_session.h"

namespace trainready {
namespace {

// A run of lines read as one kind (or none).
struct Block {
  CaptureKind kind = CaptureKind::kUnknown;
  int first = 0;  // first line of output (1-based)
  int last = 0;   // last line, inclusive
  int command_line = 0;
  std::string command;
  std::string excerpt;  // why it shows only part of the devices
  bool read = false;
  std::string note;
};

bool blank(std::string_view l) { return trim(l).empty(); }

// "...", "```", "=======", "---": nothing to read, nothing to report.
bool noise(const std::vector<std::string_view>& lines, const Block& b) {
  for (int i = b.first; i <= b.last; ++i) {
    std::string_view t = trim(lines[static_cast<std::size_t>(i - 1)]);
    if (t.empty() || t.rfind("```", 0) == 0) continue;
    for (char c : t)
      if (std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool filter_program(const std::string& p) {
  return p == "grep" || p == "egrep" || p == "fgrep" || p == "head" || p == "tail" || p == "awk" ||
         p == "sed" || p == "cut";
}

std::string join(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

// What a command line says about how much of the node its output shows.
std::string excerpt_of_command(CaptureKind kind, const std::string& command) {
  if (kind == CaptureKind::kKernelLog || kind == CaptureKind::kUnknown) return "";
  const auto stages = command_stages(command);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (capture_kind_of_command(join(stages[i])) != kind) continue;
    const auto& w = stages[i];
    for (std::size_t j = i + 1; j < stages.size(); ++j)
      if (filter_program(stages[j].front()))
        return "`" + command + "` shows the lines `" + join(stages[j]) + "` kept";
    std::vector<std::string> named;
    for (std::size_t a = 1; a < w.size(); ++a) {
      const std::string& arg = w[a];
      const bool value_option = arg == "-d" || arg == "-s" || arg == "--ib-dev" || arg == "-i";
      if (value_option && a + 1 < w.size()) {
        if (kind == CaptureKind::kLspci || arg != "-i") named.push_back(w[a + 1]);
        ++a;
      } else if (arg.rfind("--ib-dev=", 0) == 0) {
        named.push_back(arg.substr(9));
      } else if (!arg.empty() && arg.front() != '-' &&
                 (kind == CaptureKind::kIbstat || kind == CaptureKind::kIbstatus)) {
        named.push_back(arg);
      }
    }
    if (!named.empty()) return "`" + command + "` shows only " + join(named);
    return "";
  }
  return "";
}

// A shell's or a tool's complaint instead of output: "-bash: ofed_info: command not found",
// "dmesg: read kernel buffer failed: Operation not permitted", "ibpanic: ...".
bool complaint(std::string_view l) {
  l = trim(l);
  auto colon = l.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view who = l.substr(0, colon);
  if (who.find(' ') != std::string_view::npos) return false;
  if (who.front() == '-') who.remove_prefix(1);
  static constexpr std::string_view kWho[] = {"bash",   "sh",         "zsh",    "sudo",
                                              "dmesg",  "journalctl", "grep",   "ibpanic",
                                              "ibwarn", "lspci",      "ibstat", "ibv_devinfo"};
  return std::find(std::begin(kWho), std::end(kWho), who) != std::end(kWho);
}

// Whether a block holds any line of its kind's output (a command that failed printed none).
bool holds_its_kind(const std::vector<std::string_view>& lines, const Block& b) {
  const bool by_content = b.kind == CaptureKind::kIbstat || b.kind == CaptureKind::kIbstatus ||
                          b.kind == CaptureKind::kIbvDevinfo ||
                          b.kind == CaptureKind::kNvidiaSmiTopo || b.kind == CaptureKind::kLspci;
  for (int i = b.first; i <= b.last; ++i) {
    std::string_view l = lines[static_cast<std::size_t>(i - 1)];
    if (blank(l)) continue;
    if (capture_kind_starting_at(l) == b.kind || capture_kind_inside(l) == b.kind) return true;
    // Other kinds' parsers say what is wrong with what is there; a complaint is not output.
    if (!by_content && !complaint(l)) return true;
  }
  return false;
}

std::string first_words(std::string_view l) {
  l = trim(l);
  std::string s(l.substr(0, 80));
  if (l.size() > 80) s += "...";
  return s;
}

std::string first_output_line(const std::vector<std::string_view>& lines, const Block& b) {
  for (int i = b.first; i <= b.last; ++i)
    if (!blank(lines[static_cast<std::size_t>(i - 1)]))
      return first_words(lines[static_cast<std::size_t>(i - 1)]);
  return "";
}

// The section's lines as blocks of one kind. A section under a command the kind table knows is
// that kind (until a blank line and the start of another kind's output); otherwise the output
// says: a line that starts a kind opens a block of it, and lines before any such start are read
// by the kind their lines look like (an excerpt cut above its start) or not at all.
void blocks_of(const PastedSection& s, const std::vector<std::string_view>& lines,
               std::vector<Block>& out) {
  Block cur;
  cur.command_line = s.command_line;
  cur.command = s.command;
  cur.kind = s.command.empty() ? CaptureKind::kUnknown : capture_kind_of_command(s.command);
  cur.excerpt = excerpt_of_command(cur.kind, s.command);
  cur.first = s.first_line;
  cur.last = s.first_line - 1;
  bool by_command = cur.kind != CaptureKind::kUnknown;
  bool content = false;
  bool after_blank = false;
  for (int i = s.first_line; i <= s.last_line; ++i) {
    std::string_view l = lines[static_cast<std::size_t>(i - 1)];
    if (blank(l)) {
      after_blank = true;
      cur.last = i;
      continue;
    }
    const CaptureKind k = capture_kind_starting_at(l);
    if (k != CaptureKind::kUnknown && k != cur.kind) {
      if (!content) {
        // The first line of output says what it is, whatever the command.
        cur.kind = k;
        cur.excerpt = excerpt_of_command(k, cur.command);
      } else if (by_command && !after_blank) {
        // Inside a known command's output: stays its own.
      } else if (cur.kind == CaptureKind::kUnknown && cur.command.empty() && !after_blank) {
        // Lines just above a start belong to it (the tail of an lspci -vvv device, the ports
        // of an ibv_devinfo device cut above).
        cur.kind = k;
      } else {
        out.push_back(cur);
        cur = Block{};
        cur.kind = k;
        cur.first = i;
        by_command = false;
      }
    } else if (cur.kind == CaptureKind::kUnknown) {
      if (const CaptureKind in = capture_kind_inside(l); in != CaptureKind::kUnknown) cur.kind = in;
    }
    content = true;
    after_blank = false;
    cur.last = i;
  }
  out.push_back(cur);
}

// The lines of `blocks` at their own line numbers, every other line empty: the parser's line
// numbers are the file's.
std::string lines_of(const std::vector<std::string_view>& lines,
                     const std::vector<Block*>& blocks) {
  std::string t;
  int next = 1;
  for (const Block* b : blocks) {
    for (; next < b->first; ++next) t += '\n';
    for (int i = b->first; i <= b->last; ++i, ++next) {
      t += lines[static_cast<std::size_t>(i - 1)];
      t += '\n';
    }
  }
  return t;
}

// What the sections of one kind do not show, in a few words: a paste of thousands of
// `ibstat mlx5_N` sections says so once, with a count (and stays linear).
std::string joined_excerpts(const std::vector<Block*>& bs) {
  std::vector<const std::string*> distinct;
  std::size_t more = 0;
  for (const Block* b : bs) {
    if (b->excerpt.empty()) continue;
    bool seen = false;
    for (const std::string* d : distinct) seen = seen || *d == b->excerpt;
    if (seen) continue;
    if (distinct.size() < 3)
      distinct.push_back(&b->excerpt);
    else
      ++more;
  }
  std::string e;
  for (const std::string* d : distinct) e += (e.empty() ? "" : "; ") + *d;
  if (more > 0) e += "; and " + std::to_string(more) + " more sections like these";
  return e;
}

void read_group(NodeFacts& node, CaptureKind kind, std::vector<Block*>& bs,
                const std::vector<std::string_view>& lines, const std::string& source) {
  try {
    apply_kind(node, kind, lines_of(lines, bs), source, {source, bs.front()->first},
               joined_excerpts(bs));
    for (Block* b : bs) b->read = true;
    return;
  } catch (const InputError& e) {
    // One bad section should not cost the others: read them one by one (a bounded number, so
    // a paste of thousands of sections stays linear).
    if (bs.size() == 1 || bs.size() > 32) {
      for (Block* b : bs) b->note = e.what();
      return;
    }
  }
  for (Block* b : bs) {
    try {
      apply_kind(node, kind, lines_of(lines, {b}), source, {source, b->first}, b->excerpt);
      b->read = true;
    } catch (const InputError& e) {
      b->note = e.what();
    }
  }
}

}  // namespace

void read_capture_sections(NodeFacts& node, std::string_view text, const std::string& source) {
  const std::vector<std::string_view> lines = split_lines(text);
  // nvidia-bug-report.log is itself a concatenation of command outputs under its own headers
  // (parsers/nvidia_bug_report.h splits it); it is never cut as a paste.
  if (detect_capture_kind(text) == CaptureKind::kNvidiaBugReport) {
    apply_kind(node, CaptureKind::kNvidiaBugReport, text, source, {source, 0}, "");
    node.capture_sections.push_back({capture_kind_name(CaptureKind::kNvidiaBugReport),
                                     "",
                                     {source, 1},
                                     static_cast<int>(lines.size()),
                                     true,
                                     ""});
    return;
  }
  const std::vector<PastedSection> sections = split_pasted_session(text);
  // One capture as printed (no command lines, one kind throughout): read whole, as it always was.
  if (sections.size() == 1 && sections.front().command_line == 0) {
    const CaptureKind whole = detect_capture_kind(text);
    bool other = false;
    for (std::string_view l : lines) {
      const CaptureKind k = capture_kind_starting_at(l);
      if (k != CaptureKind::kUnknown && k != whole) {
        other = true;
        break;
      }
    }
    if (whole != CaptureKind::kUnknown && !other) {
      apply_kind(node, whole, text, source, {source, 0}, "");
      node.capture_sections.push_back(
          {capture_kind_name(whole), "", {source, 1}, static_cast<int>(lines.size()), true, ""});
      return;
    }
  }
  std::vector<Block> blocks;
  for (const PastedSection& s : sections) blocks_of(s, lines, blocks);
  // Kinds in the order they first appear; each kind's sections read together.
  std::vector<CaptureKind> order;
  for (Block& b : blocks) {
    if (b.kind == CaptureKind::kUnknown) continue;
    if (b.last < b.first) {
      b.note = "printed nothing";
      continue;
    }
    if (!holds_its_kind(lines, b)) {
      b.note =
          "no " + capture_kind_name(b.kind) + " output (\"" + first_output_line(lines, b) + "\")";
      continue;
    }
    if (std::find(order.begin(), order.end(), b.kind) == order.end()) order.push_back(b.kind);
  }
  for (CaptureKind k : order) {
    std::vector<Block*> group;
    for (Block& b : blocks)
      if (b.kind == k && b.note.empty()) group.push_back(&b);
    read_group(node, k, group, lines, source);
  }
  bool any = false;
  std::string first_error;
  for (const Block& b : blocks) {
    any = any || b.read;
    if (b.kind == CaptureKind::kUnknown && b.command.empty() && noise(lines, b)) continue;
    if (b.kind != CaptureKind::kUnknown && b.last < b.first) continue;  // a command, no output
    if (b.kind == CaptureKind::kUnknown && b.last < b.first) continue;
    CaptureSection cs;
    cs.kind = b.kind == CaptureKind::kUnknown ? "" : capture_kind_name(b.kind);
    cs.command = b.command;
    cs.where = {source, b.command_line != 0 ? b.command_line : b.first};
    cs.last_line = b.last;
    cs.read = b.read;
    cs.note =
        b.read ? b.excerpt : (b.kind == CaptureKind::kUnknown ? "not a kind doctor reads" : b.note);
    if (!b.read && b.kind != CaptureKind::kUnknown && first_error.empty()) first_error = b.note;
    node.capture_sections.push_back(std::move(cs));
  }
  if (any) return;
  int first = 1;
  std::string line;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (blank(lines[i])) continue;
    first = static_cast<int>(i) + 1;
    line = first_words(lines[i]);
    break;
  }
  std::string msg =
      "unrecognised capture: nothing in it is a capture doctor reads (first line: \"" + line +
      "\")";
  if (!first_error.empty()) msg += "; " + first_error;
  msg += ". It reads " + capture_kind_list() +
         " output, pasted with its prompt and command line or as printed (or say KIND=FILE)";
  throw InputError(source, first, msg);
}

}  // namespace trainready
