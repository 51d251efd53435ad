#include "report/text/run_summary.h"

#include "core/units.h"
#include "facts/nccl_host_label.h"

#include <cstdio>
#include <map>
#include <set>

namespace trainready {
namespace {

template <class Set>
std::string join(const Set& s, std::size_t max = 8) {
  std::string out;
  std::size_t i = 0;
  for (const auto& x : s) {
    if (i == max) return out + " and " + std::to_string(s.size() - max) + " more";
    out += (i++ ? ", " : "") + x;
  }
  return out;
}

std::string num(double v, const char* unit) {
  char b[48];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, unit);
  return b;
}

std::string bytes(std::uint64_t b) { return format_bytes_binary(b); }

}  // namespace

SummaryLines summarize_nccl_log(const NcclRunFacts& f) {
  SummaryLines out;
  std::string lines =
      std::to_string(f.lines) + " lines, " + std::to_string(f.nccl_lines) + " from NCCL";
  // The unrecognised lines are NCCL lines of a kind no reader here takes (counted among them).
  if (f.unknown_lines) lines += " (" + std::to_string(f.unknown_lines) + " of them not recognised)";
  if (f.garbled_lines)
    lines +=
        ", " + std::to_string(f.garbled_lines) + " NCCL record(s) cut short by concurrent writers";
  if (f.truncated_lines) lines += ", " + std::to_string(f.truncated_lines) + " cut (too long)";
  if (f.wrap_joined && f.wrap_columns)
    lines += ", " + std::to_string(f.wrap_joined) + " piece(s) of lines a terminal cut at " +
             std::to_string(f.wrap_columns) + " columns joined back";
  else if (f.wrap_joined)
    lines += ", " + std::to_string(f.wrap_joined) +
             " piece(s) of a line cut inside a word or NCCL's head joined back";
  if (f.binary_junk) lines += ", binary bytes seen";
  if (f.folded_records)
    lines += ", " + std::to_string(f.folded_records) +
             " record(s) of rank streams past the first " + std::to_string(f.stream_cap) +
             " folded into one unnamed stream (memory bound)";
  if (f.failure_info_folded)
    lines += ", " + std::to_string(f.failure_info_folded) +
             " failure-worded INFO line(s) not kept (kept: the first, those around each "
             "warning, the last)";
  out.emplace_back("log", std::to_string(f.files.size()) + " file(s), " + lines);
  std::set<std::string> vs;
  for (const auto& [v, l] : f.versions) vs.insert(v);
  if (!f.rccl_versions.empty()) {
    // RCCL prints its own version instead of NCCL's (the facts keep the two apart).
    std::set<std::string> rs;
    for (const auto& [v, l] : f.rccl_versions) rs.insert(v);
    std::string r = join(rs) + " (AMD's fork of NCCL";
    if (!f.rocm_versions.empty()) r += "; ROCm " + join(f.rocm_versions, 3);
    r += "); NCCL's fixed bugs are not matched against it";
    out.emplace_back("RCCL", r);
    if (!vs.empty()) out.emplace_back("NCCL", join(vs));
  } else if (f.rccl_mark && vs.empty()) {
    out.emplace_back("RCCL", "version not printed (AMD's fork of NCCL, as " +
                                 f.rccl_mark->where.str() +
                                 " shows); NCCL's fixed bugs are not matched against it");
  } else {
    out.emplace_back("NCCL", vs.empty() ? "version not printed" : join(vs));
  }
  std::string net = f.networks.empty() ? "not printed" : join(f.networks);
  if (!f.plugin_messages.empty()) net += "; " + f.plugin_messages.front().text;
  out.emplace_back("network", net);
  const auto hosts = f.hosts();
  // Lines whose head names no host ("[1] NCCL WARN", a launcher's "201: :41367:41367 [1]").
  const bool unnamed = hosts.size() == 1 && *hosts.begin() == kUnprefixedHost;
  std::size_t gpus = f.streams.size();
  // No NCCL line with a "host:pid:tid [dev]" head: say so rather than "0 rank stream(s)" above
  // an nccl-tests device list that names its ranks.
  std::string ranks = gpus == 0 ? std::string("no NCCL line names its host:pid:device")
                      : unnamed
                          ? std::to_string(gpus) + " rank stream(s) (pid:device), no host named"
                          : std::to_string(gpus) + " rank stream(s) (host:pid:device) on " +
                                std::to_string(hosts.size()) + " host(s)";
  if (!hosts.empty() && !unnamed) ranks += ": " + join(hosts, 6);
  if (gpus == 0 && f.nccl_tests_ranks > 0)
    ranks += "; nccl-tests lists " + std::to_string(f.nccl_tests_ranks) + " rank(s)";
  out.emplace_back("ranks", ranks);
  for (const auto& [id, c] : f.comms) {
    std::string s = c.id + ": " + std::to_string(c.nranks) + " ranks";
    if (c.nnodes > 0) s += " on " + std::to_string(c.nnodes) + " node(s)";
    s += ", " + std::to_string(c.ranks_complete.size()) + " reached Init COMPLETE";
    if (!c.ranks_started.empty()) s += " (" + std::to_string(c.ranks_started.size()) + " started)";
    if (c.ring_channels > 0) s += "; " + std::to_string(c.ring_channels) + " ring channel(s)";
    if (c.graph_file_channels >= 0)
      s += "; " + std::to_string(c.graph_file_channels) + " channel(s) from NCCL_GRAPH_FILE";
    out.emplace_back("comm", s);
  }
  std::set<std::string> bus;
  for (const auto& [k, s] : f.streams) {
    if (!s.bus_id.empty()) bus.insert(s.bus_id);
  }
  if (!bus.empty()) out.emplace_back("GPUs", "bus ids " + join(bus, 8));
  for (const auto& [k, t] : f.transports) {
    out.emplace_back(
        "transport",
        k + ": " + std::to_string(t.connections) + " connection line(s) on " +
            std::to_string(t.host_total ? t.host_total : t.hosts.size()) + " host(s)" +
            (t.host_total > t.hosts.size() ? " (first 64 by name: " + join(t.hosts, 6) + ")" : ""));
  }
  for (const auto& d : f.net_devices) {
    std::string s = d.name + (d.port ? ":" + std::to_string(d.port) : "") +
                    (d.link_layer.empty() ? "" : " " + d.link_layer);
    if (d.speed_gbps > 0) s += ", " + num(d.speed_gbps, "Gb/s");
    if (d.gdr) s += *d.gdr ? ", GPUDirect RDMA enabled" : ", GPUDirect RDMA disabled";
    if (!d.gdr_reason.empty()) s += " " + d.gdr_reason;
    out.emplace_back("HCA", s);
  }
  if (f.ib_no_device) out.emplace_back("HCA", "none: " + f.ib_no_device->text);
  for (const auto& l : f.socket_interfaces) out.emplace_back("socket", l.text);
  for (const auto& [k, v] : f.env) out.emplace_back("env", k + "=" + v.value);
  for (const auto& l : f.topology_files) out.emplace_back("topology", l.text);
  if (!f.algorithms.empty() || !f.protocols.empty())
    out.emplace_back("algorithms",
                     join(f.algorithms) +
                         (f.protocols.empty() ? "" : "; protocols " + join(f.protocols)) +
                         (f.tuning_table ? "; tuning table printed" : ""));
  std::size_t shown = 0;
  for (const auto& g : f.searches) {
    if (shown++ == 6) {
      out.emplace_back("search", "and " + std::to_string(f.searches.size() - 6) + " more");
      break;
    }
    out.emplace_back("search", describe_search(g));
  }
  // The largest size per collective: what the bandwidth-bound end of a run used.
  std::map<std::string, const NcclTuningChoice*> largest;
  for (const auto& [k, t] : f.tuning) {
    const NcclTuningChoice*& l = largest[t.collective];
    if (!l || t.bytes > l->bytes) l = &t;
  }
  for (const auto& [c, t] : largest) {
    std::string s = (c.empty() ? std::string("(name not printed)") : c) + " at " + bytes(t->bytes) +
                    ": " + t->algo + "/" + t->proto;
    if (t->channel_lo >= 0)
      s += " on channels " + std::to_string(t->channel_lo) + ".." + std::to_string(t->channel_hi);
    std::size_t sizes = 0;
    for (const auto& [k, u] : f.tuning) sizes += u.collective == c ? 1 : 0;
    s += " (" + std::to_string(sizes) + " size(s) logged)";
    out.emplace_back("tuning", s);
  }
  const NcclDiagFacts& g = f.diagnostics;
  if (g.p2p_summary)
    out.emplace_back("diag p2p", std::to_string(g.p2p_passed) + "/" + std::to_string(g.p2p_tested) +
                                     " directed GPU pairs passed NCCL's own check");
  if (!g.results.empty() || g.ras_reports > 0)
    out.emplace_back("diag", std::to_string(g.results.size()) +
                                 " result line(s) of NCCL's own diagnostics, " +
                                 std::to_string(g.flagged()) + " flagged");
  const std::string why = f.multi_node_evidence();
  // A log that names no host (a framework's lines, a pasted error) shows nothing of the nodes.
  bool no_host = hosts.empty() ? f.host_count == 0 : unnamed;
  for (const auto& [h, profile] : f.host_profiles)
    if (!h.empty() && h != kUnprefixedHost) no_host = false;
  // One host named, but a communicator's other ranks are not in the log: they may be elsewhere.
  const NcclCommunicator* beyond = why.empty() && !no_host ? f.comm_beyond_log() : nullptr;
  std::string inter = "no (one node, as far as the log shows)";
  if (!why.empty())
    inter = "yes: " + why;
  else if (no_host)
    inter = "not shown (the log names no host)";
  else if (beyond)
    inter = "not shown: the log names one node, but communicator " + beyond->id + " has " +
            std::to_string(beyond->nranks) + " ranks and the log holds " +
            std::to_string(beyond->ranks_in_log()) + " of them";
  out.emplace_back("inter-node", inter);
  return out;
}

