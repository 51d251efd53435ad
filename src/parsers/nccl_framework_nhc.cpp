#include "parsers/nccl_framework_nhc.h"

#include <string>

#include "core/text.h"
#include "core/utf8.h"

namespace trainready::framework_lines {
namespace {

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

// distributed_nhc's "{hostname} | {health result}": a host name before the bar, nothing else.
std::string_view host_before_bar(std::string_view t, std::string_view* rest) {
  const std::size_t bar = t.find(" | ");
  if (bar == std::string_view::npos || bar == 0 || bar > 64) return {};
  const std::string_view h = t.substr(0, bar);
  for (char c : h)
    if (!host_char(c)) return {};
  // A logger's level column ("... | ERROR | ERROR:  nhc: ...") is no host.
  for (std::string_view level :
       {"ERROR", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "NOTICE", "CRITICAL", "FATAL"})
    if (h == level) return {};
  *rest = t.substr(bar + 3);
  return h;
}

// The number right after `key` ("expected >=431.0 GB/s"), read by core's parse_double.
std::optional<double> number_after(std::string_view t, std::string_view key) {
  const std::size_t p = t.find(key);
  if (p == std::string_view::npos) return std::nullopt;
  const std::string_view rest = t.substr(p + key.size());
  const auto v = parse_double(rest.substr(0, rest.find(' ')));
  if (!v || !(*v >= 0) || *v > 1e9) return std::nullopt;
  return v;
}

std::string_view function_name(std::string_view m) {
  std::size_t e = 0;
  while (e < m.size() && e < 64 &&
         ((m[e] >= 'a' && m[e] <= 'z') || (m[e] >= '0' && m[e] <= '9') || m[e] == '_'))
    ++e;
  return m.substr(0, 6) == "check_" ? m.substr(0, e) : std::string_view();
}

}  // namespace

std::optional<HealthCheckFailure> health_check_failure(std::string_view t, const Bigrams& bg) {
  constexpr std::string_view kFailed = "Health check failed:";
  constexpr std::string_view kNoResult = "ERROR: No results reported";
  const bool failed = bg.maybe(kFailed) && t.find(kFailed) != std::string_view::npos;
  const bool none = !failed && bg.maybe(kNoResult) && t.find(kNoResult) != std::string_view::npos;
  if (!failed && !none) return std::nullopt;
  HealthCheckFailure h;
  std::string_view rest = t;
  h.host = std::string(host_before_bar(t, &rest));
  if (none) {
    // Only the whole result: "{hostname} | ERROR: No results reported".
    if (h.host.empty() || trim(rest) != kNoResult) return std::nullopt;
    h.no_result = true;
    return h;
  }
  const std::size_t q = rest.find(kFailed);
  if (q == std::string_view::npos) return std::nullopt;
  const std::string_view before = trim(rest.substr(0, q));
  if (!icontains(before, "nhc") && before != "ERROR") return std::nullopt;
  std::string_view m = trim(rest.substr(q + kFailed.size()));
  if (m.substr(0, 3) == "-e ") m = trim(m.substr(3));  // AzNHC's `die 1 -e "..."`: $* keeps it
  // "$check_nccl_allreduce: No GPUs found" (azure_nccl_allreduce.nhc:14): an unset variable.
  while (!m.empty() && m.front() == ':') m = trim(m.substr(1));
  h.message = clip_text(m, 240);
  if (m.substr(0, 16) == "Script timed out") {
    // nhc:725: die 142 "Script timed out${CHECK:+ while executing \"$CHECK\"}."
    h.timed_out = true;
    const std::size_t o = m.find('"');
    if (o != std::string_view::npos) h.check = std::string(function_name(m.substr(o + 1)));
  } else {
    const std::string_view f = function_name(m);
    if (!f.empty() && f.size() < m.size() && m[f.size()] == ':') h.check = std::string(f);
  }
  // AzNHC's "FaultCode: NHC2010" (one check writes "faultCode", one "FauleCode").
  for (std::string_view key : {"aultCode: ", "auleCode: "}) {
    const std::size_t c = m.find(key);
    if (c == std::string_view::npos) continue;
    std::size_t e = c + key.size();
    while (e < m.size() && ((m[e] >= 'A' && m[e] <= 'Z') || (m[e] >= '0' && m[e] <= '9'))) ++e;
    h.fault_code = std::string(m.substr(c + key.size(), e - c - key.size()));
    break;
  }
  if (m.find("BUS BW") != std::string_view::npos) {
    h.expected_gbytes_per_s = number_after(m, "expected >=");
    h.measured_gbytes_per_s = number_after(m, "measured ");
  }
  return h;
}

std::optional<TopoFileSetting> topo_file_setting(std::string_view t, const Bigrams& bg) {
  constexpr std::string_view kKey = "NCCL_TOPO_FILE=";
  if (!bg.maybe(kKey)) return std::nullopt;
  std::size_t p = t.find(kKey);
  while (p != std::string_view::npos && p > 0 && t[p - 1] != ' ' && t[p - 1] != '\t')
    p = t.find(kKey, p + 1);
  if (p == std::string_view::npos) return std::nullopt;
  std::size_t e = p + kKey.size();
  TopoFileSetting s;
  if (e < t.size() && (t[e] == '"' || t[e] == '\'')) {
    const std::size_t close = t.find(t[e], e + 1);
    if (close == std::string_view::npos) return std::nullopt;
    s.value = std::string(t.substr(e + 1, close - e - 1));
  } else {
    const std::size_t value = e;
    while (e < t.size() && t[e] != ' ' && t[e] != '\t' && t[e] != ';' && t[e] != '"' &&
           t[e] != '\'')
      ++e;
    s.value = std::string(t.substr(value, e - value));
  }
  if (s.value.size() > 256) s.value = s.value.substr(0, 256);
  return s;
}

}  // namespace trainready::framework_lines
