// Field names are the DEFINE_CONSTANT keys of FlightRecorder.hpp; the values as
// FlightRecorderDetail.hpp's getCollectiveTrace / getPgConfig / getPgStatus (pickle) and
// dump_json / getPgConfigJson / getPgStatusJson (JSON: pg_status numbers as strings, unset
// discovery times as 0 instead of None) write them.
#include "parsers/flight_recorder.h"

#include <algorithm>
#include <string>

#include "codec/pickle_reader.h"
#include "core/input_error.h"
#include "core/json_util.h"
#include "core/text.h"

namespace trainready {
namespace {

using nlohmann::json;

std::string str_of(const json& o, const char* key, std::size_t max = 256) {
  auto it = o.find(key);
  if (it == o.end()) return "";
  if (it->is_string()) return it->get<std::string>().substr(0, max);
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  return "";
}

std::int64_t int_of(const json& o, const char* key, std::int64_t dflt = -1) {
  auto it = o.find(key);
  if (it == o.end()) return dflt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_unsigned()) return static_cast<std::int64_t>(it->get<std::uint64_t>());
  if (it->is_string()) return parse_int(it->get<std::string>()).value_or(dflt);  // JSON pg_status
  return dflt;
}

// "[0, 1, 2]" (ranks_str) or a list.
std::vector<int> ranks_of(const json& v) {
  std::vector<int> out;
  if (v.is_array()) {
    for (const json& x : v)
      if (x.is_number_integer() && out.size() < 1'000'000) out.push_back(x.get<int>());
    return out;
  }
  if (!v.is_string()) return out;
  const std::string s = v.get<std::string>();
  std::string_view rest = s;
  while (!rest.empty() && out.size() < 1'000'000) {
    const std::size_t b = rest.find_first_of("0123456789");
    if (b == std::string_view::npos) break;
    rest.remove_prefix(b);
    std::size_t e = rest.find_first_not_of("0123456789");
    if (e == std::string_view::npos) e = rest.size();
    if (auto n = parse_int(rest.substr(0, std::min<std::size_t>(e, 9))))
      out.push_back(static_cast<int>(*n));
    rest.remove_prefix(e);
  }
  return out;
}

std::string compact(const json& v) {
  std::string s = v.is_null() ? "" : v.dump();
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

int rank_from_name(std::string_view name) {
  const std::size_t slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  for (std::string_view ext : {".json", ".pkl", ".pickle"})
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext)
      name.remove_suffix(ext.size());
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || name.size() - i > 7) return -1;
  return static_cast<int>(parse_int(name.substr(i)).value_or(-1));
}

