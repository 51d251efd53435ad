#include "parsers/nvidia_smi_query.h"

#include <array>
#include <utility>

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"

namespace trainready {
namespace {

constexpr std::string_view kLogBanner = "==============NVSMI LOG==============";

// nvml.h nvmlClocksEventReason* bits, by the label nvidia-smi -q prints under "Clocks Event
// Reasons" (drivers >= 535) or "Clocks Throttle Reasons" (older).
constexpr std::array<std::pair<std::string_view, std::uint64_t>, 9> kClockReasons{{
    {"Idle", 0x1},
    {"Applications Clocks Setting", 0x2},
    {"SW Power Cap", 0x4},
    {"HW Slowdown", 0x8},
    {"Sync Boost", 0x10},
    {"SW Thermal Slowdown", 0x20},
    {"HW Thermal Slowdown", 0x40},
    {"HW Power Brake Slowdown", 0x80},
    {"Display Clock Setting", 0x100},
}};

std::size_t indent_of(std::string_view raw) {
  const std::size_t i = raw.find_first_not_of(" \t");
  return i == std::string_view::npos ? raw.size() : i;
}

bool unreadable(std::string_view v) {
  return v == "ERR!" || icontains(v, "Unknown Error") || icontains(v, "GPU is lost");
}

std::optional<std::uint64_t> count_of(std::string_view v) {
  const auto n = parse_int(v);
  if (!n || *n < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*n);
}

struct GpuBuilder {
  Gpu gpu;
  std::uint64_t clocks = 0;
  bool clocks_seen = false;
  std::uint64_t uncorrected = 0;
  bool uncorrected_seen = false;
};

void finish(GpuBuilder& b, GpuFacts& out) {
  if (b.clocks_seen) b.gpu.clocks_event_reasons = b.clocks;
  if (b.uncorrected_seen) b.gpu.ecc_uncorrected_volatile = b.uncorrected;
  b.gpu.index = static_cast<int>(out.gpus.size());
  out.gpus.push_back(std::move(b.gpu));
}

// One "key : value" of a GPU block. `path` holds the enclosing section names.
void apply(GpuBuilder& b, const std::vector<std::string>& path, std::string_view key,
           std::string_view value, const Provenance& where) {
  const std::string_view section = path.empty() ? std::string_view() : path.back();
  const std::string_view top = path.empty() ? std::string_view() : path.front();
  if (unreadable(value)) {
    std::string field;
    for (const auto& p : path) field += p + " / ";
    b.gpu.unreadable_fields.push_back(field + std::string(key) + ": " + std::string(value));
  }
  if (path.empty()) {
    if (key == "Product Name") b.gpu.name = std::string(value);
    if (key == "GPU UUID") b.gpu.uuid = std::string(value);
    if (key == "Serial Number") b.gpu.serial = std::string(value);
    if (key == "Persistence Mode" && (value == "Enabled" || value == "Disabled"))
      b.gpu.persistence_mode = value == "Enabled";
    return;
  }
  if (top == "MIG Mode" && key == "Current") b.gpu.mig_mode = std::string(value);
  if (top == "ECC Mode" && key == "Current" && (value == "Enabled" || value == "Disabled"))
    b.gpu.ecc_enabled = value == "Enabled";
  if (top == "FB Memory Usage" && key == "Total") {
    if (auto mib = count_of(split_ws(value).empty() ? value : split_ws(value).front()))
      b.gpu.memory_total_bytes = *mib * 1024 * 1024;
  }
  // Volatile uncorrectable ECC: "DRAM Uncorrectable" / "SRAM Uncorrectable [Parity|SEC-DED]"
  // (drivers >= 525), or "Double Bit / Device Memory ..." totals before.
  if (top == "ECC Errors" && path.size() >= 2 && path[1] == "Volatile") {
    const bool newer = key.find("Uncorrectable") != std::string_view::npos;
    const bool older = section == "Double Bit" && key == "Total";
    if (newer || older) {
      if (auto n = count_of(value)) {
        b.uncorrected += *n;
        b.uncorrected_seen = true;
      }
    }
  }
  if (top == "Retired Pages" &&
      (key == "Pending Page Blacklist" || key == "Pending Page Retirement") &&
      (value == "Yes" || value == "No"))
    b.gpu.retired_pages_pending = value == "Yes";
  if (top == "Remapped Rows") {
    if (key == "Pending" && (value == "Yes" || value == "No")) b.gpu.remap_pending = value == "Yes";
    if (key == "Remapping Failure Occurred" && (value == "Yes" || value == "No"))
      b.gpu.remap_failure = value == "Yes";
  }
  if (top == "Clocks Event Reasons" || top == "Clocks Throttle Reasons" ||
      top == "Clocks Throttle Reason") {
    for (const auto& [label, bit] : kClockReasons) {
      if (key != label) continue;
      if (value == "Active") b.clocks |= bit;
      if (value == "Active" || value == "Not Active") b.clocks_seen = true;
    }
  }
  (void)where;
}

}  // namespace

bool looks_like_nvidia_smi_query(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  if (head.find(kLogBanner) != std::string_view::npos) return true;
  // A paste that lost the banner: the header keys at the left margin.
  bool driver = false, attached = false;
  for (std::string_view line : split_lines(head)) {
    if (line.rfind("Driver Version ", 0) == 0 && line.find(" : ") != std::string_view::npos)
      driver = true;
    if (line.rfind("Attached GPUs ", 0) == 0 && line.find(" : ") != std::string_view::npos)
      attached = true;
  }
  return driver && attached;
}

bool read_nvidia_smi_failures(std::string_view text, const std::string& source, GpuFacts& out) {
  bool any = false;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    constexpr std::string_view kHandle = "Unable to determine the device handle for GPU";
    if (const std::size_t at = line.find(kHandle); at != std::string_view::npos) {
      std::string_view rest = trim(line.substr(at + kHandle.size()));
      const std::size_t colon = rest.find(": ");
      LostGpu lost;
      lost.pci = std::string(trim(rest.substr(0, colon)));
      lost.message = std::string(line.substr(at));
      lost.where = {source, line_no};
      out.lost.push_back(std::move(lost));
      out.driver_loaded = true;
      any = true;
    }
    if (line.find("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver") !=
            std::string_view::npos ||
        line.find("Failed to initialize NVML: Driver/library version mismatch") !=
            std::string_view::npos) {
      out.driver_loaded = false;
      out.no_driver_reason = std::string(clip_text(line, 200));
      any = true;
    }
  }
  return any;
}

