#include "parsers/nccl_tests.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "core/input_error.h"
#include "core/json_util.h"
#include "core/line_reader.h"
#include "core/text.h"
#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_record.h"

namespace trainready {
// "Rank  0 Group  0 Pid  64904 on  mew0 device  0 [0000:17:00] NVIDIA A100 80GB PCIe"
NcclTestsDevice parse_nccl_tests_device(std::string_view body, const Provenance& at) {
  auto w = split_ws(body);
  NcclTestsDevice d;
  d.where = at;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "Rank")
      d.rank = static_cast<int>(parse_int(w[i + 1]).value_or(-1));
    else if (w[i] == "Pid")
      d.pid = static_cast<long>(parse_int(w[i + 1]).value_or(0));
    else if (w[i] == "on" && d.host.empty())
      d.host = std::string(w[i + 1]);
    else if (w[i] == "device" && d.device < 0)
      d.device = static_cast<int>(parse_int(w[i + 1]).value_or(-1));
  }
  std::size_t b = body.find('[');
  std::size_t e = b == std::string_view::npos ? b : body.find(']', b);
  if (e != std::string_view::npos) {
    d.bus_id = std::string(body.substr(b + 1, e - b - 1));
    d.name = std::string(trim(body.substr(e + 1)));
  }
  return d;
}

