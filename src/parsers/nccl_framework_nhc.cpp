#include "parsers/nccl_framework_nhc.h"

#include "catalog/node_reasons.h"

namespace trainready::framework_lines {

std::optional<std::string_view> health_check_failure(std::string_view t, const Bigrams& bg) {
  // distributed_nhc's line for a node that sent back no result ("{hostname} | ERROR: No results
  // reported", distributed_nhc/README.md @0e0a1ac): NHC never ran or never answered there.
  constexpr std::string_view kNoResult = "| ERROR: No results reported";
  if (const std::size_t q = find(bg, t, kNoResult); q != std::string_view::npos && q < 80)
    return kNhcNoResultCheck;
  constexpr std::string_view kFailed = "Health check failed:";
  const std::size_t p = find(bg, t, kFailed);
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view m = t.substr(p + kFailed.size());
  while (!m.empty() && (m.front() == ' ' || m.front() == '\t')) m.remove_prefix(1);
  std::size_t e = 0;
  while (e < m.size() && e < 64 &&
         ((m[e] >= 'a' && m[e] <= 'z') || (m[e] >= '0' && m[e] <= '9') || m[e] == '_'))
    ++e;
  if (e < m.size() && m[e] == ':' && m.substr(0, 6) == "check_") return m.substr(0, e);
  // Other programs print "Health check failed:" too (load balancers, service meshes): without a
  // check function, only NHC's own name before it ("ERROR:  nhc:", a drain reason's "NHC:").
  const std::string_view before = t.substr(0, p);
  if (before.find("nhc:") != std::string_view::npos || before.find("NHC") != std::string_view::npos)
    return std::string_view();
  return std::nullopt;
}

std::optional<std::string_view> topo_file_setting(std::string_view t, const Bigrams& bg) {
  constexpr std::string_view kKey = "NCCL_TOPO_FILE=";
  const std::size_t p = find(bg, t, kKey);
  if (p == std::string_view::npos) return std::nullopt;
  std::size_t e = p + kKey.size();
  if (e < t.size() && (t[e] == '"' || t[e] == '\'')) ++e;  // NCCL_TOPO_FILE="/path"
  const std::size_t value = e;
  while (e < t.size() && e - value < 256 && t[e] != ' ' && t[e] != '\t' && t[e] != '"' &&
         t[e] != '\'' && t[e] != ';')
    ++e;
  if (e == value) return std::nullopt;
  return t.substr(p, e - p);
}

}  // namespace trainready::framework_lines
