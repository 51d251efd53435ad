// `ncclras` reports. Every line shape below is a rasOutAppend() format in NCCL's
// src/ras/client_support.cc (v2.24.3-1 .. v2.30.7-1); the JSON writer is jsonWriteHeader /
// jsonStartCommunicator / jsonWriteRankData / jsonWriteMissingRank (v2.28.7-1+).
#include "parsers/nccl_ras.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "core/input_error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "core/text_consume.h"

namespace trainready {
namespace {

constexpr std::size_t kMaxComms = 4096;
constexpr std::size_t kMaxRanksPerList = 65536;
constexpr std::size_t kMaxNotes = 64;
constexpr std::size_t kMaxLineKept = 240;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::optional<std::int64_t> take_int(std::string_view& s) { return consume_int(s); }

bool take(std::string_view& s, std::string_view p) { return consume_prefix(s, p); }

std::string clip(std::string_view s) {
  std::string out(s.substr(0, kMaxLineKept));
  if (s.size() > kMaxLineKept) out += "...";
  return out;
}

// "GPU 4 managed by process 323032 on node 10.137.190.124" or "[process information not
// found]" after " -- ".
void read_where(std::string_view s, RasRank& r) {
  if (!take(s, "GPU ")) return;
  const std::size_t m = s.find(" managed by process ");
  if (m == std::string_view::npos) return;
  r.gpu = std::string(s.substr(0, std::min<std::size_t>(m, 64)));
  std::string_view g = r.gpu;
  if (auto d = take_int(g)) r.cuda_dev = static_cast<int>(*d);
  s.remove_prefix(m + 20);
  if (auto pid = take_int(s)) r.pid = static_cast<long>(*pid);
  if (take(s, " on node ")) r.host = std::string(trim(s).substr(0, 256));
}

// "Rank 12 -- GPU ...", "Rank 5 has launched up to operation 641 -- GPU ...", "Rank 3 has not
// launched any operations -- ...", "Rank 3 has status INIT -- ...", "Rank 7 reported X -- ...".
struct RankLine {
  RasRank rank;
  std::optional<std::uint64_t> ops;  // a count printed on the line itself
  bool none_launched = false;
};
std::optional<RankLine> read_rank_line(std::string_view s) {
  if (!take(s, "Rank ")) return std::nullopt;
  RankLine out;
  auto rank = take_int(s);
  if (!rank || *rank < 0 || *rank > (1LL << 30)) return std::nullopt;
  out.rank.rank = static_cast<int>(*rank);
  const std::size_t dash = s.find(" -- ");
  std::string_view mid = s.substr(0, dash);
  if (take(mid, " has launched up to operation ")) {
    if (auto v = take_int(mid); v && *v >= 0) out.ops = static_cast<std::uint64_t>(*v);
  } else if (take(mid, " has not launched any operations")) {
    out.ops = 0;
    out.none_launched = true;
  } else if (take(mid, " has status ")) {
    out.rank.status = std::string(trim(mid).substr(0, 32));
  }
  if (dash != std::string_view::npos) read_where(s.substr(dash + 4), out.rank);
  return out;
}

// "Process 60004 on node 10.4.109.13 managing GPU 0" / "managing GPUs 0,1".
std::optional<RasRank> read_process_line(std::string_view s) {
  if (!take(s, "Process ")) return std::nullopt;
  RasRank r;
  auto pid = take_int(s);
  if (!pid) return std::nullopt;
  r.pid = static_cast<long>(*pid);
  if (!take(s, " on node ")) return std::nullopt;
  const std::size_t m = s.find(" managing GPU");
  r.host = std::string(s.substr(0, std::min<std::size_t>(m, 256)));
  if (m != std::string_view::npos) {
    s.remove_prefix(m + 13);
    take(s, "s");
    r.gpu = std::string(trim(s).substr(0, 64));
    std::string_view g = r.gpu;
    if (auto d = take_int(g)) r.cuda_dev = static_cast<int>(*d);
  }
  return r;
}

// "#0-0 (fa93daea854b060b) MISMATCH"
bool read_comm_header(std::string_view s, std::string& id, std::string& hash, std::string& what) {
  if (!starts_with(s, "#")) return false;
  const std::size_t open = s.find(" (");
  const std::size_t close = s.find(") ");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return false;
  hash = to_lower(s.substr(open + 2, close - open - 2));
  if (hash.empty() || hash.size() > 32) return false;
  id = std::string(s.substr(0, close + 1));
  what = std::string(trim(s.substr(close + 2)).substr(0, 64));
  return true;
}

RasComm& comm_by_hash(RasReport& r, const std::string& id, const std::string& hash) {
  for (RasComm& c : r.comms)
    if (c.hash == hash && !hash.empty()) return c;
  if (r.comms.size() >= kMaxComms) return r.comms.back();
  RasComm c;
  c.id = id;
  c.hash = hash;
  r.comms.push_back(std::move(c));
  return r.comms.back();
}

enum class Section { kPreamble, kSummary, kComms, kErrors, kWarnings };

RasReport parse_text(std::string_view text, const std::string& source) {
  RasReport r;
  r.source = source;
  r.format = "text";
  Section sec = Section::kPreamble;
  bool seen = false;  // a line only RAS prints
  bool table = false;
  std::string block;  // INCOMPLETE / DEAD / TIMEOUT at the top of Errors/Warnings
  RasComm* comm = nullptr;
  std::string comm_what;
  RasMismatch* mismatch = nullptr;
  bool summary_next_row = false;
  bool all_ok = true;
  int groups = 0;
  int line_no = 0;
  std::map<std::string, std::unordered_map<int, std::size_t>> rank_index;  // by hash
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    const Provenance here{source, line_no};
    if (starts_with(line, "NCCL version ") && line.find("compiled with CUDA") != line.npos) {
      std::string_view v = line.substr(13);
      r.nccl_version = std::string(v.substr(0, std::min<std::size_t>(v.find(' '), 32)));
      seen = true;
      continue;
    }
    if (line == "Job summary") {
      sec = Section::kSummary;
      seen = true;
      continue;
    }
    if (starts_with(line, "Group     Comms")) {
      sec = Section::kComms;
      table = true;
      seen = true;
      continue;
    }
    if (line == "No communicator data collected!") {
      r.flagged.push_back("No communicator data collected");
      sec = Section::kComms;
      seen = true;
      continue;
    }
    if (line == "Errors" || line == "Warnings") {
      sec = line == "Errors" ? Section::kErrors : Section::kWarnings;
      comm = nullptr;
      mismatch = nullptr;
      block.clear();
      seen = true;
      continue;
    }
    if (line.empty() || line.find_first_not_of('=') == std::string_view::npos) {
      if (line.empty()) block.clear();
      continue;
    }
    if (line.find("negative travel times were observed") != line.npos) {
      r.clocks_unsynchronized = true;
      r.flagged.push_back(clip(line));
      continue;
    }
    if (sec == Section::kSummary) {
      // The consistent job prints one header and one row; an inconsistent one prints rows per
      // node shape, then a totals header "(total)    (total)      (total)" and a row.
      if (starts_with(line, "(total)")) {
        summary_next_row = true;
        continue;
      }
      if (summary_next_row) {
        std::vector<std::string_view> w = split_ws(line);
        std::vector<int> v;
        for (auto x : w)
          if (auto n = parse_int(x)) v.push_back(static_cast<int>(*n));
        if (v.size() == 5) {
          r.nodes = v[0];
          r.processes = v[3];
          r.gpus = v[4];
        } else if (v.size() == 3) {
          r.nodes = v[0];
          r.processes = v[1];
          r.gpus = v[2];
        }
        summary_next_row = false;
        continue;
      }
      if (starts_with(line, "Node ") && line.find(" running process") != line.npos)
        r.flagged.push_back("Outlier: " + clip(line));
      continue;
    }
    if (sec == Section::kComms && table) {
      // "    0         1         4         8        32        32   RUNNING  MISMATCH"
      std::vector<std::string_view> w = split_ws(line);
      if (w.size() == 8 && parse_int(w[0])) {
        ++groups;
        const std::string errors(w[7].substr(0, 32));
        if (errors != "OK") all_ok = false;
        if (w[6] != "RUNNING") all_ok = false;
        if (r.comms.size() < kMaxComms) {
          RasComm c;
          c.id = "group " + std::string(w[0].substr(0, 16));
          c.nodes = static_cast<int>(parse_int(w[2]).value_or(0));
          c.size = static_cast<int>(parse_int(w[4]).value_or(0));
          c.status = std::string(w[6].substr(0, 16));
          c.errors = errors;
          c.where = here;
          // One row stands for "Comms in group" communicators of one shape; the hashes come
          // with the errors and warnings below.
          c.notes.push_back(std::string(w[1].substr(0, 16)) + " communicator(s) in group");
          r.comms.push_back(std::move(c));
        }
        continue;
      }
      if (!starts_with(line, "#")) continue;
    }
    if (sec != Section::kErrors && sec != Section::kWarnings) {
      if (starts_with(line, "Gathering data") || starts_with(line, "Communicators...")) seen = true;
      if (line.find("Warning: ") != line.npos) r.flagged.push_back(clip(line));
      continue;
    }
    // Errors and Warnings.
    std::string id, hash, what;
    if (read_comm_header(line, id, hash, what)) {
      // Drop the table's placeholder row for this shape once a hash is known: the header names
      // the group ("#G-i").
      comm = &comm_by_hash(r, id, hash);
      if (comm->where.source.empty()) comm->where = here;
      comm_what = what;
      mismatch = nullptr;
      block.clear();
      r.flagged.push_back(clip(line));
      continue;
    }
    if (comm == nullptr) {
      if (line == "INCOMPLETE" || line == "DEAD" || line == "TIMEOUT") {
        block = std::string(line);
        continue;
      }
      if (block == "TIMEOUT") {
        std::string_view s = line;
        if (take(s, "Encountered "))
          if (auto n = take_int(s)) r.timeouts = static_cast<int>(*n);
        r.flagged.push_back(clip(line));
        continue;
      }
      if (auto p = read_process_line(line)) {
        p->where = here;
        if (block == "DEAD") p->dead = true;
        auto& list = block == "DEAD" ? r.dead_processes : r.missing_processes;
        if (list.size() < kMaxRanksPerList) list.push_back(std::move(*p));
        continue;
      }
      if (!block.empty()) r.flagged.push_back(block + ": " + clip(line));
      continue;
    }
    // Lines under a communicator header.
    if (std::string_view s = line; take(s, "Communicator ranks have different ")) {
      if (starts_with(s, "status")) {
        mismatch = nullptr;
        comm->notes.push_back(clip(line));
        continue;
      }
      const std::size_t sp = s.find(" operation counts");
      if (sp == std::string_view::npos) continue;
      RasMismatch m;
      m.collective = std::string(s.substr(0, std::min<std::size_t>(sp, 32)));
      m.where = here;
      comm->mismatches.push_back(std::move(m));
      mismatch = &comm->mismatches.back();
      continue;
    }
    if (mismatch != nullptr) {
      std::string_view s = line;
      if (auto n = take_int(s)) {
        RasCountGroup g;
        g.ranks = static_cast<int>(*n);
        if (take(s, " ranks have launched up to operation ")) {
          if (auto v = take_int(s); v && *v >= 0) g.ops = static_cast<std::uint64_t>(*v);
          mismatch->groups.push_back(std::move(g));
        } else if (take(s, " ranks have not launched any operations")) {
          mismatch->groups.push_back(std::move(g));
        }
        continue;
      }
      if (auto rl = read_rank_line(line)) {
        rl->rank.where = here;
        if (rl->ops) {  // a rank alone at its count
          RasCountGroup g;
          g.ranks = 1;
          g.ops = *rl->ops;
          rl->rank.op_counts[mismatch->collective] = *rl->ops;
          g.listed.push_back(rl->rank);
          mismatch->groups.push_back(std::move(g));
        } else if (!mismatch->groups.empty()) {
          rl->rank.op_counts[mismatch->collective] = mismatch->groups.back().ops;
          if (mismatch->groups.back().listed.size() < kMaxRanksPerList)
            mismatch->groups.back().listed.push_back(rl->rank);
        }
        // A rank named under several collectives is one rank with several counts.
        auto& index = rank_index[comm->hash];
        auto known = index.find(rl->rank.rank);
        if (known == index.end()) {
          if (comm->ranks.size() < kMaxRanksPerList) {
            index[rl->rank.rank] = comm->ranks.size();
            comm->ranks.push_back(rl->rank);
          }
        } else {
          for (const auto& [k, v] : rl->rank.op_counts) comm->ranks[known->second].op_counts[k] = v;
        }
        continue;
      }
    }
    if (auto rl = read_rank_line(line)) {
      rl->rank.where = here;
      if (comm_what.find("INCOMPLETE") != std::string::npos &&
          comm->missing.size() < kMaxRanksPerList) {
        comm->missing.push_back(rl->rank);
      } else if (comm->ranks.size() < kMaxRanksPerList) {
        comm->ranks.push_back(rl->rank);
      }
      continue;
    }
    if (comm->notes.size() < kMaxNotes) comm->notes.push_back(clip(line));
  }
  if (!seen) throw InputError(source, 0, "not an ncclras report (no RAS header or table found)");
  r.all_ok =
      table && groups > 0 && all_ok && r.missing_processes.empty() && r.dead_processes.empty();
  // Table rows stand for groups of communicators; a row whose communicators are named below by
  // hash gives them its shape and goes; a row nothing names stays (its status, its size).
  std::vector<RasComm> kept;
  for (RasComm& c : r.comms) {
    if (c.hash.empty()) {
      // Copy the row's shape onto the communicators of its group named below ("#G-i").
      const std::string prefix = "#" + c.id.substr(6) + "-";
      bool named = false;
      for (RasComm& n : r.comms)
        if (!n.hash.empty() && starts_with(n.id, prefix)) {
          named = true;
          n.size = c.size;
          n.nodes = c.nodes;
          n.status = c.status;
          n.errors = c.errors;
        }
      if (named) continue;
    }
    kept.push_back(std::move(c));
  }
  r.comms = std::move(kept);
  return r;
}

std::string hash_text(const nlohmann::json& v) {
  if (!v.is_string()) return "";
  std::string h = to_lower(v.get<std::string>().substr(0, 40));
  if (starts_with(h, "0x")) h = h.substr(2);
  return h;
}

int json_int(const nlohmann::json& o, const char* key, int dflt = -1) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return dflt;
  const auto v = it->get<std::int64_t>();
  return v < -(1LL << 31) || v > (1LL << 31) - 1 ? dflt : static_cast<int>(v);
}