FrDump from_json(const json& j, const std::string& source, const std::string& format) {
  if (!j.is_object()) throw InputError(source, 0, "a Flight Recorder dump is a dict; this is not");
  FrDump d;
  d.source = source;
  d.format = format;
  d.rank = rank_from_name(source);
  d.version = str_of(j, "version", 16);
  if (d.version.empty() || (!j.contains("entries") && !j.contains("pg_config")))
    throw InputError(source, 0,
                     "no \"version\" and \"entries\"/\"pg_config\": not a Flight Recorder dump");
  if (d.version.rfind("2.", 0) != 0)
    throw InputError(source, 0,
                     "Flight Recorder format version " + d.version +
                         " (2.x is read: PyTorch changes the major version when fields change)");
  d.comm_lib_version = str_of(j, "comm_lib_version", 32);
  std::map<std::string, FrProcessGroup> by_name;
  if (auto pc = j.find("pg_config"); pc != j.end() && pc->is_object())
    for (auto it = pc->begin(); it != pc->end() && by_name.size() < 100000; ++it) {
      FrProcessGroup g;
      g.name = it.key().substr(0, 128);
      if (it.value().is_object()) {
        g.desc = str_of(it.value(), "desc", 128);
        if (auto r = it.value().find("ranks"); r != it.value().end()) g.ranks = ranks_of(*r);
      }
      by_name[g.name] = std::move(g);
    }
  std::map<std::string, FrProcessGroup> by_id;
  if (auto ps = j.find("pg_status"); ps != j.end() && ps->is_object())
    for (auto it = ps->begin(); it != ps->end() && by_id.size() < 100000; ++it) {
      FrProcessGroup g;
      g.id = it.key().substr(0, 32);
      if (it.value().is_object()) {
        g.last_enqueued = int_of(it.value(), "last_enqueued_collective");
        g.last_started = int_of(it.value(), "last_started_collective");
        g.last_completed = int_of(it.value(), "last_completed_collective");
      }
      by_id[g.id] = std::move(g);
    }
  if (auto es = j.find("entries"); es != j.end() && es->is_array()) {
    const std::size_t skip = es->size() > kMaxFrEntries ? es->size() - kMaxFrEntries : 0;
    for (std::size_t i = skip; i < es->size(); ++i) {
      const json& e = (*es)[i];
      if (!e.is_object()) continue;
      FrEntry x;
      x.record_id = int_of(e, "record_id");
      x.pg_id = str_of(e, "pg_id", 32);
      if (auto pg = e.find("process_group"); pg != e.end() && pg->is_array() && pg->size() == 2) {
        if ((*pg)[0].is_string()) x.pg_name = (*pg)[0].get<std::string>().substr(0, 128);
        if ((*pg)[1].is_string()) x.pg_desc = (*pg)[1].get<std::string>().substr(0, 128);
      }
      x.collective_seq_id = int_of(e, "collective_seq_id");
      x.p2p_seq_id = int_of(e, "p2p_seq_id");
      x.op_id = int_of(e, "op_id");
      x.profiling_name = str_of(e, "profiling_name", 128);
      x.time_created_ns = int_of(e, "time_created_ns", 0);
      x.state = str_of(e, "state", 16);
      x.timeout_ms = int_of(e, "timeout_ms", 0);
      if (auto b = e.find("is_p2p"); b != e.end() && b->is_boolean()) x.is_p2p = b->get<bool>();
      if (auto b = e.find("retired"); b != e.end() && b->is_boolean()) x.retired = b->get<bool>();
      if (auto du = e.find("duration_ms"); du != e.end() && du->is_number())
        x.duration_ms = du->get<double>();
      if (auto in = e.find("input_sizes"); in != e.end()) x.input_sizes = compact(*in);
      // A process group's description travels with its entries, its ranks with pg_config.
      if (!x.pg_id.empty()) {
        FrProcessGroup& g = by_id[x.pg_id];
        g.id = x.pg_id;
        if (g.name.empty()) g.name = x.pg_name;
        if (g.desc.empty()) g.desc = x.pg_desc;
      }
      d.entries.push_back(std::move(x));
    }
  }
  for (auto& [id, g] : by_id) {
    if (auto n = by_name.find(g.name); n != by_name.end()) {
      g.ranks = n->second.ranks;
      if (g.desc.empty()) g.desc = n->second.desc;
      by_name.erase(n);
    }
    d.groups.push_back(g);
  }
  for (auto& [name, g] : by_name) d.groups.push_back(g);  // configured, no status yet
  return d;
}

std::string_view skip_ws(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string_view() : s.substr(b);
}

}  // namespace

bool looks_like_flight_recorder(std::string_view data) {
  const std::string_view head = data.substr(0, 1 << 16);
  if (looks_like_pickle(head))
    return head.find("pg_config") != std::string_view::npos ||
           head.find("profiling_name") != std::string_view::npos;
  const std::string_view j = skip_ws(head);
  return !j.empty() && j[0] == '{' && head.find("\"version\"") != std::string_view::npos &&
         (head.find("\"pg_config\"") != std::string_view::npos ||
          head.find("\"profiling_name\"") != std::string_view::npos);
}

FrDump parse_flight_recorder(std::string_view data, std::string_view source_name) {
  const std::string source(source_name);
  if (looks_like_pickle(data)) return from_json(read_pickle(data, source), source, "pickle");
  const std::string_view j = skip_ws(data);
  if (j.empty() || j[0] != '{')
    throw InputError(source, 1, "neither a pickle nor a JSON object: not a Flight Recorder dump");
  return from_json(parse_json_or_throw(data, source), source, "json");
}

}  // namespace trainready
