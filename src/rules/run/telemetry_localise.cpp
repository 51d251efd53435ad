#include "rules/run/telemetry_localise.h"

#include <algorithm>
#include <set>

#include "core/text.h"
#include "queries/node_queries.h"

namespace trainready {
namespace {

// RAS prints hashes as %016lx (text) or 0x%lx (JSON); the Inspector as "0x..." too.
std::string norm_hash(std::string h) {
  h = to_lower(h);
  if (h.rfind("0x", 0) == 0) h = h.substr(2);
  const std::size_t nz = h.find_first_not_of('0');
  return nz == std::string::npos ? "0" : h.substr(nz);
}

std::string short_hash_of(const std::string& h) { return h.substr(0, 16); }

void ras_json_comm(const RasComm& c, const std::string& source, Localisation& out) {
  std::set<std::string> colls;
  for (const RasRank& r : c.ranks)
    for (const auto& [k, v] : r.op_counts) colls.insert(k);
  for (const std::string& coll : colls) {
    std::uint64_t hi = 0;
    for (const RasRank& r : c.ranks) hi = std::max(hi, ras_count(r, coll));
    BehindGroup g;
    g.source = "RAS";
    g.comm = short_hash_of(c.hash);
    g.comm_size = c.size;
    g.collective = coll;
    g.ahead_at = hi;
    g.behind_at = hi;
    for (const RasRank& r : c.ranks) {
      const std::uint64_t n = ras_count(r, coll);
      if (n == hi) {
        ++g.ahead_count;
        if (g.ahead_ranks.size() < 8) g.ahead_ranks.push_back(r.rank);
        continue;
      }
      g.behind_at = std::min(g.behind_at, n);
      g.behind.push_back({r.rank, r.host, r.pid, r.cuda_dev, ""});
      ++g.behind_count;
    }
    if (g.behind_count == 0) continue;
    g.where.push_back({source, 0});
    out.behind.push_back(std::move(g));
  }
}

void ras_text_comm(const RasComm& c, Localisation& out) {
  for (const RasMismatch& m : c.mismatches) {
    if (m.groups.size() < 2) continue;
    std::uint64_t hi = 0;
    for (const RasCountGroup& x : m.groups) hi = std::max(hi, x.ops);
    BehindGroup g;
    g.source = "RAS";
    g.comm = c.hash;
    g.comm_size = c.size;
    g.collective = m.collective;
    g.ahead_at = hi;
    g.behind_at = hi;
    std::vector<int> listed_ahead;
    bool ahead_fully_listed = true;
    for (const RasCountGroup& x : m.groups) {
      if (x.ops == hi) {
        g.ahead_count += x.ranks;
        for (const RasRank& r : x.listed) {
          listed_ahead.push_back(r.rank);
          if (g.ahead_ranks.size() < 8) g.ahead_ranks.push_back(r.rank);
        }
        if (static_cast<int>(x.listed.size()) < x.ranks) ahead_fully_listed = false;
        continue;
      }
      g.behind_at = std::min(g.behind_at, x.ops);
      g.behind_count += x.ranks;
      for (const RasRank& r : x.listed) g.behind.push_back({r.rank, r.host, r.pid, r.cuda_dev, ""});
    }
    if (g.behind_count == 0) continue;
    // RAS lists the minority only (NVIDIA/nccl#1911): when the ranks behind are the majority,
    // they are every rank but those it listed ahead.
    if (static_cast<int>(g.behind.size()) < g.behind_count && ahead_fully_listed &&
        !listed_ahead.empty()) {
      std::sort(listed_ahead.begin(), listed_ahead.end());
      std::string list;
      for (std::size_t i = 0; i < listed_ahead.size() && i < 8; ++i)
        list += (i ? ", " : "") + std::to_string(listed_ahead[i]);
      if (listed_ahead.size() > 8) list += ", ...";
      g.unnamed = "every rank but " + list;
    }
    g.where.push_back(m.where);
    out.behind.push_back(std::move(g));
  }
}

struct FrRankView {
  int rank = -1;
  const FrDump* dump = nullptr;
  const FrProcessGroup* pg = nullptr;
  std::int64_t enqueued = -1;
  std::int64_t completed = -1;
};

const FrEntry* fr_entry(const FrDump& d, const std::string& pg_id, std::int64_t seq) {
  for (auto it = d.entries.rbegin(); it != d.entries.rend(); ++it)
    if (it->pg_id == pg_id && !it->is_p2p && it->collective_seq_id == seq) return &*it;
  return nullptr;
}

void flight_recorder(const std::vector<FrDump>& dumps, Localisation& out) {
  std::map<std::string, std::vector<FrRankView>> groups;
  for (const FrDump& d : dumps) {
    for (const FrProcessGroup& g : d.groups) {
      FrRankView v;
      v.rank = d.rank;
      v.dump = &d;
      v.pg = &g;
      v.enqueued = g.last_enqueued;
      v.completed = g.last_completed;
      if (v.enqueued < 0)  // no pg_status: the newest collective entry of the group
        for (const FrEntry& e : d.entries)
          if (e.pg_id == g.id && !e.is_p2p) v.enqueued = std::max(v.enqueued, e.collective_seq_id);
      if (v.enqueued < 0) continue;
      groups[g.name.empty() ? g.id : g.name].push_back(v);
    }
  }
  for (auto& [key, ranks] : groups) {
    if (ranks.size() < 2) continue;
    std::int64_t hi = -1;
    for (const FrRankView& v : ranks) hi = std::max(hi, v.enqueued);
    const FrRankView* ahead = nullptr;
    BehindGroup g;
    g.source = "Flight Recorder";
    const FrProcessGroup& pg = *ranks.front().pg;
    g.comm = "process group " + (pg.name.empty() ? pg.id : pg.name) +
             (pg.desc.empty() ? "" : " (" + pg.desc + ")");
    g.comm_size = static_cast<int>(pg.ranks.size());
    g.ahead_at = static_cast<std::uint64_t>(hi);
    g.behind_at = static_cast<std::uint64_t>(hi);
    for (const FrRankView& v : ranks) {
      if (v.enqueued == hi) {
        if (!ahead) ahead = &v;
        ++g.ahead_count;
        if (g.ahead_ranks.size() < 8) g.ahead_ranks.push_back(v.rank);
        continue;
      }
      g.behind_at = std::min(g.behind_at, static_cast<std::uint64_t>(v.enqueued));
      BehindGroup::Rank r;
      r.rank = v.rank;
      if (const FrEntry* e = fr_entry(*v.dump, v.pg->id, v.enqueued))
        r.last = e->profiling_name + " #" + std::to_string(v.enqueued) + " (" + e->state + ")";
      else
        r.last = "#" + std::to_string(v.enqueued);
      g.behind.push_back(std::move(r));
      ++g.behind_count;
      g.where.push_back({v.dump->source, 0});
    }
    if (ahead) {
      const FrEntry* e = fr_entry(*ahead->dump, ahead->pg->id, hi);
      g.collective = e ? e->profiling_name : "collective";
      g.where.insert(g.where.begin(), {ahead->dump->source, 0});
    }
    if (g.behind_count > 0) {
      out.behind.push_back(std::move(g));
      continue;
    }
    // Every rank entered the same collective: did any finish it?
    bool none_done = true;
    for (const FrRankView& v : ranks)
      if (v.completed >= hi || v.completed < 0) none_done = false;
    if (none_done && ahead) {
      const FrEntry* e = fr_entry(*ahead->dump, ahead->pg->id, hi);
      out.stuck_inside.push_back(g.comm + ": all " + std::to_string(ranks.size()) +
                                 " ranks entered " + (e ? e->profiling_name : "collective") + " #" +
                                 std::to_string(hi) + " and none completed it");
    }
  }
}

}  // namespace

Localisation localise(const CollectiveProgressFacts& f) {
  Localisation out;
  bool all_ok = !f.ras.empty();
  for (const RasReport& r : f.ras) {
    ++out.ras_reports;
    if (!r.all_ok) all_ok = false;
    for (const RasComm& c : r.comms) {
      if (r.format == "json")
        ras_json_comm(c, r.source, out);
      else
        ras_text_comm(c, out);
      for (const RasRank& m : c.missing)
        out.silent.push_back({short_hash_of(c.hash), m.rank, m.host, m.pid, m.dead, m.where});
    }
    for (const RasRank& p : r.missing_processes)
      out.silent.push_back({"", -1, p.host, p.pid, false, p.where});
    for (const RasRank& p : r.dead_processes)
      out.silent.push_back({"", -1, p.host, p.pid, true, p.where});
  }
  flight_recorder(f.flight_recorder, out);
  out.ras_all_ok = all_ok && out.behind.empty() && out.silent.empty();
  return out;
}

HostNames host_names(const CollectiveProgressFacts& f) {
  HostNames h;
  std::map<std::pair<std::string, int>, std::string> insp;  // (comm, rank) -> host name
  for (const InspectorSeries& s : f.inspector) {
    if (s.host.empty()) continue;
    insp[{norm_hash(s.comm_id), s.rank}] = s.host;
    if (s.nranks > h.world_size) {
      h.world_size = s.nranks;
      h.by_world_rank.clear();
    }
    if (s.nranks == h.world_size && s.rank >= 0) h.by_world_rank[s.rank] = s.host;
  }
  for (const RasReport& r : f.ras)
    for (const RasComm& c : r.comms) {
      auto note = [&](const RasRank& x) {
        if (x.host.empty()) return;
        auto it = insp.find({norm_hash(c.hash), x.rank});
        if (it != insp.end()) h.by_address[x.host] = it->second;
        // The largest communicator's ranks, where no host name is known for them.
        if (c.size >= h.world_size && x.rank >= 0 && !h.by_world_rank.count(x.rank)) {
          h.world_size = c.size;
          h.by_world_rank[x.rank] = x.host;
        }
      };
      for (const RasRank& x : c.ranks) note(x);
      for (const RasRank& x : c.missing) note(x);
    }
  return h;
}

std::string display_host(const HostNames& h, const std::string& host, int world_rank) {
  if (!host.empty()) {
    auto it = h.by_address.find(host);
    return it == h.by_address.end() || it->second == host ? host : it->second + " (" + host + ")";
  }
  if (world_rank >= 0) {
    auto it = h.by_world_rank.find(world_rank);
    if (it != h.by_world_rank.end()) return display_host(h, it->second, -1);
  }
  return "";
}

namespace {

// "node-3" matches "node-3", "node-3.cluster.local", "NODE-3", and "node-3 (10.0.0.4)".
bool same_host(std::string a, std::string b) {
  auto cut = [](std::string s) {
    s = to_lower(s);
    if (auto p = s.find(" ("); p != std::string::npos) s = s.substr(0, p);
    return s;
  };
  a = cut(a);
  b = cut(b);
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  auto first = [](const std::string& s) { return s.substr(0, s.find('.')); };
  // Addresses compare whole; names by their first label.
  const bool a_ip = a.find_first_not_of("0123456789.:") == std::string::npos;
  const bool b_ip = b.find_first_not_of("0123456789.:") == std::string::npos;
  return !a_ip && !b_ip && first(a) == first(b);
}

}  // namespace

std::vector<std::string> node_paths(const std::string& host, const std::vector<NodeFacts>* nodes,
                                    const WatchFacts* watch, std::string& which) {
  std::vector<std::string> out;
  // The host as printed may carry its address in brackets: try both parts.
  std::vector<std::string> keys{host};
  if (auto p = host.find(" ("); p != std::string::npos)
    keys.push_back(host.substr(p + 2, host.size() - p - 3));
  auto matches = [&](const std::string& name) {
    for (const std::string& k : keys)
      if (same_host(k, name)) return true;
    return false;
  };
  if (nodes)
    for (const NodeFacts& n : *nodes) {
      if (!matches(n.label) && !(n.host.ok() && matches(n.host->hostname))) continue;
      which = n.root_display.empty() ? n.label : n.root_display;
      if (n.ib.ok())
        for (const PortRef& p : infiniband_ports(*n.ib)) {
          if (!p.port->state.ok() || p.port->state.value == "ACTIVE") continue;
          std::string s = "IB port " + p.name() + " " + p.port->state.value;
          if (p.port->phys_state.ok()) s += " (" + p.port->phys_state.value + ")";
          out.push_back(s);
        }
      if (n.gpus.ok())
        for (const Gpu& g : n.gpus->gpus) {
          if (g.nvlink_links && g.nvlink_active && *g.nvlink_active < *g.nvlink_links)
            out.push_back("NVLink " + std::to_string(*g.nvlink_active) + "/" +
                          std::to_string(*g.nvlink_links) + " links active on GPU " +
                          std::to_string(g.index));
          if (g.ecc_uncorrected_volatile && *g.ecc_uncorrected_volatile > 0)
            out.push_back("GPU " + std::to_string(g.index) + " uncorrected ECC errors");
        }
      if (n.kernel_log.ok() && !n.kernel_log->xids.empty()) {
        std::map<int, int> codes;
        for (const XidEvent& x : n.kernel_log->xids)
          if (!x.earlier_boot) ++codes[x.code];
        for (const auto& [code, count] : codes)
          out.push_back("Xid " + std::to_string(code) + " x" + std::to_string(count));
      }
      break;
    }
  if (watch)
    for (const WatchNodeFacts& w : watch->nodes) {
      if (!matches(w.node)) continue;
      if (which.empty()) which = w.node;
      // The label that held the node longest, other than compute.
      const WatchLabelShare* top = nullptr;
      for (const WatchLabelShare& l : w.labels)
        if (l.label != "compute" && l.time_share > 0.2 && (!top || l.time_share > top->time_share))
          top = &l;
      if (top) {
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f %%", top->time_share * 100);
        out.push_back("watch: " + std::string(pct) + " " + top->label +
                      (top->detail.empty() ? "" : " (" + top->detail + ")"));
      }
      break;
    }
  return out;
}

}  // namespace trainready
