#include "codec/nccl_facts_json.h"

#include <algorithm>

namespace trainready {
namespace {

using nlohmann::json;

json where(const Provenance& p) {
  json j{{"source", p.source}};
  j["line"] = p.line > 0 ? json(p.line) : json(nullptr);
  return j;
}

json log_line(const LogLine& l) {
  json j = where(l.where);
  j["text"] = l.text;
  return j;
}

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json diagnostics(const NcclDiagFacts& g) {
  json edges = json::array();
  for (const NcclDiagEdge& e : g.edges)
    edges.push_back({{"failure", e.failure},
                     {"reason", e.reason},
                     {"src_rank", e.src_rank},
                     {"src_cuda_dev", e.src_dev},
                     {"dst_rank", e.dst_rank},
                     {"dst_cuda_dev", e.dst_dev},
                     {"path", e.path},
                     {"handle", e.handle},
                     {"advice", e.advice},
                     {"process", e.host},
                     {"evidence", log_line(e.line)}});
  json results = json::array();
  for (const NcclDiagResult& x : g.results) {
    json r = {{"check", diag_check_key(x.check)},
              {"check_name", x.check_name},
              {"verdict", diag_verdict_key(x.verdict)},
              {"what", x.what},
              {"ranks", x.ranks},
              {"detail", x.detail},
              {"process", x.host},
              {"evidence", log_line(x.line)}};
    if (x.check == NcclDiagCheck::kXid) {
      r["code"] = x.code >= 0 ? json(x.code) : json(nullptr);
      r["node"] = x.node;
      r["count"] = x.count;
    }
    results.push_back(std::move(r));
  }
  json p2p = nullptr;
  if (g.p2p_summary)
    p2p = {{"tested", g.p2p_tested},
           {"passed", g.p2p_passed},
           {"skipped_indirect", g.p2p_skipped_indirect},
           {"evidence", log_line(*g.p2p_summary)}};
  return {{"lines", g.lines},
          {"active_reports", g.active_reports},
          {"ras_reports", g.ras_reports},
          {"p2p", p2p},
          {"failed_edges", edges},
          {"failed_edge_lines", g.edge_lines},
          {"results", results},
          {"result_lines", g.result_lines},
          {"ok_lines", g.ok_lines},
          {"active_done", g.active_done ? log_line(*g.active_done) : json(nullptr)},
          {"ras_done", g.ras_done ? log_line(*g.ras_done) : json(nullptr)},
          {"client_refusal", g.client_refusal ? log_line(*g.client_refusal) : json(nullptr)}};
}

}  // namespace

json to_json(const NcclRunFacts& f) {
  json j;
  j["diagnostics"] = diagnostics(f.diagnostics);
  j["files"] = f.files;
  j["lines"] = {{"total", f.lines},
                {"nccl", f.nccl_lines},
                {"unknown", f.unknown_lines},
                {"garbled", f.garbled_lines},
                {"truncated", f.truncated_lines},
                {"binary_junk", f.binary_junk}};
  if (f.folded_records)
    j["lines"]["folded"] = {{"records", f.folded_records}, {"stream_cap", f.stream_cap}};
  if (f.failure_info_folded) j["lines"]["failure_info_folded"] = f.failure_info_folded;
  if (f.wrap_joined)
    j["lines"]["hard_wrap"] = {{"columns", f.wrap_columns}, {"pieces_joined", f.wrap_joined}};
  json versions = json::array();
  for (const auto& [v, l] : f.versions) {
    json x = log_line(l);
    x["version"] = v;
    auto it = f.version_hosts.find(v);
    x["hosts"] = it == f.version_hosts.end() ? json::array() : json(it->second);
    versions.push_back(x);
  }
  j["versions"] = versions;
  if (!f.rccl_versions.empty()) {
    json rccl = json::array();
    for (const auto& [v, l] : f.rccl_versions) {
      json x = log_line(l);
      x["version"] = v;
      rccl.push_back(x);
    }
    j["rccl_versions"] = rccl;
  }
  if (f.rccl_mark) j["rccl_mark"] = log_line(*f.rccl_mark);
  if (!f.rocm_versions.empty()) j["rocm_versions"] = f.rocm_versions;
  j["network"] = f.net_plugin;
  j["networks"] = f.networks;
  json plugin = json::array();
  for (const auto& l : f.plugin_messages) plugin.push_back(log_line(l));
  j["plugin_messages"] = plugin;
  json devs = json::array();
  for (const auto& d : f.net_devices) {
    devs.push_back({{"name", d.name},
                    {"port", d.port},
                    {"link_layer", d.link_layer},
                    {"speed_gbits_per_s", d.speed_gbps > 0 ? json(d.speed_gbps) : json(nullptr)},
                    {"gpudirect_rdma", opt(d.gdr)},
                    {"gpudirect_rdma_reason", d.gdr_reason},
                    {"network", d.net.empty() ? json(nullptr) : json(d.net)},
                    {"evidence", log_line(d.example)}});
  }
  j["net_devices"] = devs;
  json socks = json::array();
  for (const auto& l : f.socket_interfaces) socks.push_back(log_line(l));
  j["socket_interfaces"] = socks;
  j["ib_no_device"] = f.ib_no_device ? log_line(*f.ib_no_device) : json(nullptr);
  j["ibverbs_missing"] = f.ibverbs_missing ? log_line(*f.ibverbs_missing) : json(nullptr);
  j["net_type_mismatch"] = f.net_type_mismatch ? log_line(*f.net_type_mismatch) : json(nullptr);
  j["ofi_plugin_warning"] = f.ofi_plugin_warning ? log_line(*f.ofi_plugin_warning) : json(nullptr);
  j["roce_gids"] = {{"link_local", f.roce_gid_link_local},
                    {"other", f.roce_gid_other},
                    {"first_link_local",
                     f.roce_link_local_gid ? log_line(*f.roce_link_local_gid) : json(nullptr)}};
  json mtus = json::array();
  for (const auto& m : f.ib_port_mtus)
    mtus.push_back({{"host", m.host},
                    {"port", m.port},
                    {"mtu_bytes", m.mtu_bytes},
                    {"evidence", log_line(m.line)}});
  j["ib_port_mtus"] = mtus;
  j["ib_ports_folded"] = f.ib_ports_folded;
  j["gdr_disabled_by_distance"] =
      f.gdr_disabled_by_distance ? log_line(*f.gdr_disabled_by_distance) : json(nullptr);
  json env = json::array();  // an array, so that every object key stays snake_case
  for (const auto& [k, v] : f.env) {
    json x = log_line(v.line);
    x["name"] = k;
    x["value"] = v.value;
    env.push_back(x);
  }
  j["env"] = env;
  json topo = json::array();
  for (const auto& l : f.topology_files) topo.push_back(log_line(l));
  j["topology_files"] = topo;
  j["algorithms"] = f.algorithms;
  j["protocols"] = f.protocols;
  j["tuning_table"] = f.tuning_table;
  json searches = json::array();
  for (const auto& g : f.searches)
    searches.push_back({{"communicator", g.comm},
                        {"pattern", g.pattern},
                        {"cross_nic", g.cross_nic},
                        {"channels", g.channels},
                        {"bw_intra_gbytes_per_s", g.bw_intra},
                        {"bw_inter_gbytes_per_s", g.bw_inter},
                        {"type_intra", g.type_intra},
                        {"type_inter", g.type_inter},
                        {"same_channels", g.same_channels},
                        {"ranks", g.ranks},
                        {"evidence", log_line(g.line)}});
  j["graph_searches"] = searches;
  json tuning = json::array();
  for (const auto& [k, t] : f.tuning)
    tuning.push_back({{"collective", t.collective},
                      {"bytes", t.bytes},
                      {"algorithm", t.algo},
                      {"protocol", t.proto},
                      {"channel_lo", t.channel_lo >= 0 ? json(t.channel_lo) : json(nullptr)},
                      {"channel_hi", t.channel_hi >= 0 ? json(t.channel_hi) : json(nullptr)},
                      {"count", t.count},
                      {"evidence", log_line(t.line)}});
  j["tuning"] = tuning;
  j["nccl_tests_table_file"] =
      f.nccl_tests_table_file.empty() ? json(nullptr) : json(f.nccl_tests_table_file);
  j["nccl_tests_devices"] = f.nccl_tests_devices ? log_line(*f.nccl_tests_devices) : json(nullptr);
  j["nccl_tests_exit"] = f.nccl_tests_exit ? json{{"status", f.nccl_tests_exit_status},
                                                  {"evidence", log_line(*f.nccl_tests_exit)}}
                                           : json(nullptr);
  j["hosts"] = f.hosts();
  json streams = json::array();
  for (const auto& [k, s] : f.streams) {
    streams.push_back({{"host", s.host},
                       {"pid", s.pid},
                       {"cuda_dev", s.cuda_dev},
                       {"bus_id", s.bus_id},
                       {"rank", s.rank >= 0 ? json(s.rank) : json(nullptr)},
                       {"nranks", s.nranks > 0 ? json(s.nranks) : json(nullptr)},
                       {"version", s.version},
                       {"init_started", s.init_started},
                       {"init_complete", s.init_complete},
                       {"first_seen", where(s.first_seen)},
                       {"last_seen", where(s.last_seen)},
                       {"last_message", s.last_message}});
  }
  j["ranks"] = streams;
  json comms = json::array();
  for (const auto& [id, c] : f.comms) {
    comms.push_back({{"id", c.id},
                     {"nranks", c.nranks},
                     {"nnodes", c.nnodes > 0 ? json(c.nnodes) : json(nullptr)},
                     {"ranks_started", c.ranks_started.size()},
                     {"ranks_complete", c.ranks_complete.size()},
                     {"ring_channels", c.ring_channels > 0 ? json(c.ring_channels) : json(nullptr)},
                     {"graph_file_channels",
                      c.graph_file_channels >= 0 ? json(c.graph_file_channels) : json(nullptr)},
                     {"first_seen", where(c.first_seen)}});
  }
  j["communicators"] = comms;
  json tr = json::array();
  for (const auto& [k, t] : f.transports) {
    tr.push_back({{"label", t.label},
                  {"kind", transport_kind_name(t.kind)},
                  {"gpudirect_rdma", t.gdrdma},
                  {"connections", t.connections},
                  {"sends", t.sends},
                  {"receives", t.receives},
                  {"hosts", t.hosts},
                  {"host_count", std::max<std::uint64_t>(t.host_total, t.hosts.size())},
                  {"evidence", log_line(t.example)}});
  }
  j["transports"] = tr;
  json issues = json::array();
  for (const auto& [p, i] : f.issues) {
    json ex = json::array();
    for (const auto& l : i.examples) ex.push_back(log_line(l));
    issues.push_back({{"kind", problem_name(p)},
                      {"count", i.count},
                      {"hosts", i.hosts},
                      {"host_count", std::max<std::uint64_t>(i.host_total, i.hosts.size())},
                      {"peers", i.peers},
                      {"details", i.details},
                      {"examples", ex}});
  }
  j["problems"] = issues;
  json to = json::array();
  for (const auto& t : f.timeouts) {
    to.push_back({{"rank", t.rank},
                  {"seq", t.seq},
                  {"op", t.op},
                  {"timeout_ms", t.timeout_ms},
                  {"ran_ms", t.ran_ms},
                  {"evidence", log_line(t.line)}});
  }
  j["collective_timeouts"] = to;
  json lag = json::array();
  for (const auto& l : f.lagging) lag.push_back({{"rank", l.rank}, {"evidence", log_line(l.line)}});
  j["lagging_ranks"] = lag;
  json warns = json::array();
  for (const auto& w : f.warnings)
    warns.push_back({{"message", w.message},
                     {"count", w.count},
                     {"hosts", w.hosts},
                     {"evidence", log_line(w.first)}});
  j["warnings"] = warns;
  json unrec = json::array();
  for (const auto& l : f.unrecognised) unrec.push_back(log_line(l));
  j["unrecognised_lines"] = unrec;
  json tail = json::array();
  for (const auto& l : f.last_lines) tail.push_back(log_line(l));
  j["last_lines"] = tail;
  j["first_error_return"] = f.first_error_return ? log_line(*f.first_error_return) : json(nullptr);
  json trail = json::array();
  for (const auto& l : f.first_error_trail) trail.push_back(log_line(l));
  j["first_error_trail"] = trail;
  if (f.deeper_error_return) j["deeper_error_return"] = log_line(*f.deeper_error_return);
  if (f.first_error_after_warn) j["first_error_after_warn"] = true;
  json hosts = json::array();  // an array of objects, so keys stay snake_case
  for (const auto& [h, p] : f.host_profiles) {
    json host_env = json::array();
    for (const auto& [k, v] : p.env) host_env.push_back({{"name", k}, {"value", v}});
    hosts.push_back({{"host", h},
                     {"addresses", p.addresses},
                     {"bootstrap_interfaces", p.bootstrap_ifaces},
                     {"socket_interfaces", p.socket_ifaces},
                     {"networks", p.networks},
                     {"versions", p.versions},
                     {"gpus", p.gpus},
                     {"ib_devices", opt(p.ib_devices)},
                     {"net_plugin", p.plugin},
                     {"plugin_loader_releases", p.loader_releases},
                     {"env", host_env}});
  }
  j["host_profiles"] = hosts;
  j["host_count"] = f.host_count;
  j["multi_node"] = f.multi_node();
  return j;
}

json to_json(const NcclTestsFacts& f) {
  json j;
  j["source"] = f.source;
  j["format"] = f.from_json ? "json" : "table";
  j["collective"] = f.collective;
  j["tests_version"] = f.tests_version;
  j["nccl_version"] = f.nccl_version;
  j["threads"] = f.n_threads;
  j["gpus_per_process"] = f.n_gpus;
  j["ranks"] = f.ranks();
  j["nodes"] = f.nodes();
  json devs = json::array();
  for (const auto& d : f.devices) {
    devs.push_back({{"rank", d.rank},
                    {"host", d.host},
                    {"pid", d.pid},
                    {"device", d.device},
                    {"bus_id", d.bus_id},
                    {"name", d.name},
                    {"where", where(d.where)}});
  }
  j["devices"] = devs;
  json rows = json::array();
  for (const auto& r : f.rows) {
    rows.push_back({{"size_bytes", r.size_bytes},
                    {"count", r.count},
                    {"type", r.type},
                    {"redop", r.redop},
                    {"out_of_place",
                     {{"time_us", opt(r.oop_time_us)},
                      {"algbw_gbytes_per_s", opt(r.oop_algbw)},
                      {"busbw_gbytes_per_s", opt(r.oop_busbw)},
                      {"wrong", opt(r.oop_wrong)}}},
                    {"in_place",
                     {{"time_us", opt(r.ip_time_us)},
                      {"algbw_gbytes_per_s", opt(r.ip_algbw)},
                      {"busbw_gbytes_per_s", opt(r.ip_busbw)},
                      {"wrong", opt(r.ip_wrong)}}},
                    {"wrong_is_max_error", r.error_is_max_error},
                    {"where", where(r.where)}});
  }
  j["rows"] = rows;
  const NcclTestsRow* big = f.largest();
  j["largest"] = big ? json{{"size_bytes", big->size_bytes},
                            {"busbw_gbytes_per_s", opt(big->busbw())},
                            {"where", where(big->where)}}
                     : json(nullptr);
  j["peak_busbw_gbytes_per_s"] = opt(f.peak_busbw());
  j["avg_busbw_gbytes_per_s"] = opt(f.avg_busbw);
  j["out_of_bounds"] = opt(f.out_of_bounds);
  j["truncated"] = f.truncated;
  return j;
}

}  // namespace trainready
