// Keys as inspectorCommInfoHeader / inspectorCommInfoMetaHeader / inspectorCompletedColl /
// inspectorCompletedP2p write them (plugins/profiler/inspector/inspector_json.cc, v2.30.7-1;
// inspector.cc before). json.cc's jsonDouble prints NaN as the string "nan".
#include "parsers/nccl_inspector.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxSeries = 100000;
constexpr std::size_t kMaxSamples = 4096;  // per series, the first ones (medians)
constexpr std::size_t kMaxNotes = 16;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string str_of(const json& o, const char* k, std::size_t max = 128) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>().substr(0, max) : "";
}
std::int64_t int_of(const json& o, const char* k, std::int64_t dflt = -1) {
  auto it = o.find(k);
  if (it == o.end()) return dflt;
  if (it->is_number_unsigned())
    return static_cast<std::int64_t>(std::min<std::uint64_t>(it->get<std::uint64_t>(), INT64_MAX));
  if (it->is_number_integer()) return it->get<std::int64_t>();
  return dflt;
}
std::optional<double> num_of(const json& o, const char* k) {
  auto it = o.find(k);
  if (it == o.end() || !it->is_number()) return std::nullopt;  // "nan" is a string
  return it->get<double>();
}

struct Acc {
  InspectorSeries s;
  std::vector<double> busbw;
  std::vector<double> time;
};

}  // namespace

bool looks_like_nccl_inspector(std::string_view text) {
  const std::string_view head = text.substr(0, 1 << 14);
  return head.find("\"header\"") != std::string_view::npos &&
         (head.find("\"coll_perf\"") != std::string_view::npos ||
          head.find("\"p2p_perf\"") != std::string_view::npos) &&
         head.find("\"n_ranks\"") != std::string_view::npos;
}

void parse_nccl_inspector(std::string_view text, std::string_view source_name,
                          std::vector<InspectorSeries>& out, std::vector<std::string>& notes) {
  const std::string source(source_name);
  std::map<std::tuple<std::string, int, std::string, std::uint64_t>, Acc> acc;
  int line_no = 0;
  std::size_t bad = 0;
  int first_bad = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (bad++ == 0) first_bad = line_no;
      continue;
    }
    auto h = j.find("header");
    auto m = j.find("metadata");
    auto c = j.find("coll_perf");
    const bool p2p = c == j.end();
    if (p2p) c = j.find("p2p_perf");
    if (h == j.end() || !h->is_object() || c == j.end() || !c->is_object()) {
      if (bad++ == 0) first_bad = line_no;
      continue;
    }
    const std::string comm = to_lower(str_of(*h, "id", 40));
    const int rank = static_cast<int>(std::clamp<std::int64_t>(int_of(*h, "rank"), -1, 1 << 30));
    const std::string op = str_of(*c, p2p ? "p2p" : "coll", 32);
    const auto bytes = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, int_of(*c, p2p ? "p2p_msg_size_bytes" : "coll_msg_size_bytes")));
    auto key = std::make_tuple(comm, rank, op, bytes);
    if (acc.find(key) == acc.end() && acc.size() >= kMaxSeries) continue;
    Acc& a = acc[key];
    if (a.s.count == 0) {
      a.s.comm_id = comm;
      a.s.comm_name = str_of(*h, "comm_name");
      a.s.rank = rank;
      a.s.nranks = static_cast<int>(std::clamp<std::int64_t>(int_of(*h, "n_ranks", 0), 0, 1 << 30));
      a.s.nnodes = static_cast<int>(std::clamp<std::int64_t>(int_of(*h, "nnodes", 0), 0, 1 << 30));
      a.s.collective = op;
      a.s.msg_size_bytes = bytes;
      if (m != j.end() && m->is_object()) {
        a.s.host = str_of(*m, "hostname", 256);
        a.s.pid = static_cast<long>(int_of(*m, "pid"));
        a.s.format_version = str_of(*m, "inspector_output_format_version", 16);
      }
      a.s.timing_source = str_of(*c, p2p ? "p2p_timing_source" : "coll_timing_source", 32);
      a.s.where = {source, line_no};
    }
    ++a.s.count;
    a.s.last_sn = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, int_of(*c, p2p ? "p2p_sn" : "coll_sn", 0)));
    if (a.busbw.size() < kMaxSamples) {
      if (auto b = num_of(*c, p2p ? "p2p_busbw_gbs" : "coll_busbw_gbs")) a.busbw.push_back(*b);
      if (auto t = num_of(*c, p2p ? "p2p_exec_time_us" : "coll_exec_time_us")) a.time.push_back(*t);
    }
  }
  if (acc.empty())
    throw InputError(source, bad ? first_bad : 0,
                     "no NCCL Inspector record (a JSON line with \"header\" and \"coll_perf\")");
  if (bad > 0 && notes.size() < kMaxNotes)
    notes.push_back(source + ":" + std::to_string(first_bad) + ": " + std::to_string(bad) +
                    " line(s) that are not Inspector records were skipped");
  for (auto& [k, a] : acc) {
    if (!a.busbw.empty()) {
      a.s.busbw_median_gbs = median(a.busbw);
      a.s.busbw_min_gbs = *std::min_element(a.busbw.begin(), a.busbw.end());
      a.s.busbw_max_gbs = *std::max_element(a.busbw.begin(), a.busbw.end());
    }
    a.s.exec_time_median_us = median(a.time);
    out.push_back(std::move(a.s));
  }
}

}  // namespace trainready