GpuFacts parse_nvidia_smi_query(std::string_view text, const std::string& source) {
  GpuFacts out;
  const bool failures = read_nvidia_smi_failures(text, source, out);
  bool banner = false;
  std::optional<GpuBuilder> cur;
  std::vector<std::pair<std::size_t, std::string>> stack;  // (indent, section name)
  std::size_t gpu_indent = 0;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line == kLogBanner) {
      banner = true;
      continue;
    }
    if (!banner && indent_of(raw) == 0 &&
        (line.rfind("Driver Version ", 0) == 0 || line.rfind("Attached GPUs ", 0) == 0 ||
         line.rfind("Timestamp ", 0) == 0) &&
        line.find(" : ") != std::string_view::npos)
      banner = true;  // a paste that starts below the banner
    if (!banner) continue;
    // nvidia-bug-report.sh appends "nvidia-smi --query --unit" to the same section.
    if (line.find("nvidia-smi") != std::string_view::npos &&
        line.find("--unit") != std::string_view::npos)
      break;
    const std::size_t indent = raw.find_first_not_of(" \t");
    const std::size_t colon = line.find(" : ");
    if (colon == std::string_view::npos && line.back() == ':') continue;  // "Key :", no value
    const bool has_value = colon != std::string_view::npos;
    const std::string_view key =
        trim(colon != std::string_view::npos ? line.substr(0, colon) : line);
    const std::string_view value =
        colon != std::string_view::npos ? trim(line.substr(colon + 3)) : std::string_view();
    if (!has_value && key.rfind("GPU ", 0) == 0 && key.find(':') != std::string_view::npos) {
      if (cur) finish(*cur, out);
      cur.emplace();
      cur->gpu.pci_bus_id = std::string(key.substr(4));
      cur->gpu.where = {source, line_no};
      gpu_indent = indent;
      stack.clear();
      continue;
    }
    if (!cur) {
      if (key == "Driver Version") {
        out.driver_version = std::string(value);
        out.driver_loaded = true;
      }
      if (key == "CUDA Version") out.cuda_version = std::string(value);
      continue;
    }
    if (indent <= gpu_indent) {  // a line at the GPU header's level ends the block
      finish(*cur, out);
      cur.reset();
      stack.clear();
      continue;
    }
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    if (colon == std::string_view::npos) {
      stack.emplace_back(indent, std::string(key));
      continue;
    }
    std::vector<std::string> path;
    for (const auto& s : stack) path.push_back(s.second);
    apply(*cur, path, key, value, {source, line_no});
  }
  if (cur) finish(*cur, out);
  if (!banner && !failures) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected nvidia-smi -q output starting '" + std::string(kLogBanner) +
                         "', got '" + terminal_safe(clip_text(first, 80)) + "'");
  }
  if (banner) out.driver_loaded = out.driver_loaded || !out.driver_version.empty();
  return out;
}

}  // namespace trainready
