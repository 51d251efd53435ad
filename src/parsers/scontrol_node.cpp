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
std::string_view strip_setter(std::string_view reason, std::string* user = nullptr,
                              std::string* time = nullptr) {
  reason = trim(reason);
  if (reason.empty() || reason.back() != ']') return reason;
  const std::size_t open = reason.rfind(" [");
  if (open == std::string_view::npos) return reason;
  const std::string_view inner = reason.substr(open + 2, reason.size() - open - 3);
  const std::size_t at = inner.find('@');
  if (at == std::string_view::npos) return reason;
  if (user != nullptr) *user = std::string(inner.substr(0, at));
  if (time != nullptr) *time = std::string(inner.substr(at + 1));
  return trim(reason.substr(0, open));
}

// Reads the keys of one line into `node` (the first value of each key wins).
void read_line(std::string_view line, ScontrolNode& node) {
  // Reason runs to the end of its line and may hold anything, "State=" included: the other
  // keys are read only before it.
  const std::size_t reason_at = find_key(line, "Reason=");
  const std::string_view head = line.substr(0, reason_at);
  const std::size_t state_at = find_key(head, "State=");
  if (state_at != std::string_view::npos && node.state.empty())
    node.state = word_after(head, state_at + 6);
  const std::size_t gres_at = find_key(head, "Gres=");
  if (gres_at != std::string_view::npos && node.gres.empty()) {
    node.gres = word_after(head, gres_at + 5);
    if (node.gres == "(null)") node.gres.clear();
  }
  const std::size_t tres_at = find_key(head, "CfgTRES=");
  if (tres_at != std::string_view::npos && node.cfg_tres.empty())
    node.cfg_tres = word_after(head, tres_at + 8);
  if (reason_at != std::string_view::npos && node.reason.empty())
    node.reason =
        std::string(strip_setter(line.substr(reason_at + 7), &node.reason_user, &node.reason_time));
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
    const std::string_view head = line.substr(0, find_key(line, "Reason="));
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
      node.line = line_no;
    }
    read_line(line, node);
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

SlurmFacts parse_scontrol_nodes(std::string_view text, const std::string& source) {
  SlurmFacts facts;
  facts.source_kind = "scontrol show node";
  std::vector<ScontrolNode> records;
  int line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    const std::string_view head = line.substr(0, find_key(line, "Reason="));
    const std::size_t name_at = find_key(head, "NodeName=");
    if (name_at != std::string_view::npos) {
      records.emplace_back();
      records.back().name = word_after(head, name_at + 9);
      records.back().line = line_no;
    }
    if (!records.empty()) read_line(line, records.back());
  }
  for (const ScontrolNode& r : records) {
    if (r.name.empty()) throw InputError(source, r.line, "expected a node name after NodeName=");
    if (r.state.empty())
      throw InputError(source, r.line,
                       "expected a State= word in the record of node " + terminal_safe(r.name));
    SlurmNodeRecord out;
    out.name = r.name;
    out.state = r.state;
    out.reason = r.reason;
    out.reason_user = r.reason_user;
    out.reason_time = r.reason_time;
    out.gres = r.gres;
    out.gres_gpus = gres_gpu_count(r.gres);
    out.cfg_gpus = tres_gpu_count(r.cfg_tres);
    out.where = {source, r.line};
    facts.nodes.push_back(std::move(out));
  }
  if (facts.nodes.empty()) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected scontrol show node output starting 'NodeName=', got '" +
                         terminal_safe(clip_text(first, 80)) + "'");
  }
  return facts;
}

bool looks_like_scontrol_node(std::string_view text) {
  for (std::string_view line : split_lines(text.substr(0, 4096))) {
    line = trim(line);
    if (line.empty()) continue;
    return line.rfind("NodeName=", 0) == 0 && line.size() > 9 && line[9] != ' ';
  }
  return false;
}

std::optional<int> gres_gpu_count(std::string_view gres) {
  // Items are comma separated, but "(S:0,2,4)" socket lists hold commas too.
  std::optional<int> total;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= gres.size(); ++i) {
    if (i < gres.size() && gres[i] == '(') ++depth;
    if (i < gres.size() && gres[i] == ')') depth = depth > 0 ? depth - 1 : 0;
    if (i < gres.size() && (gres[i] != ',' || depth > 0)) continue;
    std::string_view item = trim(gres.substr(start, i - start));
    start = i + 1;
    if (const std::size_t paren = item.find('('); paren != std::string_view::npos)
      item = item.substr(0, paren);
    if (item.rfind("gpu", 0) != 0 || (item.size() > 3 && item[3] != ':')) continue;
    const std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) continue;
    const auto n = parse_int(item.substr(colon + 1));
    if (!n || *n < 0 || *n > 1000000) continue;
    total = total.value_or(0) + static_cast<int>(*n);
  }
  return total;
}

std::optional<int> tres_gpu_count(std::string_view tres) {
  std::size_t start = 0;
  while (start <= tres.size()) {
    std::size_t comma = tres.find(',', start);
    if (comma == std::string_view::npos) comma = tres.size();
    const std::string_view item = tres.substr(start, comma - start);
    if (item.rfind("gres/gpu=", 0) == 0) {
      const auto n = parse_int(item.substr(9));
      if (n && *n >= 0 && *n <= 1000000) return static_cast<int>(*n);
    }
    start = comma + 1;
  }
  return std::nullopt;
}

}  // namespace trainready
