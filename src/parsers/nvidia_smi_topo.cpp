#include "parsers/nvidia_smi_topo.h"

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {

int TopoMatrix::gpu_count() const {
  int n = 0;
  for (const auto& r : rows) n += r.name.rfind("GPU", 0) == 0;
  return n;
}

int TopoMatrix::nic_count() const { return static_cast<int>(rows.size()) - gpu_count(); }

TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& source) {
  TopoMatrix m;
  const std::string clean = strip_ansi(text);
  int lineno = 0;
  bool header = false;
  for (std::string_view raw : split_lines(clean)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) {
      if (header && !m.rows.empty()) break;  // the legend follows a blank line
      continue;
    }
    if (!header) {
      if (line.rfind("GPU0", 0) != 0) continue;
      // Columns are tab separated; "CPU Affinity" and "NUMA Affinity" contain a space.
      for (std::string_view tok : split_ws(line)) {
        if (tok == "CPU" || tok == "NUMA" || tok == "Affinity" || tok == "GPU" || tok == "NUMA ID") continue;
        m.columns.emplace_back(tok);
      }
      header = true;
      continue;
    }
    if (line.rfind("Legend", 0) == 0) break;
    auto toks = split_ws(line);
    if (toks.empty()) continue;
    TopoMatrix::Row row;
    row.name = std::string(toks[0]);
    row.where = {source, lineno};
    std::size_t i = 1;
    for (; i < toks.size() && row.links.size() < m.columns.size(); ++i) row.links.emplace_back(toks[i]);
    if (i < toks.size()) row.cpu_affinity = std::string(toks[i++]);
    if (i < toks.size()) row.numa_affinity = std::string(toks[i++]);
    m.rows.push_back(std::move(row));
  }
  if (!header) {
    throw InputError(source, 1, "expected `nvidia-smi topo -m` output: a header row starting with GPU0");
  }
  return m;
}

}  // namespace trainready
