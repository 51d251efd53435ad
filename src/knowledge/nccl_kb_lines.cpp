// The kept lines of a NCCL log as the knowledge base reads them (nccl_kb_lines), and the text of a
// record those readings take apart (nccl_kb_line_text.h).
#include "knowledge/nccl_hip_names.h"
#include "knowledge/nccl_kb_line_text.h"
#include "knowledge/nccl_kb_read.h"

#include <cctype>

#include <set>

namespace trainready {
namespace nccl_kb_text {

// "misc/socket.cc:567 -> 2", "-> 2 [Async thread]", 2.30.7's "misc/socket.cc:567 (socketProgress)
// -> 2" (INFO_LOC): a result trail (src/include/checks.h).
bool trail_shaped(std::string_view m) {
  std::size_t arrow = m.find("-> ");
  if (arrow == std::string_view::npos || arrow + 3 >= m.size()) return false;
  if (m[arrow + 3] < '1' || m[arrow + 3] > '9') return false;
  if (arrow == 0) return true;
  std::string_view head = m.substr(0, arrow);  // "misc/socket.cc:567 "
  if (head.back() != ' ') return false;
  head.remove_suffix(1);
  if (head.back() == ')') {  // " (function)"
    const std::size_t open = head.rfind(" (");
    if (open == std::string_view::npos) return false;
    for (char c : head.substr(open + 2, head.size() - open - 3))
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    head = head.substr(0, open);
  }
  std::size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == head.size()) return false;
  if (head.find(' ') != std::string_view::npos) return false;
  for (char c : head.substr(colon + 1))
    if (c < '0' || c > '9') return false;
  return true;
}

// The message of a record's text: what follows "NCCL <LEVEL> ".
std::string_view after_level(std::string_view text, std::string_view level) {
  std::size_t p = text.find(level);
  return p == std::string_view::npos ? text : text.substr(p + level.size());
}

// Where the WARN tag of a line starts: " NCCL WARN" after NCCL's prefix, "NCCL WARN" at the start
// of a line pasted without it, or (NCCL before 2.4, no "NCCL" tag) " WARN " after a "file.cu:123"
// (src/include/debug.h of those releases). npos when the line is not one of NCCL's WARNs.
std::size_t warn_tag(std::string_view text) {
  if (text.substr(0, 10) == "NCCL WARN ") return 0;
  std::size_t p = text.find(" NCCL WARN");
  if (p != std::string_view::npos) return p;
  p = text.find(" WARN ");
  if (p == std::string_view::npos || p == 0) return std::string_view::npos;
  std::size_t sp = text.rfind(' ', p - 1);
  std::string_view file = text.substr(sp == std::string_view::npos ? 0 : sp + 1,
                                      p - (sp == std::string_view::npos ? 0 : sp + 1));
  std::size_t colon = file.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == file.size() ||
      file.find('.') == std::string_view::npos)
    return std::string_view::npos;
  for (char c : file.substr(colon + 1))
    if (c < '0' || c > '9') return std::string_view::npos;
  return p;
}

// The "file.cc:123" NCCL prints before its WARN tag (2.30.7+: "file.cc:123 (func)").
// A net plugin's "function:line" where NCCL prints "file:line": aws-ofi-nccl's NCCL_OFI_WARN
// passes __PRETTY_FUNCTION__ and __LINE__ to NCCL's logger (include/nccl_ofi_log.h:15-17 @
// v1.7.2-aws): "configure_sendrecv_inorder:213", "int rdma_process_completions():1312" (the
// last word of it). An identifier, its empty or closed argument list, a colon and digits.
static bool plugin_function(std::string_view f) {
  std::size_t i = 0;
  auto ident = [](char c, bool first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
  };
  while (i < f.size() && ident(f[i], i == 0)) ++i;
  if (i == 0) return false;
  if (i < f.size() && f[i] == '(') {
    const std::size_t close = f.find(')', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
  }
  if (i + 1 >= f.size() || f[i] != ':') return false;
  for (++i; i < f.size(); ++i)
    if (f[i] < '0' || f[i] > '9') return false;
  return true;
}

std::string warn_file(std::string_view text) {
  std::size_t p = warn_tag(text);
  if (p == std::string_view::npos || p == 0) return "";
  std::string_view head = text.substr(0, p);
  if (!head.empty() && head.back() == ')') {
    std::size_t open = head.rfind(" (");
    if (open != std::string_view::npos) head = head.substr(0, open);
  }
  std::size_t sp = head.rfind(' ');
  std::string_view file = sp == std::string_view::npos ? head : head.substr(sp + 1);
  if (file.find(':') == std::string_view::npos) return "";
  if (file.find('.') != std::string_view::npos || plugin_function(file)) return std::string(file);
  return "";
}

// NCCL's "host:pid:tid" prefix of a line, "" when it has none.
std::string thread_of(std::string_view text) {
  std::size_t sp = text.find(' ');
  std::string_view head = text.substr(0, sp);
  std::size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0 || c2 + 1 == head.size()) return "";
  std::size_t c1 = head.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) return "";
  for (std::size_t i = c1 + 1; i < head.size(); ++i)
    if (i != c2 && (head[i] < '0' || head[i] > '9')) return "";
  return std::string(head);
}

}  // namespace nccl_kb_text