namespace {

bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// "22907" -> "2.29.7"; older codes (< 2900) were major*1000 + minor*100 + patch.
std::string nccl_version_from_code(long code) {
  if (code <= 0) return {};
  long major, minor, patch;
  if (code >= 20900) {
    major = code / 10000;
    minor = (code / 100) % 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = (code / 100) % 10;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<double> num(std::string_view t) {
  if (t == "N/A") return std::nullopt;
  return parse_double(t);
}

bool is_uint(std::string_view t) { return !t.empty() && parse_int(t).has_value() && t[0] != '-'; }

struct Columns {
  std::vector<std::string> words;  // header words after '#'
  int size = -1, count = -1, type = -1, redop = -1, root = -1;
  int time[2] = {-1, -1}, algbw[2] = {-1, -1}, busbw[2] = {-1, -1}, wrong[2] = {-1, -1};
  bool error_is_max = false;
  int optional_before_time() const { return (redop >= 0 ? 1 : 0) + (root >= 0 ? 1 : 0); }
};

std::optional<Columns> header_columns(std::string_view line) {
  if (line.empty() || line[0] != '#') return std::nullopt;
  Columns c;
  for (std::string_view w : split_ws(line.substr(1))) c.words.emplace_back(w);
  int ti = 0, ai = 0, bi = 0, wi = 0;
  for (int i = 0; i < static_cast<int>(c.words.size()); ++i) {
    const std::string& w = c.words[static_cast<std::size_t>(i)];
    if (w == "size" && c.size < 0)
      c.size = i;
    else if (w == "count" && c.count < 0)
      c.count = i;
    else if (w == "type" && c.type < 0)
      c.type = i;
    else if (w == "redop")
      c.redop = i;
    else if (w == "root")
      c.root = i;
    else if ((w == "time" || w == "cputime") && ti < 2)
      c.time[ti++] = i;
    else if (w == "algbw" && ai < 2)
      c.algbw[ai++] = i;
    else if (w == "busbw" && bi < 2)
      c.busbw[bi++] = i;
    else if ((w == "#wrong" || w == "wrong" || w == "error") && wi < 2) {
      c.error_is_max = w == "error";
      c.wrong[wi++] = i;
    }
  }
  if (c.size != 0 || c.busbw[0] < 0 || c.time[0] < 0) return std::nullopt;
  return c;
}

// The columns of a result row pasted without its header: size and count, a datatype nccl-tests
// names (src/common.cu test_typenames), then the reduction op and the root where the test has
// them, then two groups of time, algbw, busbw and #wrong (an "error" column before nccl-tests
// 2.13, the maximum error printed "%5.0le", e.g. 0e+00: an exponent and no decimal point; a count
// of a million or more prints with one, 1.04858e+06). Only that exact shape counts.
std::optional<Columns> row_columns(const std::vector<std::string_view>& toks) {
  static constexpr std::string_view kTypes[] = {
      "int8",   "uint8",    "int32",  "uint32", "int64", "uint64", "half", "float",
      "double", "bfloat16", "f8e4m3", "f8e5m2", "char",  "uchar",  "int",  "uint"};
  if (toks.size() < 11 || !is_uint(toks[0]) || !is_uint(toks[1])) return std::nullopt;
  if (std::find(std::begin(kTypes), std::end(kTypes), toks[2]) == std::end(kTypes))
    return std::nullopt;
  std::size_t k = 3;
  std::string head = "# size count type";
  if (!num(toks[k]) && toks[k] != "N/A") {
    head += " redop";
    ++k;
  }
  if (toks.size() - k == 9 && parse_int(toks[k])) {
    head += " root";
    ++k;
  }
  if (toks.size() - k != 8) return std::nullopt;
  for (std::size_t i = k; i < toks.size(); ++i)
    if (!num(toks[i]) && toks[i] != "N/A") return std::nullopt;
  const std::string_view w = toks[k + 3];
  const bool error = w.find('e') != std::string_view::npos && w.find('.') == std::string_view::npos;
  const std::string group = error ? " time algbw busbw error" : " time algbw busbw #wrong";
  return header_columns(head + group + group);
}

// Whether `t` is one of the lines nccl-tests prints behind '#' (src/common.cu), as `hashed`.
bool without_hash(std::string_view t, std::string_view hashed) {
  if (starts(t, "nThread ")) return t.find(" nGpus ") != std::string_view::npos;
  if (starts(t, "Avg bus bandwidth") || starts(t, "Collective test starting:") ||
      starts(t, "nccl-tests version ") || t == "Using devices")
    return true;
  if (starts(t, "Rank ")) {
    const NcclTestsDevice d = parse_nccl_tests_device(t, {});
    return d.rank >= 0 && d.device >= 0 && !d.host.empty();
  }
  return starts(t, "size ") && header_columns(hashed).has_value();
}

class TableReader {
 public:
  explicit TableReader(std::string source) { f_.source = std::move(source); }

  void line(std::string_view raw, std::uint64_t n) {
    // The line as nccl-tests wrote it: a launcher's, collector's or container runtime's prefix,
    // colour and CR off as from a NCCL log line (mpirun's "[1,0]<stdout>:", torchrun's
    // "[rank3]:", srun -l "12: ", kubectl and CRI timestamps, Docker's json-file lines).
    std::string_view l = normalize_nccl_line(raw, scratch_);
    // Keep only what comes before an interleaved NCCL record.
    NcclRecord recs[1];
    bool cut_by_nccl = false;
    if (split_nccl_records(l, recs, 1) > 0) {
      std::size_t at = static_cast<std::size_t>(recs[0].text.data() - l.data());
      // A row fragment glued to the record ("...  0mew0:64904:...") lends its last digits to
      // the host name; give them back when a host seen before ends the same way.
      const std::string_view h = recs[0].host;
      if (!h.empty() && std::isalpha(static_cast<unsigned char>(h[0]))) {
        if (hosts_.size() < 256) hosts_.emplace(h);
      } else {
        at += glued_host_prefix(h, hosts_);
      }
      if (f_.nccl_version.empty() && starts(recs[0].message, "NCCL version "))
        f_.nccl_version = version_word(recs[0].message.substr(13));
      l = l.substr(0, at);
      cut_by_nccl = true;
    }
    std::string_view t = trim(l);
    if (t.empty()) return;
    if (t[0] == '#') return comment(t, n);
    // nccl-tests' verdict quoted without its '#' (in prose, an issue title, grep's output:
    // ./all_reduce_perf: "Out of bounds values: 50 FAILED"): the words are nccl-tests' own.
    if (std::size_t q = t.find("Out of bounds values"); q != std::string_view::npos) {
      const std::string quoted = "# " + std::string(t.substr(q));
      return comment(quoted, n);
    }
    // nccl-tests' own '#' lines with the '#' lost: copied from a rendered Markdown page, where
    // "# Using devices" became a heading (NVIDIA/nccl-tests#17, #249). Only its exact texts.
    if (const std::string hashed = "# " + std::string(t); without_hash(t, hashed))
      return comment(hashed, n);
    if (f_.collective.empty()) command_collective(t, n);
    ++text_;  // a result row, a row's part or any other text between the '#' lines
    if (starts(t, "NCCL version ") && f_.nccl_version.empty())
      f_.nccl_version = version_word(t.substr(13));
    if (starts(t, "rccl-tests:") && f_.tests_version.empty()) f_.tests_version = std::string(t);
    if (t == "...") return;
    auto toks = split_ws(t);
    if (!cols_) {
      // A row pasted without the table's header (an excerpt from its middle): its shape says
      // the columns.
      if (pending_.empty()) cols_ = row_columns(toks);
      if (!cols_) return;
    }
    if (pending_.empty()) {
      if (toks.size() < 3 || !is_uint(toks[0]) || !is_uint(toks[1])) return;
      pending_where_ = {f_.source, static_cast<int>(n)};
    } else if (!num(toks[0]) && toks[0] != "N/A") {
      return;  // noise between the parts of a row
    }
    for (auto tk : toks) pending_.emplace_back(tk);
    const int need = static_cast<int>(cols_->words.size()) - cols_->optional_before_time();
    if (!cut_by_nccl && static_cast<int>(pending_.size()) >= need)
      emit();
    else if (static_cast<int>(pending_.size()) > static_cast<int>(cols_->words.size()) + 8)
      pending_.clear();  // never completes: drop it
  }

  NcclTestsFacts finish() {
    if (!pending_.empty() && cols_) emit();
    // The summary alone ("# Out of bounds values : 248 FAILED", pasted without its table) is
    // nccl-tests' own verdict on the results: read, with no rows.
    // Several processes' headers or device lists with no table (an excerpt from the start of
    // a run; each process printing its own: nccl-tests-separate-jobs) are read as well.
    if (!cols_ && f_.rows.empty() && !f_.out_of_bounds && f_.runs_printed() < 2)
      throw InputError(f_.source, 0,
                       "no nccl-tests result table found: expected a header line starting with "
                       "'#' that names the columns (size ... busbw), or nccl-tests JSON output");
    if (!f_.avg_busbw && !f_.out_of_bounds) f_.truncated = true;
    return std::move(f_);
  }

 private:
  static std::string version_word(std::string_view v) {
    std::size_t e = 0;
    while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
    return std::string(v.substr(0, e));
  }

  // The test's binary on a command line pasted with its output ("mpirun -np 16 ./build/
  // all_reduce_perf -b 8 -e 8G"): the collective, where no "Collective test starting" says it.
  void command_collective(std::string_view t, std::uint64_t n) {
    for (std::string_view w : split_ws(t)) {
      const std::size_t slash = w.rfind('/');
      const std::string_view b = slash == std::string_view::npos ? w : w.substr(slash + 1);
      const bool perf = (b.size() > 5 && b.substr(b.size() - 5) == "_perf") ||
                        (b.size() > 9 && b.substr(b.size() - 9) == "_perf_mpi");
      if (!perf) continue;
      std::string c = normalize_collective(std::string(b));
      if (!busbw_factor(c, 2)) continue;
      f_.collective = std::move(c);
      f_.collective_where = {f_.source, static_cast<int>(n)};
      f_.notes.push_back("collective taken from the command line: " + std::string(b));
      return;
    }
  }

  void comment(std::string_view t, std::uint64_t n) {
    const Provenance at{f_.source, static_cast<int>(n)};
    if (auto c = header_columns(t)) {
      cols_ = c;
      pending_.clear();
      return;
    }
    std::string_view body = trim(t.substr(1));
    if (starts(body, "Collective test starting:")) {
      ++starts_;
      f_.collective = normalize_collective(std::string(trim(body.substr(25))));
      f_.collective_where = at;
    } else if (starts(body, "nThread ")) {
      if (f_.headers.size() < kMarks) f_.headers.push_back({at, text_, starts_, summaries_});
      ++starts_;
      auto w = split_ws(body);
      for (std::size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i] == "nThread") f_.n_threads = static_cast<int>(parse_int(w[i + 1]).value_or(0));
        if (w[i] == "nGpus") f_.n_gpus = static_cast<int>(parse_int(w[i + 1]).value_or(0));
      }
    } else if (starts(body, "nccl-tests version ")) {
      auto w = split_ws(body);
      if (w.size() > 2) f_.tests_version = std::string(w[2]);
      for (auto x : w) {
        if (starts(x, "nccl-library="))
          f_.nccl_version = nccl_version_from_code(parse_int(x.substr(13)).value_or(0));
      }
    } else if (starts(body, "Rank ")) {
      device(body, at);
    } else if (starts(body, "Avg bus bandwidth")) {
      std::size_t c = body.find(':');
      if (c != std::string_view::npos) {
        auto w = split_ws(body.substr(c + 1));
        if (!w.empty()) f_.avg_busbw = parse_double(w[0]);
        f_.avg_where = at;
      }
    } else if (starts(body, "Out of bounds values")) {
      if (f_.summaries.size() < kMarks) f_.summaries.push_back({at, text_, starts_, summaries_});
      ++summaries_;
      std::size_t c = body.find(':');
      if (c != std::string_view::npos) {
        auto w = split_ws(body.substr(c + 1));
        if (!w.empty()) f_.out_of_bounds = parse_int(w[0]);
        f_.out_of_bounds_where = at;
      }
    }
  }

  void device(std::string_view body, const Provenance& at) {
    NcclTestsDevice d = parse_nccl_tests_device(body, at);
    d.summaries_before = summaries_;
    d.rows_before = static_cast<long>(f_.rows.size());
    if (d.rank >= 0 && f_.devices.size() < 65536) f_.devices.push_back(std::move(d));
  }

  void emit() {
    const Columns& c = *cols_;
    std::vector<std::string>& t = pending_;
    NcclTestsRow r;
    r.where = pending_where_;
    r.error_is_max_error = c.error_is_max;
    // Columns that print blank for some collectives (redop for alltoall, root for all-reduce
    // in old versions) shift the rest left; find how many are missing.
    int shift = 0;
    const int words = static_cast<int>(c.words.size());
    const int have = static_cast<int>(t.size());
    if (have < words) shift = std::min(words - have, c.optional_before_time());
    auto at = [&](int col) -> const std::string* {
      if (col < 0) return nullptr;
      int idx = col > c.type ? col - shift : col;
      if (idx < 0 || idx >= have) return nullptr;
      return &t[static_cast<std::size_t>(idx)];
    };
    auto d = [&](int col) -> std::optional<double> {
      const std::string* s = at(col);
      return s ? num(*s) : std::nullopt;
    };
    const std::string* sz = at(c.size);
    if (!sz || !is_uint(*sz)) {
      t.clear();
      return;
    }
    r.size_bytes = static_cast<std::uint64_t>(*parse_int(*sz));
    if (auto cnt = at(c.count); cnt && is_uint(*cnt))
      r.count = static_cast<std::uint64_t>(*parse_int(*cnt));
    if (auto ty = at(c.type)) r.type = *ty;
    if (shift == 0 && c.redop >= 0) {
      if (auto ro = at(c.redop)) r.redop = *ro;
    }
    r.oop_time_us = d(c.time[0]);
    r.oop_algbw = d(c.algbw[0]);
    r.oop_busbw = d(c.busbw[0]);
    r.oop_wrong = d(c.wrong[0]);
    r.ip_time_us = d(c.time[1]);
    r.ip_algbw = d(c.algbw[1]);
    r.ip_busbw = d(c.busbw[1]);
    r.ip_wrong = d(c.wrong[1]);
    if (r.busbw() && f_.rows.size() < 100000) f_.rows.push_back(std::move(r));
    t.clear();
  }

  static constexpr std::size_t kMarks = 4096;
  NcclTestsFacts f_;
  long text_ = 0;       // lines of rows or other text so far (NcclTestsMark)
  long starts_ = 0;     // run headers and "Collective test starting" lines so far
  long summaries_ = 0;  // "Out of bounds values" lines so far
  std::optional<Columns> cols_;
  std::vector<std::string> pending_;
  std::string scratch_;  // the line without its prefix (normalize_nccl_line)
  Provenance pending_where_;
  std::set<std::string, std::less<>> hosts_;  // NCCL hosts seen, to undo glued row fragments
};

NcclTestsFacts parse_json(std::string_view text, const std::string& source) {
  using nlohmann::json;
  json j = parse_json_or_throw(text, source);
  if (!j.is_object() || !j.contains("results"))
    throw InputError(source, 1, "expected nccl-tests JSON output: an object with \"results\"");
  NcclTestsFacts f;
  f.source = source;
  f.from_json = true;
  auto num_of = [](const json& o, const char* k) -> std::optional<double> {
    if (!o.is_object()) return std::nullopt;
    auto it = o.find(k);
    if (it == o.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  auto str_of = [](const json& o, const char* k) -> std::string {
    if (!o.is_object()) return {};
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto v = num_of(j, "nccl_version"))
    f.nccl_version = nccl_version_from_code(static_cast<long>(*v));
  if (auto a = j.find("args");
      a != j.end() && a->is_array() && !a->empty() && (*a)[0].is_string()) {
    std::string prog = (*a)[0].get<std::string>();
    std::size_t slash = prog.rfind('/');
    f.collective = normalize_collective(slash == std::string::npos ? prog : prog.substr(slash + 1));
    f.collective_where = {source, 0};
  }
  const json cfg = j.value("config", json::object());
  if (auto v = num_of(cfg, "nthreads")) f.n_threads = static_cast<int>(*v);
  if (auto v = num_of(cfg, "ngpus")) f.n_gpus = static_cast<int>(*v);
  const json devs = cfg.is_object() && cfg.contains("devices") ? cfg["devices"]
                                                               : j.value("devices", json::array());
  if (devs.is_array()) {
    for (const json& d : devs) {
      NcclTestsDevice x;
      x.rank = static_cast<int>(num_of(d, "rank").value_or(-1));
      x.pid = static_cast<long>(num_of(d, "pid").value_or(0));
      x.host = str_of(d, "hostname");
      x.device = static_cast<int>(num_of(d, "device").value_or(-1));
      x.bus_id = str_of(d, "device_hex");
      x.name = str_of(d, "device_info");
      x.where = {source, 0};
      if (x.rank >= 0) f.devices.push_back(std::move(x));
    }
  }
  const json& res = j["results"];
  if (!res.is_array()) throw InputError(source, 1, "expected \"results\" to be a list");
  for (const json& row : res) {
    if (!row.is_object()) continue;
    NcclTestsRow r;
    auto size = num_of(row, "size");
    if (!size || *size < 0) continue;
    r.size_bytes = static_cast<std::uint64_t>(*size);
    r.count = static_cast<std::uint64_t>(std::max(0.0, num_of(row, "count").value_or(0)));
    r.type = str_of(row, "type");
    r.redop = str_of(row, "redop");
    auto side = [&](const char* k, std::optional<double>& time, std::optional<double>& alg,
                    std::optional<double>& bus, std::optional<double>& wrong) {
      auto it = row.find(k);
      if (it == row.end() || !it->is_object()) return;
      time = num_of(*it, "time");
      if (!time) time = num_of(*it, "cpu_time");
      alg = num_of(*it, "alg_bw");
      bus = num_of(*it, "bus_bw");
      wrong = num_of(*it, "nwrong");
    };
    side("out_of_place", r.oop_time_us, r.oop_algbw, r.oop_busbw, r.oop_wrong);
    side("in_place", r.ip_time_us, r.ip_algbw, r.ip_busbw, r.ip_wrong);
    r.where = {source, 0};
    if (r.busbw()) f.rows.push_back(std::move(r));
  }
  if (auto o = j.find("out_of_bounds"); o != j.end()) {
    if (auto v = num_of(*o, "count")) f.out_of_bounds = static_cast<long>(*v);
  }
  if (auto a = j.find("average_bus_bandwidth"); a != j.end()) f.avg_busbw = num_of(*a, "bandwidth");
  return f;
}

}  // namespace

NcclTestsFacts parse_nccl_tests(std::string_view text, const std::string& source) {
  std::string_view t = trim(text);
  if (!t.empty() && t[0] == '{' && !is_docker_json_log(t)) return parse_json(text, source);
  TableReader reader(source);
  // A table copied out of a narrow terminal is joined back (log_hard_wrap.h).
  read_log_text(text, [&](std::string_view l, std::uint64_t n, bool) { reader.line(l, n); });
  return reader.finish();
}

NcclTestsFacts parse_nccl_tests_file(const std::string& path) {
  // JSON is read whole (nccl-tests writes small files); tables stream line by line.
  std::string head;
  bool json = false;
  bool decided = false;
  std::string whole;
  TableReader reader(path);
  constexpr std::size_t kMaxJson = 256u << 20;
  // A table copied out of a narrow terminal is joined back (log_hard_wrap.h); JSON is never cut.
  read_log_lines(path, [&](std::string_view l, std::uint64_t n, bool) {
    if (!decided) {
      std::string_view t = trim(l);
      if (!t.empty()) {
        decided = true;
        // A Docker json-file line ({"log":...}) is a line of the table, not nccl-tests' JSON.
        json = t[0] == '{' && !is_docker_json_log(t);
      }
    }
    if (json) {
      if (whole.size() + l.size() + 1 > kMaxJson)
        throw InputError(path, static_cast<int>(n), "JSON larger than 256 MiB");
      whole.append(l.data(), l.size());
      whole += '\n';
      return;
    }
    reader.line(l, n);
  });
  NcclTestsFacts f = json ? parse_json(whole, path) : reader.finish();
  if (f.collective.empty()) {
    // Older versions print no "Collective test starting" line; the file name often says.
    std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    for (const char* c : {"reduce_scatter", "all_reduce", "all_gather", "alltoall", "broadcast",
                          "sendrecv", "hypercube", "scatter", "gather", "reduce"}) {
      if (base.find(c) != std::string::npos) {
        f.collective = c;
        f.notes.push_back("collective taken from the file name: " + base);
        break;
      }
    }
  }
  return f;
}

bool looks_like_nccl_tests(std::string_view text) {
  std::string scratch;
  for (std::string_view l : split_lines(text.substr(0, std::size_t{256} * 1024))) {
    const std::string_view t = trim(normalize_nccl_line(l, scratch));
    // A header, or a row pasted without it (row_columns: exactly nccl-tests' shape).
    if (header_columns(t) || (!t.empty() && t[0] != '#' && row_columns(split_ws(t)))) return true;
    // The same lines with the '#' lost in a Markdown paste.
    if (!t.empty() && t[0] != '#' && without_hash(t, "# " + std::string(t))) return true;
    // The run's own header ("# nThread 1 nGpus 8 minBytes ...") or a device line.
    if (starts(t, "#") &&
        (starts(trim(t.substr(1)), "nThread ") && t.find(" nGpus ") != std::string_view::npos))
      return true;
    if (starts(t, "#") && starts(trim(t.substr(1)), "Rank ")) {
      const NcclTestsDevice d = parse_nccl_tests_device(trim(t.substr(1)), {});
      if (d.rank >= 0 && d.device >= 0 && !d.host.empty()) return true;
    }
  }
  std::string_view t = trim(text);
  return !t.empty() && t[0] == '{' && t.find("\"results\"") != std::string_view::npos &&
         t.find("\"bus_bw\"") != std::string_view::npos;
}

}  // namespace trainready
