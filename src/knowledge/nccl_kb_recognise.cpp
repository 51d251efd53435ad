#include "knowledge/nccl_kb_recognise.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include "core/text.h"
#include "knowledge/nccl_hip_names.h"
#include "knowledge/nccl_kb.h"

namespace trainready {

namespace {

// The top-level alternatives of a pattern. A '|' inside a group is replaced by '.': characters
// inside a group never count towards the required literal (nccl_kb_required_literal), so the
// literal of each alternative is the one every match through it contains.
std::vector<std::string> alternatives(std::string_view p) {
  std::vector<std::string> out(1);
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out.back() += c;
      out.back() += p[++i];
      continue;
    }
    if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|') {
      if (depth == 0) {
        out.emplace_back();
        continue;
      }
      out.back() += '.';
      continue;
    }
    out.back() += c;
  }
  // A pattern that is one group, "(a|b)": the alternatives inside it.
  if (out.size() == 1 && p.size() > 2 && p.front() == '(' && p.back() == ')') {
    int d = 0;
    bool cls = false;
    std::size_t close = 0;
    for (std::size_t i = 0; i < p.size() && !close; ++i) {
      if (p[i] == '\\') {
        ++i;
      } else if (cls) {
        cls = p[i] != ']';
      } else if (p[i] == '[') {
        cls = true;
      } else if (p[i] == '(') {
        ++d;
      } else if (p[i] == ')' && --d == 0) {
        close = i;
      }
    }
    if (close == p.size() - 1) {
      std::string_view inner = p.substr(1, p.size() - 2);
      if (inner.substr(0, 2) == "?:") inner.remove_prefix(2);
      return alternatives(inner);
    }
  }
  return out;
}

// The form the literal test compares: ASCII lower case, no space around ':', no trailing '.'
// (what a human retyping NCCL's "NET/IB : No device found." changes).
std::string loose(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool after_colon = false;
  for (char c : s) {
    if (c == ' ' && after_colon) continue;
    after_colon = c == ':';
    if (after_colon)
      while (!out.empty() && out.back() == ' ') out.pop_back();
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

// NCCL prints its subsystem tags as "NET/IB : ", "NET/Socket : ", "Bootstrap : " (some formats
// "NET/Plugin: "): the line with the first such tag spelt both ways, when it has one.
std::vector<std::string> tag_spellings(const std::string& t) {
  std::size_t p = std::string::npos;
  for (const char* tag : {"NET/", "Bootstrap", "TOPO/", "PROFILER/", "TUNER/"})
    p = std::min(p, t.find(tag));
  if (p == std::string::npos) return {t};
  std::size_t e = p;
  while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '/')) ++e;
  std::size_t c = e;
  while (c < t.size() && t[c] == ' ') ++c;
  if (c >= t.size() || t[c] != ':') return {t};
  std::size_t r = c + 1;
  while (r < t.size() && t[r] == ' ') ++r;
  const std::string head = t.substr(0, e), rest = t.substr(r);
  return {head + " : " + rest, head + ": " + rest};
}

// The spellings of `t` to try, as typed first: NCCL's tag spacing, a trailing '.', the case of
// the first letter.
std::vector<std::string> spellings(std::string_view t) {
  std::vector<std::string> out{std::string(t)};
  for (const std::string& s : tag_spellings(std::string(t)))
    if (s != out.front()) out.push_back(s);
  for (std::size_t i = 0, n = out.size(); i < n; ++i)
    if (out[i].back() != '.') out.push_back(out[i] + ".");
  for (std::size_t i = 0, n = out.size(); i < n; ++i) {
    std::string s = out[i];
    char& c = s[0];
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
    else if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
    else
      continue;
    out.push_back(std::move(s));
  }
  return out;
}

// The line names the stack a passthrough string comes from (CUDA, NCCL, verbs, a NET plugin).
bool names_the_stack(std::string_view t) {
  for (std::string_view w : {"cuda", "nccl", "libfabric"})
    if (icontains(t, w)) return true;
  for (std::string_view w : {"ibv_", "NET/", "rdma", "RDMA"})
    if (t.find(w) != std::string_view::npos) return true;
  return false;
}

}  // namespace

std::size_t NcclTextRecogniser::bigram(std::string_view s, std::size_t i) {
  return static_cast<std::size_t>(static_cast<unsigned char>(s[i])) << 8 |
         static_cast<unsigned char>(s[i + 1]);
}

NcclTextRecogniser::NcclTextRecogniser(const NcclKnowledgeBase& kb) {
  for (const NcclKbEntry& e : kb.entries()) {
    if (e.kind == NcclKbKind::kTrail) continue;
    const bool passthrough = e.kind == NcclKbKind::kPassthrough;
    for (const std::string& alt : alternatives(e.match.text)) {
      const std::string lit = nccl_kb_required_literal(alt);
      if (lit.size() < kRecogniseMinLiteral) continue;
      const std::string key = loose(lit);
      if (key.size() < 2) continue;
      by_bigram_[bigram(key, 0)].push_back(static_cast<std::uint32_t>(candidates_.size()));
      candidates_.push_back({&e, key, !passthrough || lit.size() >= kRecogniseAloneLiteral});
    }
  }
}

std::optional<NcclTextReading> NcclTextRecogniser::read(std::string_view line) const {
  if (auto got = read_spelled(line)) return got;
  // RCCL's line with a HIP name where NCCL's text has CUDA's ("hipDriverGetVersion failed with
  // 3"): recognised in NCCL's spelling, kept as printed (the entries read either spelling).
  const std::string cuda = nccl_cuda_spelling(trim(line));
  if (cuda.empty()) return std::nullopt;
  auto got = read_spelled(cuda);
  if (got) got->text = std::string(trim(line));
  return got;
}

std::optional<NcclTextReading> NcclTextRecogniser::read_spelled(std::string_view line) const {
  line = trim(line);
  if (line.size() < 8) return std::nullopt;
  const std::string key = loose(line);
  // The candidates whose literal the line holds, found by the literal's first two characters at
  // each position (one table look-up a position, not a search of the line per candidate), then
  // tried in knowledge-base order.
  std::vector<std::uint32_t> found;
  for (std::size_t i = 0; i + 1 < key.size(); ++i)
    for (std::uint32_t k : by_bigram_[bigram(key, i)])
      if (key.compare(i, candidates_[k].literal.size(), candidates_[k].literal) == 0)
        found.push_back(k);
  if (found.empty()) return std::nullopt;
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::optional<std::vector<std::string>> tries;  // made when a literal is first found
  std::optional<NcclTextReading> best;
  std::optional<bool> stack;
  for (std::uint32_t k : found) {
    const Candidate& c = candidates_[k];
    if (best && best->entry == c.entry) continue;
    if (!c.alone) {
      if (!stack) stack = names_the_stack(line);
      if (!*stack) continue;
    }
    if (!tries) tries = spellings(line);
    for (const std::string& s : *tries) {
      if (!std::regex_search(s, c.entry->match.re())) continue;
      const bool info = c.entry->level == NcclKbLevel::kInfo;
      if (!best) best = NcclTextReading{s, info, c.entry};
      if (!info) {
        if (best->info) best = NcclTextReading{s, false, c.entry};
        return best;  // a WARN (or either-level) entry reads it: no INFO entry can say less
      }
      break;
    }
  }
  return best;
}

bool nccl_kb_recognises(const NcclKnowledgeBase& kb, std::string_view text) {
  return NcclTextRecogniser(kb).read(text).has_value();
}

}  // namespace trainready