using nccl_kb_text::after_level;
using nccl_kb_text::trail_shaped;
using nccl_kb_text::warn_file;
using nccl_kb_text::warn_tag;

std::vector<NcclKbLine> nccl_kb_lines(const NcclRunFacts& f) {
  std::vector<NcclKbLine> out;
  std::set<std::string> seen;
  for (const NcclWarning& w : f.warnings) {
    NcclKbLine l;
    const bool nccl = warn_tag(w.first.text) != std::string::npos;
    l.level = nccl ? NcclKbLevel::kWarn : NcclKbLevel::kAny;
    l.message = w.message;
    l.file = nccl ? warn_file(w.first.text) : "";
    l.line = w.first;
    l.count = w.count;
    l.hosts = w.hosts;
    out.push_back(std::move(l));
  }
  auto info = [&](const LogLine& src, std::string_view message) {
    if (!seen.insert(std::string(message)).second) return;
    NcclKbLine l;
    l.level = NcclKbLevel::kInfo;
    l.message = std::string(message);
    l.trail = trail_shaped(message);
    if (l.trail && message.substr(0, 3) != "-> ") l.file = l.message.substr(0, l.message.find(' '));
    l.line = src;
    out.push_back(std::move(l));
  };
  if (f.first_error_return)
    info(*f.first_error_return, after_level(f.first_error_return->text, "NCCL INFO "));
  auto any_level = [&](const LogLine& l) {  // text not NCCL's own: read at any level
    NcclKbLine x;
    x.level = NcclKbLevel::kAny;
    x.message = l.text;
    x.line = l;
    out.push_back(std::move(x));
  };
  for (const LogLine& l : f.failure_info) info(l, l.text);
  for (const LogLine& l : f.verbs_lines)  // libibverbs' own warnings
    if (seen.insert(l.text).second) any_level(l);
  for (const auto& w : f.library_warnings)  // libfabric's and UCX's own, read by their text
    if (seen.insert(w.message).second) {
      NcclKbLine x;
      x.level = NcclKbLevel::kAny;
      x.message = w.message;
      x.line = w.line;
      x.library = w.library;
      out.push_back(std::move(x));
    }
  for (const LogLine& l : f.unrecognised) info(l, l.text);
  // The lines the analyser kept as a CUDA, internal or system error: a framework's or
  // nccl-tests' report of NCCL's result ("NCCL error in: ..., unhandled cuda error"), often the
  // only line of a pasted excerpt, sometimes quoting NCCL's message in prose.
  std::set<std::string> warned;
  for (const NcclWarning& w : f.warnings) warned.insert(w.first.text);
  for (const auto& [k, i] : f.issues) {
    if (k != NcclProblem::kCudaError && k != NcclProblem::kInternalError &&
        k != NcclProblem::kSystemError)
      continue;
    for (const LogLine& l : i.examples) {
      // NCCL's own WARNs are read once each, from the warnings list above.
      if (warned.count(l.text) || warn_tag(l.text) != std::string::npos ||
          !seen.insert(l.text).second)
        continue;
      any_level(l);
    }
  }
  for (NcclKbLine& l : out) l.spelled = nccl_cuda_spelling(l.message);
  return out;
}

}  // namespace trainready
