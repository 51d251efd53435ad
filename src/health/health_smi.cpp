#include "health/health_smi.h"

#include <charconv>

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "facts/health_facts.h"
#include "parsers/nvidia_smi_query.h"

namespace trainready {
namespace {

std::optional<std::uint64_t> number_of(std::string_view v) {
  // "639 bank(s)" and "0": the leading digits.
  std::size_t n = 0;
  while (n < v.size() && v[n] >= '0' && v[n] <= '9') ++n;
  if (n == 0 || (n < v.size() && v[n] != ' ')) return std::nullopt;
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + n, out);
  if (ec != std::errc() || end != v.data() + n) return std::nullopt;
  return out;
}

void add(GpuCounterSample& g, const std::string& name, std::uint64_t v) { g.counters[name] += v; }

// One "key : value" of a GPU block under the sections `path`.
void apply(GpuCounterSample& g, std::uint64_t& clocks, bool& clocks_seen,
           const std::vector<std::string>& path, std::string_view key, std::string_view value) {
  if (path.empty()) return;
  const std::string& top = path.front();
  if (top == "Clocks Event Reasons" || top == "Clocks Throttle Reasons" ||
      top == "Clocks Throttle Reason") {
    for (const ThrottleReason& r : kThrottleReasons) {
      if (key != r.label) continue;
      if (value == "Active") clocks |= r.bit;
      if (value == "Active" || value == "Not Active") clocks_seen = true;
    }
    return;
  }
  const std::optional<std::uint64_t> n = number_of(value);
  if (!n) return;
  if (top == "ECC Errors" && path.size() == 2 &&
      (path[1] == "Volatile" || path[1] == "Aggregate")) {
    const std::string scope = path[1] == "Volatile" ? "volatile" : "aggregate";
    // "SRAM Uncorrectable" (drivers 510-525) or "SRAM Uncorrectable Parity" + "... SEC-DED"
    // (later): their sum.
    if (key.rfind("SRAM Uncorrectable", 0) == 0) add(g, "ecc_sram_uncorrectable_" + scope, *n);
    if (key == "SRAM Correctable") add(g, "ecc_sram_correctable_" + scope, *n);
    if (key == "DRAM Uncorrectable") add(g, "ecc_dram_uncorrectable_" + scope, *n);
    if (key == "DRAM Correctable") add(g, "ecc_dram_correctable_" + scope, *n);
    return;
  }
  if (top == "Remapped Rows") {
    if (path.size() == 1 && key == "Correctable Error") add(g, "remapped_rows_correctable", *n);
    if (path.size() == 1 && key == "Uncorrectable Error") add(g, "remapped_rows_uncorrectable", *n);
    if (path.size() == 2 && path[1] == "Bank Remap Availability Histogram")
      g.remap_banks[std::string(key)] = *n;
    return;
  }
  if (top == "PCI" && path.size() == 1 && key == "Replays Since Reset") add(g, "pcie_replays", *n);
}

}  // namespace

std::vector<GpuCounterSample> parse_health_smi_query(std::string_view text,
                                                     const std::string& source) {
  if (!looks_like_nvidia_smi_query(text)) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected `nvidia-smi -q` output (an NVSMI LOG with \"Driver Version\" and "
                     "\"Attached GPUs\"), got '" +
                         terminal_safe(clip_text(first, 80)) + "'");
  }
  std::vector<GpuCounterSample> out;
  std::optional<GpuCounterSample> cur;
  std::uint64_t clocks = 0;
  bool clocks_seen = false;
  std::vector<std::pair<std::size_t, std::string>> stack;
  std::size_t gpu_indent = 0;
  auto finish = [&] {
    if (!cur) return;
    if (clocks_seen) cur->clocks_event_reasons = clocks;
    out.push_back(std::move(*cur));
    cur.reset();
    clocks = 0;
    clocks_seen = false;
    stack.clear();
  };
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    // nvidia-bug-report.sh appends "nvidia-smi --query --unit" to the same section.
    if (line.find("nvidia-smi") != std::string_view::npos &&
        line.find("--unit") != std::string_view::npos)
      break;
    const std::size_t indent = raw.find_first_not_of(" \t");
    const std::size_t colon = line.find(" : ");
    const std::string_view key =
        trim(colon == std::string_view::npos ? line : line.substr(0, colon));
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view() : trim(line.substr(colon + 3));
    if (colon == std::string_view::npos && key.rfind("GPU ", 0) == 0 &&
        key.find(':') != std::string_view::npos) {
      finish();
      cur.emplace();
      cur->pci = std::string(key.substr(4));
      cur->where = source + ":" + std::to_string(line_no);
      gpu_indent = indent;
      continue;
    }
    if (!cur) continue;
    if (indent <= gpu_indent) {
      finish();
      continue;
    }
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    if (colon == std::string_view::npos) {
      std::string_view name = key;
      if (!name.empty() && name.back() == ':') name = trim(name.substr(0, name.size() - 1));
      stack.emplace_back(indent, std::string(name));
      continue;
    }
    std::vector<std::string> path;
    path.reserve(stack.size());
    for (const auto& s : stack) path.push_back(s.second);
    apply(*cur, clocks, clocks_seen, path, key, value);
  }
  finish();
  return out;
}

}  // namespace trainready
