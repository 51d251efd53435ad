#include "parsers/perftest.h"

#include <cctype>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {
namespace {

// "Device         : mlx5_1" -> "mlx5_1"; the header prints two fields on some lines
// (" Dual-port : OFF\t\tDevice : mlx5_0"), so look for the key anywhere.
std::string field(std::string_view line, std::string_view key) {
  auto at = line.find(key);
  if (at == std::string_view::npos) return "";
  std::string_view rest = line.substr(at + key.size());
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || trim(rest.substr(0, colon)).size() != 0) return "";
  rest = trim(rest.substr(colon + 1));
  std::size_t n = 0;
  while (n < rest.size() && !std::isspace(static_cast<unsigned char>(rest[n]))) ++n;
  return std::string(rest.substr(0, n));
}

// Gb/s from a value in the header's unit. perftest divides bytes/s by format_factor =
// (report_fmt == MBS) ? 0x100000 : 125000000 (perftest_parameters.c): its MB/sec is 2^20 bytes/s
// (newer releases print it as MiB/sec) and Gb/sec is 1e9 bit/s.
std::optional<double> to_gbps(double v, const std::string& unit) {
  if (unit == "Gb/sec") return v;
  if (unit == "MB/sec" || unit == "MiB/sec") return v * 1048576.0 * 8.0 / 1e9;
  return std::nullopt;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> w;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

}  // namespace

bool looks_like_perftest(std::string_view text) {
  return text.find("#bytes") != std::string_view::npos &&
         text.find("BW average[") != std::string_view::npos;
}

IbWriteBwFacts parse_ib_write_bw(std::string_view text, const std::string& source) {
  if (text.find('\0') != std::string_view::npos)
    throw InputError(source, 0, "binary data; expected ib_write_bw output");
  IbWriteBwFacts out;
  IbWriteBwRun cur;  // header fields seen since the last table
  bool in_table = false;
  bool have_row = false;
  IbWriteBwRun best;  // the table's row at the largest size
  int lineno = 0;
  auto finish_table = [&] {
    if (in_table && have_row) {
      out.runs.push_back(best);
      cur = IbWriteBwRun{};  // the next run prints its own banner and header
    }
    in_table = false;
    have_row = false;
  };
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.find("BW Test") != std::string_view::npos &&
        line.find("RDMA_") != std::string_view::npos) {
      finish_table();
      bool gpu = cur.gpu_memory;
      std::string gpu_name = cur.gpu_name;
      cur = IbWriteBwRun{};
      cur.gpu_memory = gpu;  // the CUDA banner comes before the header
      cur.gpu_name = gpu_name;
      cur.bidirectional = line.find("Bidirectional") != std::string_view::npos;
      continue;
    }
    if (line.rfind("initializing CUDA", 0) == 0 || line.rfind("cuMemAlloc()", 0) == 0 ||
        line.find("allocated GPU buffer") != std::string_view::npos ||
        line.rfind("initializing ROCm", 0) == 0 ||
        line.find("Using ROCm") != std::string_view::npos) {
      if (in_table) finish_table();
      cur.gpu_memory = true;
      continue;
    }
    if (auto at = line.find("device name = ["); at != std::string_view::npos) {
      std::string_view n = line.substr(at + 15);
      cur.gpu_name = std::string(n.substr(0, n.find(']')));
      cur.gpu_memory = true;
      continue;
    }
    if (std::string d = field(line, "Device"); !d.empty()) cur.device = d;
    if (std::string l = field(line, "Link type"); !l.empty()) cur.link_type = l;
    if (std::string q = field(line, "Number of qps"); !q.empty()) {
      if (auto v = parse_int(q)) cur.qps = static_cast<int>(*v);
    }
    if (line.front() == '#' && line.find("#bytes") == 0) {
      finish_table();
      auto peak = line.find("BW peak[");
      auto avg = line.find("BW average[");
      if (avg == std::string_view::npos || peak == std::string_view::npos)
        throw InputError(source, lineno,
                         "expected the perftest bandwidth header \"#bytes #iterations BW peak[...] "
                         "BW average[...] MsgRate[Mpps]\"");
      std::string_view u = line.substr(avg + 11);
      cur.unit_text = std::string(u.substr(0, u.find(']')));
      if (!to_gbps(1, cur.unit_text))
        throw InputError(
            source, lineno,
            "unknown bandwidth unit \"" + cur.unit_text + "\"; expected Gb/sec, MB/sec or MiB/sec");
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.front() == '-') {  // the dashed rule that closes the table
      finish_table();
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(line.front())))
      continue;  // CPU-frequency warnings
    auto w = words(line);
    if (w.size() < 4)
      throw InputError(
          source, lineno,
          "expected a row \"#bytes #iterations BW-peak BW-average [MsgRate]\", got \"" +
              std::string(line.substr(0, 80)) + "\"");
    auto bytes = parse_int(w[0]);
    auto pk = parse_double(w[2]);
    auto av = parse_double(w[3]);
    if (!bytes || *bytes <= 0 || !pk || !av || *pk < 0 || *av < 0)
      throw InputError(
          source, lineno,
          "expected numbers in the row \"#bytes #iterations BW-peak BW-average\", got \"" +
              std::string(line.substr(0, 80)) + "\"");
    auto b = static_cast<std::uint64_t>(*bytes);
    if (!have_row || b >= best.bytes) {
      best = cur;
      best.bytes = b;
      best.peak_gbps = *to_gbps(*pk, cur.unit_text);
      best.average_gbps = *to_gbps(*av, cur.unit_text);
      best.where = {source, lineno};
      have_row = true;
    }
  }
  finish_table();
  if (out.runs.empty())
    throw InputError(source, 0,
                     "no ib_write_bw result table; expected perftest output with a \"#bytes "
                     "#iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\" header and "
                     "at least one row");
  return out;
}

}  // namespace trainready