SummaryLines summarize_nccl_tests(const NcclTestsFacts& t, const BusbwExpectation* e) {
  SummaryLines out;
  std::string what = t.collective.empty() ? std::string("collective not printed") : t.collective;
  if (!t.tests_version.empty()) what += ", " + t.tests_version;
  if (!t.nccl_version.empty()) what += ", NCCL " + t.nccl_version;
  what += t.from_json ? " (JSON)" : "";
  out.emplace_back("test", what);
  if (!t.devices.empty()) {
    std::map<std::string, int> models;
    for (const auto& d : t.devices) ++models[d.name];
    std::string g;
    for (const auto& [m, n] : models) g += (g.empty() ? "" : ", ") + std::to_string(n) + " x " + m;
    const std::string hosts = std::to_string(t.nodes()) + " host(s); devices listed: " + g;
    out.emplace_back("ranks", t.runs_printed() > 1 ? std::to_string(t.ranks()) + " in each of " +
                                                         std::to_string(t.runs_printed()) +
                                                         " device lists, on " + hosts
                                                   : std::to_string(t.ranks()) + " on " + hosts);
  } else {
    out.emplace_back("ranks", "not printed ('Using devices' lines missing)");
  }
  out.emplace_back("sizes", std::to_string(t.rows.size()) + " row(s)" +
                                (t.rows.empty() ? ""
                                                : ", " + bytes(t.rows.front().size_bytes) + " .. " +
                                                      bytes(t.rows.back().size_bytes)));
  if (const NcclTestsRow* big = t.largest()) {
    out.emplace_back("busbw", num(*big->busbw(), "GB/s") + " at the largest size (" +
                                  bytes(big->size_bytes) + "); peak " +
                                  num(*t.peak_busbw(), "GB/s"));
  }
  if (t.avg_busbw)
    out.emplace_back("avg busbw", num(*t.avg_busbw, "GB/s") +
                                      " (nccl-tests' average over every size, small ones included: "
                                      "not a measure of the interconnect)");
  if (e) {
    // Which size the figure is for, and why: a table from another cloud matched by its GPU
    // names gets Azure's network figures, and its reader must see that assumption.
    if (e->sku) out.emplace_back("vm size", e->sku->name + " (" + e->sku_origin + ")");
    if (e->known && t.collective.empty() && !e->collective.empty())
      out.emplace_back("collective", "not printed; judged as " + e->collective);
    if (e->known) {
      std::string s = num(e->expected_gbytes, "GB/s") + ": " + e->formula;
      if (const NcclTestsRow* big = t.largest()) {
        char r[32];
        std::snprintf(r, sizeof r, " -> ratio %.2f", *big->busbw() / e->expected_gbytes);
        s += r;
      }
      out.emplace_back("expected", s);
    } else {
      out.emplace_back("expected", "unknown: " + e->why_unknown);
    }
  }
  if (t.truncated)
    out.emplace_back(
        "note",
        "no summary lines (Avg bus bandwidth / Out of bounds): an excerpt or a run that stopped");
  for (const auto& n : t.notes) out.emplace_back("note", n);
  return out;
}