std::string json_str(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return "";
  return it->get<std::string>().substr(0, 256);
}

bool json_bool(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

RasRank json_rank(const nlohmann::json& o, const std::string& source) {
  RasRank r;
  r.rank = json_int(o, "rank");
  r.host = json_str(o, "host");
  r.pid = json_int(o, "pid");
  r.cuda_dev = json_int(o, "cuda_dev");
  r.gpu = r.cuda_dev >= 0 ? std::to_string(r.cuda_dev) : "";
  r.where = {source, 0};
  if (auto st = o.find("status"); st != o.end() && st->is_object()) {
    // init_state and async_error are ncclResult_t codes: 0 ncclSuccess, 7 ncclInProgress.
    const int init = json_int(*st, "init_state", 0);
    const int async = json_int(*st, "async_error", 0);
    r.async_error = async != 0 && async != 7;
    r.abort_flag = json_bool(*st, "abort_flag");
    r.unresponsive = json_bool(*st, "unresponsive");
    r.dead = json_bool(*st, "considered_dead");
    if (st->contains("init_state"))
      r.status = init == 0 ? (json_bool(*st, "finalize_called") ? "FINALIZE" : "RUNNING")
                           : (init == 7 ? "INIT" : "ERROR");
    if (r.abort_flag) r.status = "ABORT";
  }
  if (auto cc = o.find("collective_counts"); cc != o.end() && cc->is_object()) {
    for (auto it = cc->begin(); it != cc->end() && r.op_counts.size() < 32; ++it)
      if (it.value().is_number_unsigned() || it.value().is_number_integer())
        r.op_counts[it.key().substr(0, 32)] =
            it.value().is_number_unsigned() ? it.value().get<std::uint64_t>()
                                            : static_cast<std::uint64_t>(std::max<std::int64_t>(
                                                  0, it.value().get<std::int64_t>()));
  }
  return r;
}

RasReport parse_json(std::string_view text, const std::string& source) {
  const nlohmann::json j = parse_json_or_throw(text, source);
  if (!j.is_object() || !j.contains("communicators") || !j["communicators"].is_array())
    throw InputError(source, 1,
                     "JSON without a \"communicators\" array: not an `ncclras -f json` report");
  RasReport r;
  r.source = source;
  r.format = "json";
  r.nccl_version = json_str(j, "nccl_version").substr(0, 32);
  r.timestamp = json_str(j, "timestamp").substr(0, 32);
  if (auto ras = j.find("ras"); ras != j.end() && ras->is_object())
    r.timeouts = std::max(0, json_int(*ras, "timeouts_count", 0));
  bool ok = true;
  for (const nlohmann::json& c : j["communicators"]) {
    if (!c.is_object() || r.comms.size() >= kMaxComms) continue;
    RasComm comm;
    comm.hash = hash_text(c.value("hash", nlohmann::json()));
    comm.id = comm.hash;
    comm.size = std::max(0, json_int(c, "size", 0));
    comm.where = {source, 0};
    if (auto rs = c.find("ranks"); rs != c.end() && rs->is_array())
      for (const nlohmann::json& x : *rs)
        if (x.is_object() && comm.ranks.size() < kMaxRanksPerList)
          comm.ranks.push_back(json_rank(x, source));
    if (auto ms = c.find("missing_ranks"); ms != c.end() && ms->is_array())
      for (const nlohmann::json& x : *ms)
        if (x.is_object() && comm.missing.size() < kMaxRanksPerList)
          comm.missing.push_back(json_rank(x, source));
    comm.all_ranks_listed =
        comm.size > 0 && static_cast<int>(comm.ranks.size() + comm.missing.size()) >= comm.size;
    if (!comm.missing.empty()) {
      ok = false;
      r.flagged.push_back(comm.hash + ": missing data from " + std::to_string(comm.missing.size()) +
                          " rank(s)");
    }
    for (const RasRank& x : comm.ranks)
      if (x.async_error || x.abort_flag || x.status == "ERROR") ok = false;
    r.comms.push_back(std::move(comm));
  }
  r.all_ok = ok && r.timeouts == 0;
  return r;
}

std::string_view json_start(std::string_view text) {
  const std::size_t b = text.find_first_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string_view() : text.substr(b);
}

}  // namespace

bool looks_like_ras_output(std::string_view text) {
  const std::string_view head = text.substr(0, 1 << 16);
  const std::string_view j = json_start(head);
  if (!j.empty() && j[0] == '{')
    return head.find("\"communicators\"") != std::string_view::npos &&
           head.find("\"nccl_version\"") != std::string_view::npos;
  return head.find("Group     Comms     Nodes") != std::string_view::npos ||
         (head.find("Job summary\n===========") != std::string_view::npos &&
          head.find("compiled with CUDA") != std::string_view::npos) ||
         head.find("Communicator ranks have different ") != std::string_view::npos;
}

RasReport parse_ras_output(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  const std::string_view j = json_start(text);
  if (!j.empty() && j[0] == '{') return parse_json(text, source);
  return parse_text(text, source);
}

}  // namespace trainready
