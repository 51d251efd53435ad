#include "parsers/nvidia_smi_table.h"

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/nvidia_smi_query.h"

namespace trainready {
namespace {

// The cells between '|' of a table line ("| a | b |" -> {"a", "b"}), trimmed.
std::vector<std::string_view> cells(std::string_view line) {
  std::vector<std::string_view> out;
  line = trim(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return out;
  line = line.substr(1, line.size() - 2);
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t bar = line.find('|', start);
    if (bar == std::string_view::npos) bar = line.size();
    out.push_back(trim(line.substr(start, bar - start)));
    start = bar + 1;
  }
  return out;
}

std::string after(std::string_view line, std::string_view key) {
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return {};
  const auto words = split_ws(line.substr(at + key.size()));
  return words.empty() ? std::string() : std::string(words.front());
}

bool is_err(std::string_view cell) { return cell.find("ERR!") != std::string_view::npos; }

}  // namespace

bool looks_like_nvidia_smi_table(std::string_view text) {
  int seen = 0;
  for (std::string_view line : split_lines(text.substr(0, 4096))) {
    if (trim(line).empty()) continue;
    if (line.find("NVIDIA-SMI ") != std::string_view::npos &&
        line.find("Driver Version") != std::string_view::npos)
      return true;
    // What nvidia-smi prints instead of its table when it cannot open a GPU or the driver.
    if (line.rfind("Unable to determine the device handle for GPU", 0) == 0 ||
        line.rfind("NVIDIA-SMI has failed because it couldn't communicate", 0) == 0)
      return true;
    if (++seen > 4) break;
  }
  return false;
}

GpuFacts parse_nvidia_smi_table(std::string_view text, const std::string& source) {
  GpuFacts out;
  const bool failures = read_nvidia_smi_failures(text, source, out);
  bool banner = false;
  bool in_gpus = false;       // after the "|====" rule of the GPU table, before "Processes"
  std::size_t cur_index = 0;  // 1 + index into out.gpus of the GPU whose box is open; 0 none
  int row = 0;  // line of the current GPU box: 1 = index/name, 2 = fan/memory, 3 = MIG
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (!banner && line.find("NVIDIA-SMI ") != std::string_view::npos &&
        line.find("Driver Version") != std::string_view::npos) {
      banner = true;
      out.driver_loaded = true;
      out.driver_version = after(line, "Driver Version:");
      out.cuda_version = after(line, "CUDA Version:");
      continue;
    }
    if (!banner) continue;
    if (line.find("Processes:") != std::string_view::npos ||
        line.find("MIG devices:") != std::string_view::npos)
      break;
    if (line.rfind("|===", 0) == 0) {
      in_gpus = true;
      continue;
    }
    if (line.front() == '+') {  // box border: the next line starts a GPU
      cur_index = 0;
      row = 0;
      continue;
    }
    if (!in_gpus) continue;
    const std::vector<std::string_view> c = cells(line);
    if (c.size() < 3) continue;
    if (cur_index == 0) {
      // "0  NVIDIA A100-SXM...  On" (index, name, Persistence-M).
      const auto words = split_ws(c[0]);
      if (words.size() < 2) continue;
      const auto index = parse_int(words.front());
      if (!index || *index < 0 || *index > 4096) continue;
      Gpu g;
      g.index = static_cast<int>(*index);
      g.where = {source, line_no};
      const std::string_view persistence = words.back();
      if (persistence == "On" || persistence == "Off") g.persistence_mode = persistence == "On";
      std::string name;
      for (std::size_t i = 1; i + 1 < words.size(); ++i) {
        if (!name.empty()) name += ' ';
        name += words[i];
      }
      if (words.size() == 2) name = std::string(words[1]);
      g.name = name;
      const auto bus = split_ws(c[1]);
      if (!bus.empty()) g.pci_bus_id = std::string(bus.front());
      if (const auto ecc = parse_int(c[2]); ecc && *ecc >= 0)
        g.ecc_uncorrected_volatile = static_cast<std::uint64_t>(*ecc);
      if (is_err(c[0])) g.unreadable_fields.push_back("Name: ERR!");
      if (is_err(c[1])) g.unreadable_fields.push_back("Bus-Id / Disp.A: " + std::string(c[1]));
      if (is_err(c[2])) g.unreadable_fields.push_back("Volatile Uncorr. ECC: ERR!");
      out.gpus.push_back(std::move(g));
      cur_index = out.gpus.size();
      row = 1;
      continue;
    }
    Gpu* cur = &out.gpus[cur_index - 1];
    ++row;
    if (row == 2) {
      // "N/A   29C    P0    64W / 400W |      0MiB / 81251MiB |      0%      Default"
      if (is_err(c[0]))
        cur->unreadable_fields.push_back("Fan/Temp/Perf/Power: " + std::string(c[0]));
      if (is_err(c[2]))
        cur->unreadable_fields.push_back("GPU-Util/Compute M.: " + std::string(c[2]));
      const std::size_t slash = c[1].find('/');
      if (slash != std::string_view::npos) {
        std::string_view total = trim(c[1].substr(slash + 1));
        if (total.size() > 3 && total.substr(total.size() - 3) == "MiB") {
          if (const auto mib = parse_int(total.substr(0, total.size() - 3)); mib && *mib > 0)
            cur->memory_total_bytes = static_cast<std::uint64_t>(*mib) * 1024 * 1024;
        }
      }
    } else if (row == 3 && !c[2].empty()) {
      if (is_err(c[2]))
        cur->unreadable_fields.push_back("MIG M.: ERR!");
      else if (c[2] != "N/A")
        cur->mig_mode = std::string(c[2]);
    }
  }
  if (!banner && !failures) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected nvidia-smi output with its banner '| NVIDIA-SMI ... Driver "
                     "Version: ...', got '" +
                         terminal_safe(clip_text(first, 80)) + "'");
  }
  return out;
}

}  // namespace trainready
