#include "parsers/scontrol_node.h"

#include <vector>

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"

namespace trainready {
namespace {

bool key_at(std::string_view line, std::size_t i, std::string_view key) {
  return line.substr(i, key.size()) == key && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t');
}

// The value of `key` (e.g. "State=") on `line` up to the next blank; npos when absent.
std::size_t find_key(std::string_view line, std::string_view key) {
  for (std::size_t i = line.find(key); i != std::string_view::npos; i = line.find(key, i + 1))
    if (key_at(line, i, key)) return i;
  return std::string_view::npos;
}

std::string word_after(std::string_view line, std::size_t at) {
  std::string_view rest = line.substr(at);
  const std::size_t end = rest.find_first_of(" \t");
  return std::string(rest.substr(0, end));
}

// slurmctld appends " [user@YYYY-MM-DDTHH:MM:SS]" to a reason when it shows it.
std::string_view strip_setter(std::string_view reason) {
  reason = trim(reason);
  if (reason.empty() || reason.back() != ']') return reason;
  const std::size_t open = reason.rfind(" [");
  if (open == std::string_view::npos) return reason;
  const std::string_view inner = reason.substr(open + 2, reason.size() - open - 3);
  if (inner.find('@') == std::string_view::npos) return reason;
  return trim(reason.substr(0, open));
}

}  // namespace

bool ScontrolNode::has_flag(std::string_view flag) const {
  std::size_t start = 0;
  while (start <= state.size()) {
    const std::size_t end = state.find('+', start);
    const std::string_view w = std::string_view(state).substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    // "DOWN*" (not responding) and "DRAIN$" style markers end in a symbol.
    std::string_view core = w;
    while (!core.empty() &&
           (core.back() == '*' || core.back() == '$' || core.back() == '#' || core.back() == '@' ||
            core.back() == '~' || core.back() == '!' || core.back() == '%'))
      core.remove_suffix(1);
    if (iequals(core, flag)) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

ScontrolNode parse_scontrol_node(std::string_view text, const std::string& source) {
  ScontrolNode node;
  int name_line = 0;
  int line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    // Reason runs to the end of its line and may hold anything, "State=" included: the other
    // keys are read only before it.
    const std::size_t reason_at = find_key(line, "Reason=");
    const std::string_view head = line.substr(0, reason_at);
    const std::size_t name_at = find_key(head, "NodeName=");
    if (name_at != std::string_view::npos) {
      if (name_line != 0) {
        throw InputError(source, line_no,
                         "expected the record of one node, found a second NodeName= (the first "
                         "on line " +
                             std::to_string(name_line) + ")");
      }
      name_line = line_no;
      node.name = word_after(head, name_at + 9);
    }
    const std::size_t state_at = find_key(head, "State=");
    if (state_at != std::string_view::npos && node.state.empty())
      node.state = word_after(head, state_at + 6);
    if (reason_at != std::string_view::npos && node.reason.empty())
      node.reason = std::string(strip_setter(line.substr(reason_at + 7)));
  }
  if (name_line == 0 || node.name.empty()) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected scontrol show node output starting 'NodeName=', got '" +
                         terminal_safe(clip_text(first, 80)) + "'");
  }
  if (node.state.empty())
    throw InputError(source, name_line, "expected a State= word in the node's record");
  return node;
}

}  // namespace trainready