SummaryLines summarize_nccl_telemetry(const CollectiveProgressFacts& f) {
  SummaryLines out;
  for (const RasReport& r : f.ras) {
    std::size_t ranks = 0;
    for (const RasComm& c : r.comms) ranks += c.ranks.size();
    out.emplace_back("ncclras",
                     r.source + " (" + r.format +
                         (r.nccl_version.empty() ? "" : ", NCCL " + r.nccl_version) +
                         "): " + std::to_string(r.comms.size()) + " communicator(s)" +
                         (ranks ? ", " + std::to_string(ranks) + " rank(s) listed" : "") +
                         (r.all_ok ? "; RAS flags no error and no missing rank" : ""));
  }
  if (!f.flight_recorder.empty()) {
    std::set<std::string> versions;
    std::size_t entries = 0;
    for (const FrDump& d : f.flight_recorder) {
      versions.insert(d.version);
      entries += d.entries.size();
    }
    out.emplace_back("flight rec", std::to_string(f.flight_recorder.size()) + " dump(s), format " +
                                       join(versions) + ", " + std::to_string(entries) +
                                       " entries");
  }
  if (!f.inspector.empty()) {
    std::set<std::string> comms;
    std::set<std::string> hosts;
    for (const InspectorSeries& s : f.inspector) {
      comms.insert(s.comm_id);
      if (!s.host.empty()) hosts.insert(s.host);
    }
    out.emplace_back("inspector", std::to_string(f.inspector.size()) + " series, " +
                                      std::to_string(comms.size()) + " communicator(s) on " +
                                      std::to_string(hosts.size()) + " host(s)");
  }
  for (const std::string& n : f.notes) out.emplace_back("note", n);
  return out;
}

}  // namespace trainready
