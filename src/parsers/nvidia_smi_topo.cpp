#include "parsers/nvidia_smi_topo.h"

#include <algorithm>
#include <cctype>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {

int TopoMatrix::gpu_count() const {
  int n = 0;
  for (const auto& r : rows) n += r.name.rfind("GPU", 0) == 0;
  return n;
}

int TopoMatrix::nic_count() const { return static_cast<int>(rows.size()) - gpu_count(); }

namespace {

bool link_token(std::string_view t) {
  static constexpr std::string_view kLinks[] = {"X", "SYS", "NODE", "PHB", "PXB", "PIX"};
  return std::find(std::begin(kLinks), std::end(kLinks), t) != std::end(kLinks) ||
         (t.size() > 2 && t.substr(0, 2) == "NV" && std::isdigit(static_cast<unsigned char>(t[2])));
}

// "GPU3    NV18    NV18     X ...": a row of a matrix pasted without its header line.
bool headerless_row(std::string_view line) {
  auto t = split_ws(line);
  return t.size() >= 3 && (t[0].rfind("GPU", 0) == 0 || t[0].rfind("NIC", 0) == 0) &&
         link_token(t[1]) && link_token(t[2]);
}

}  // namespace

TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& source) {
  TopoMatrix m;
  const std::string clean = strip_ansi(text);
  int lineno = 0;
  bool header = false;
  bool headerless = false;
  std::vector<std::vector<std::string_view>> tokens;
  for (std::string_view raw : split_lines(clean)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) {
      if (header && !m.rows.empty()) break;  // the legend follows a blank line
      continue;
    }
    if (!header && headerless_row(line)) {
      header = true;  // the columns are the rows' names, filled in below
      headerless = true;
    }
    if (!header) {
      if (line.rfind("GPU0", 0) != 0) continue;
      // Some nvidia-smi versions leave NIC column names empty; the matrix is square, so the
      // row names fill them in below.
      for (std::string_view tok : split_ws(line)) {
        if (tok == "CPU" || tok == "NUMA" || tok == "Affinity" || tok == "GPU" || tok == "ID")
          continue;
        m.columns.emplace_back(tok);
      }
      header = true;
      continue;
    }
    if (line.rfind("Legend", 0) == 0) break;
    auto toks = split_ws(line);
    if (toks.empty()) continue;
    TopoMatrix::Row row;
    // Some versions leave the NIC row names empty too: the row then starts with its links.
    static constexpr std::string_view kLinks[] = {"X", "SYS", "NODE", "PHB", "PXB", "PIX"};
    const bool unnamed =
        (raw[0] == '\t' || raw[0] == ' ') &&
        (std::find(std::begin(kLinks), std::end(kLinks), toks[0]) != std::end(kLinks) ||
         (toks[0].size() > 2 && toks[0].substr(0, 2) == "NV"));
    if (unnamed) toks.insert(toks.begin(), std::string_view("NIC?"));
    row.name = std::string(toks[0]);
    row.where = {source, lineno};
    m.rows.push_back(std::move(row));
    tokens.push_back(std::move(toks));
  }
  if (!header) {
    throw InputError(source, 1,
                     "expected `nvidia-smi topo -m` output: a header row starting with GPU0");
  }
  const std::size_t n = m.rows.size();
  // An excerpt may hold fewer rows than the header has columns: a row has a link per column.
  const std::size_t cols = std::max(n, m.columns.size());
  for (std::size_t r = 0; r < n; ++r) {
    const auto& toks = tokens[r];
    std::size_t i = 1;
    for (; i < toks.size() && (headerless ? link_token(toks[i]) : i <= cols); ++i)
      m.rows[r].links.emplace_back(toks[i]);
    if (i < toks.size()) m.rows[r].cpu_affinity = std::string(toks[i++]);
    if (i < toks.size()) m.rows[r].numa_affinity = std::string(toks[i++]);
  }
  for (std::size_t r = m.columns.size(); r < n; ++r) m.columns.push_back(m.rows[r].name);
  return m;
}

}  // namespace trainready
