#include "collect/scrub.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/text.h"

namespace trainready {
namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// Digest of the token, as hex of the same length: keeps the token's shape.
std::string hex_digest(std::string_view token, std::size_t len) {
  std::string d;
  std::string seed(token);
  while (d.size() < len) {
    seed = short_hash(seed + "trainready");
    d += seed;
  }
  return d.substr(0, len);
}

// Pattern of a GUID-like token at i: groups of hex digits separated by ':' or '-'.
std::size_t match_guid(std::string_view s, std::size_t i, std::string& replacement) {
  if (i > 0 && (word(s[i - 1]) || s[i - 1] == ':')) return 0;
  // 0x0002c90300048ca1
  if (s.substr(i, 2) == "0x" && i + 18 <= s.size()) {
    bool ok = true;
    for (std::size_t k = i + 2; k < i + 18; ++k) ok = ok && hex(s[k]);
    if (ok && (i + 18 == s.size() || !hex(s[i + 18]))) {
      replacement = "0x" + hex_digest(s.substr(i, 18), 16);
      return 18;
    }
  }
  // Groups: 0c42:a103:0065:d6b6 (4x4), UUID 8-4-4-4-12, with optional GPU-/MIG- prefix.
  std::size_t start = i;
  std::string prefix;
  for (std::string_view p : {"GPU-", "MIG-"}) {
    if (s.substr(i, 4) == p) {
      prefix = std::string(p);
      start = i + 4;
    }
  }
  std::vector<std::size_t> groups;
  std::size_t k = start;
  char sep = 0;
  while (k < s.size()) {
    std::size_t g = k;
    while (g < s.size() && hex(s[g])) ++g;
    if (g == k) break;
    groups.push_back(g - k);
    k = g;
    if (k < s.size() && (s[k] == ':' || s[k] == '-') && (sep == 0 || s[k] == sep) &&
        k + 1 < s.size() && hex(s[k + 1])) {
      sep = s[k];
      ++k;
      continue;
    }
    break;
  }
  if (k < s.size() && word(s[k])) return 0;
  const bool four_by_four = sep == ':' && groups == std::vector<std::size_t>{4, 4, 4, 4};
  const bool uuid = sep == '-' && groups == std::vector<std::size_t>{8, 4, 4, 4, 12};
  if (!four_by_four && !uuid) return 0;
  std::string_view tok = s.substr(i, k - i);
  std::string digest = hex_digest(tok, 32);
  std::string out = prefix;
  std::size_t d = 0;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    if (gi) out += sep;
    out += digest.substr(d, groups[gi]);
    d += groups[gi];
  }
  replacement = out;
  return k - i;
}

}  // namespace

void Scrubber::add_literal(const std::string& value, std::string_view kind) {
  std::string v(trim(value));
  if (v.size() < 3 || literals_.count(v)) return;
  literals_[v] = std::string(kind) + "-" + short_hash(v);
}

std::string Scrubber::apply(std::string_view text) const {
  std::string s(text);
  // Longest first, so "node-1.example" is replaced before "node-1".
  std::vector<std::pair<std::string, std::string>> lits(literals_.begin(), literals_.end());
  std::sort(lits.begin(), lits.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [from, to] : lits) {
    std::size_t pos = 0;
    while ((pos = s.find(from, pos)) != std::string::npos) {
      s.replace(pos, from.size(), to);
      pos += to.size();
    }
  }
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::string rep;
    if (std::size_t n = match_guid(s, i, rep); n > 0) {
      out += rep;
      i += n;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace trainready
