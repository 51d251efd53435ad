#include "watch/sample_json.h"

#include <cmath>

#include "core/input_error.h"

namespace trainready::watch {
namespace {

using nlohmann::json;

json opt(const Counter& c) { return c ? json(*c) : json(nullptr); }
json opt(const std::optional<double>& d) { return d ? json(*d) : json(nullptr); }

// Reading back: every value is checked for its type, so a hand-edited or truncated recording is
// an error naming the line, never a crash or a silent 0.
class Reader {
 public:
  Reader(const std::string& file, int line) : file_(file), line_(line) {}
  [[noreturn]] void fail(const std::string& what) const { throw InputError(file_, line_, what); }
  const json& obj(const json& j, const char* key) const {
    if (!j.is_object()) fail(std::string("expected an object holding \"") + key + "\"");
    auto it = j.find(key);
    if (it == j.end()) fail(std::string("expected the key \"") + key + "\"");
    return *it;
  }
  Counter counter(const json& j, const char* key) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
      fail(std::string("\"") + key + "\": expected a non-negative integer or null");
    return it->get<std::uint64_t>();
  }
  std::optional<double> number(const json& j, const char* key) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()))
      fail(std::string("\"") + key + "\": expected a number or null");
    return it->get<double>();
  }
  std::optional<double> ratio(const json& j, const char* key) const {
    auto v = number(j, key);
    if (v && (*v < 0 || *v > 1)) fail(std::string("\"") + key + "\": expected a ratio, 0 to 1");
    return v;
  }
  std::string str(const json& j, const char* key) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return "";
    if (!it->is_string()) fail(std::string("\"") + key + "\": expected a string");
    return it->get<std::string>();
  }
  // A source: {"unavailable": "why"} or {"items": [...]}.
  const json* items(const json& j, const char* key, std::string& unavailable) const {
    const json& src = obj(j, key);
    if (!src.is_object()) fail(std::string("\"") + key + "\": expected an object");
    unavailable = str(src, "unavailable");
    auto it = src.find("items");
    if (it == src.end()) {
      if (unavailable.empty())
        fail(std::string("\"") + key + "\": expected \"items\" or \"unavailable\"");
      return nullptr;
    }
    if (!it->is_array()) fail(std::string("\"") + key + ".items\": expected an array");
    for (const json& e : *it) {
      if (!e.is_object()) fail(std::string("\"") + key + ".items\": expected objects");
    }
    return &*it;
  }

 private:
  const std::string& file_;
  int line_;
};

json source(const std::string& unavailable, json items) {
  json j = json::object();
  if (!unavailable.empty()) j["unavailable"] = unavailable;
  if (unavailable.empty() || !items.empty()) j["items"] = std::move(items);
  return j;
}

}  // namespace

std::string recording_header_line() {
  json h = {{"format", kRecordingFormat}, {"version", kRecordingVersion}};
  return h.dump();
}

json sample_to_json(const Sample& s) {
  json gpus = json::array();
  for (const GpuSample& g : s.gpus) {
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"uuid", g.uuid},
                    {"util_percent", opt(g.util_percent)},
                    {"mem_util_percent", opt(g.mem_util_percent)},
                    {"sm_clock_mhz", opt(g.sm_clock_mhz)},
                    {"power_watts", opt(g.power_watts)},
                    {"power_limit_watts", opt(g.power_limit_watts)},
                    {"mem_used_bytes", opt(g.mem_used_bytes)},
                    {"mem_total_bytes", opt(g.mem_total_bytes)},
                    {"clocks_event_reasons", opt(g.clocks_event_reasons)},
                    {"pcie_tx_bytes_per_s", opt(g.pcie_tx_bytes_per_s)},
                    {"pcie_rx_bytes_per_s", opt(g.pcie_rx_bytes_per_s)},
                    {"sm_active_ratio", opt(g.sm_active_ratio)},
                    {"sm_occupancy_ratio", opt(g.sm_occupancy_ratio)},
                    {"tensor_active_ratio", opt(g.tensor_active_ratio)},
                    {"nvlink_tx_bytes_per_s", opt(g.nvlink_tx_bytes_per_s)},
                    {"nvlink_rx_bytes_per_s", opt(g.nvlink_rx_bytes_per_s)},
                    {"nvlink_tx_kib", opt(g.nvlink_tx_kib)},
                    {"nvlink_rx_kib", opt(g.nvlink_rx_kib)}});
  }
  json ib = json::array();
  for (const IbPortSample& p : s.ib) {
    ib.push_back({{"device", p.device},
                  {"port", p.port},
                  {"state", p.state},
                  {"rate_gbps", opt(p.rate_gbps)},
                  {"port_xmit_data", opt(p.xmit_data)},
                  {"port_rcv_data", opt(p.rcv_data)},
                  {"port_xmit_wait", opt(p.xmit_wait)},
                  {"hw_counters", p.hw_counters}});
  }
  json net = json::array();
  for (const NetSample& n : s.net) {
    net.push_back({{"name", n.name},
                   {"rx_bytes", opt(n.rx_bytes)},
                   {"tx_bytes", opt(n.tx_bytes)},
                   {"speed_mbps", opt(n.speed_mbps)}});
    if (!n.master.empty()) net.back()["master"] = n.master;
  }
  json disks = json::array();
  for (const DiskSample& d : s.disks) {
    disks.push_back({{"name", d.name},
                     {"sectors_read", opt(d.sectors_read)},
                     {"sectors_written", opt(d.sectors_written)},
                     {"io_ticks_ms", opt(d.io_ticks_ms)}});
  }
  json nfs = json::array();
  for (const NfsSample& m : s.nfs) {
    nfs.push_back({{"device", m.device},
                   {"mountpoint", m.mountpoint},
                   {"app_read_bytes", opt(m.app_read_bytes)},
                   {"server_read_bytes", opt(m.server_read_bytes)},
                   {"server_write_bytes", opt(m.server_write_bytes)}});
  }
  json lustre = json::array();
  for (const LustreSample& l : s.lustre) {
    lustre.push_back({{"instance", l.instance},
                      {"fsname", l.fsname},
                      {"read_bytes", opt(l.read_bytes)},
                      {"write_bytes", opt(l.write_bytes)},
                      {"osc_read_bytes", opt(l.osc_read_bytes)},
                      {"osc_write_bytes", opt(l.osc_write_bytes)},
                      {"osts", l.osts}});
  }
  json fuse = json::array();
  for (const FuseSample& f : s.fuse) {
    fuse.push_back(
        {{"mountpoint", f.mountpoint}, {"fstype", f.fstype}, {"waiting", opt(f.waiting)}});
  }
  json procs = json::array();
  for (const ProcSample& p : s.procs) {
    procs.push_back({{"pid", p.pid},
                     {"comm", p.comm},
                     {"state", std::string(1, p.state)},
                     {"start_ticks", opt(p.start_ticks)},
                     {"cpu_ticks", opt(p.cpu_ticks)},
                     {"threads", opt(p.threads)},
                     {"run_ns", opt(p.run_ns)},
                     {"wait_ns", opt(p.wait_ns)},
                     {"blkio_ticks", opt(p.blkio_ticks)},
                     {"rchar", opt(p.rchar)},
                     {"wchar", opt(p.wchar)},
                     {"read_bytes", opt(p.read_bytes)},
                     {"write_bytes", opt(p.write_bytes)}});
  }
  json j;
  j["time"] = s.time;
  j["monotonic"] = s.monotonic;
  j["clock_ticks_per_s"] = s.clock_ticks_per_s;
  j["gpu"] = source(s.gpu_unavailable, std::move(gpus));
  j["gpu_profiling"] = {{"source", s.gpu_profiling_source},
                        {"unavailable", s.gpu_profiling_unavailable}};
  j["infiniband"] = source(s.ib_unavailable, std::move(ib));
  j["net"] = source(s.net_unavailable, std::move(net));
  j["disk"] = source(s.disk_unavailable, std::move(disks));
  j["nfs"] = source(s.nfs_unavailable, std::move(nfs));
  j["lustre"] = source(s.lustre_unavailable, std::move(lustre));
  j["fuse"] = source(s.fuse_unavailable, std::move(fuse));
  j["watched_pids"] = s.watched_pids;
  j["process"] = source(s.proc_unavailable, std::move(procs));
  if (s.nccl_ras) {
    const RasReply& r = *s.nccl_ras;
    json ras = {{"address", r.address}, {"time", r.time}, {"seconds", r.seconds}};
    if (!r.unavailable.empty()) {
      ras["unavailable"] = r.unavailable;
    } else {
      ras["format"] = r.format;
      ras["server_protocol"] = r.server_protocol;
      ras["truncated"] = r.truncated;
      ras["reply"] = r.text;
    }
    j["nccl_ras"] = std::move(ras);
  }
  return j;
}

Sample sample_from_json(const json& j, const std::string& file, int line) {
  Reader r(file, line);
  if (!j.is_object()) r.fail("expected one JSON object per line (a watch sample)");
  Sample s;
  const auto t = r.number(j, "time");
  const auto m = r.number(j, "monotonic");
  if (!t || !m) r.fail("expected \"time\" and \"monotonic\" (seconds)");
  s.time = *t;
  s.monotonic = *m;
  s.clock_ticks_per_s = r.number(j, "clock_ticks_per_s").value_or(100);
  if (s.clock_ticks_per_s <= 0) r.fail("\"clock_ticks_per_s\": expected a positive number");
  if (const json* a = r.items(j, "gpu", s.gpu_unavailable)) {
    for (const json& e : *a) {
      GpuSample g;
      g.index = static_cast<int>(r.counter(e, "index").value_or(s.gpus.size()));
      g.name = r.str(e, "name");
      g.uuid = r.str(e, "uuid");
      g.util_percent = r.number(e, "util_percent");
      g.mem_util_percent = r.number(e, "mem_util_percent");
      g.sm_clock_mhz = r.number(e, "sm_clock_mhz");
      g.power_watts = r.number(e, "power_watts");
      // Recordings made before watch read the limit lack the key: unavailable, never 0.
      g.power_limit_watts = r.number(e, "power_limit_watts");
      if (g.power_limit_watts && *g.power_limit_watts <= 0)
        r.fail("\"power_limit_watts\": expected a positive number or null");
      g.mem_used_bytes = r.counter(e, "mem_used_bytes");
      g.mem_total_bytes = r.counter(e, "mem_total_bytes");
      g.clocks_event_reasons = r.counter(e, "clocks_event_reasons");
      g.pcie_tx_bytes_per_s = r.number(e, "pcie_tx_bytes_per_s");
      g.pcie_rx_bytes_per_s = r.number(e, "pcie_rx_bytes_per_s");
      g.sm_active_ratio = r.ratio(e, "sm_active_ratio");
      g.sm_occupancy_ratio = r.ratio(e, "sm_occupancy_ratio");
      g.tensor_active_ratio = r.ratio(e, "tensor_active_ratio");
      g.nvlink_tx_bytes_per_s = r.number(e, "nvlink_tx_bytes_per_s");
      g.nvlink_rx_bytes_per_s = r.number(e, "nvlink_rx_bytes_per_s");
      g.nvlink_tx_kib = r.counter(e, "nvlink_tx_kib");
      g.nvlink_rx_kib = r.counter(e, "nvlink_rx_kib");
      if (g.util_percent && (*g.util_percent < 0 || *g.util_percent > 100))
        r.fail("\"util_percent\": expected 0 to 100");
      s.gpus.push_back(std::move(g));
    }
  }
  if (const json* a = r.items(j, "infiniband", s.ib_unavailable)) {
    for (const json& e : *a) {
      IbPortSample p;
      p.device = r.str(e, "device");
      p.port = static_cast<int>(r.counter(e, "port").value_or(1));
      p.state = r.str(e, "state");
      p.rate_gbps = r.number(e, "rate_gbps");
      p.xmit_data = r.counter(e, "port_xmit_data");
      p.rcv_data = r.counter(e, "port_rcv_data");
      p.xmit_wait = r.counter(e, "port_xmit_wait");
      if (auto h = e.find("hw_counters"); h != e.end() && h->is_object()) {
        for (auto it = h->begin(); it != h->end(); ++it) {
          if (!it->is_number_unsigned()) r.fail("\"hw_counters\": expected non-negative integers");
          p.hw_counters[it.key()] = it->get<std::uint64_t>();
        }
      }
      s.ib.push_back(std::move(p));
    }
  }
  if (const json* a = r.items(j, "net", s.net_unavailable)) {
    for (const json& e : *a)
      s.net.push_back({r.str(e, "name"), r.counter(e, "rx_bytes"), r.counter(e, "tx_bytes"),
                       r.number(e, "speed_mbps"), r.str(e, "master")});
  }
  if (const json* a = r.items(j, "disk", s.disk_unavailable)) {
    for (const json& e : *a)
      s.disks.push_back({r.str(e, "name"), r.counter(e, "sectors_read"),
                         r.counter(e, "sectors_written"), r.counter(e, "io_ticks_ms")});
  }
  if (const json* a = r.items(j, "nfs", s.nfs_unavailable)) {
    for (const json& e : *a)
      s.nfs.push_back({r.str(e, "device"), r.str(e, "mountpoint"), r.counter(e, "app_read_bytes"),
                       r.counter(e, "server_read_bytes"), r.counter(e, "server_write_bytes")});
  }
  if (auto p = j.find("gpu_profiling"); p != j.end()) {
    if (!p->is_object()) r.fail("\"gpu_profiling\": expected an object");
    s.gpu_profiling_source = r.str(*p, "source");
    s.gpu_profiling_unavailable = r.str(*p, "unavailable");
  } else {
    s.gpu_profiling_unavailable = "not in this recording (made before watch read it)";
  }
  // Recordings made before Lustre was sampled lack the key: unavailable, not an error.
  if (!j.contains("lustre")) {
    s.lustre_unavailable = "not in this recording (made before watch read Lustre)";
  } else if (const json* a = r.items(j, "lustre", s.lustre_unavailable)) {
    for (const json& e : *a) {
      LustreSample l;
      l.instance = r.str(e, "instance");
      l.fsname = r.str(e, "fsname");
      l.read_bytes = r.counter(e, "read_bytes");
      l.write_bytes = r.counter(e, "write_bytes");
      l.osc_read_bytes = r.counter(e, "osc_read_bytes");
      l.osc_write_bytes = r.counter(e, "osc_write_bytes");
      l.osts = static_cast<int>(r.counter(e, "osts").value_or(0));
      s.lustre.push_back(std::move(l));
    }
  }
  if (const json* a = r.items(j, "fuse", s.fuse_unavailable)) {
    for (const json& e : *a)
      s.fuse.push_back({r.str(e, "mountpoint"), r.str(e, "fstype"), r.counter(e, "waiting")});
  }
  if (auto w = j.find("watched_pids"); w != j.end()) {
    if (!w->is_array()) r.fail("\"watched_pids\": expected an array of pids");
    for (const json& p : *w) {
      if (!p.is_number_integer()) r.fail("\"watched_pids\": expected integers");
      s.watched_pids.push_back(p.get<int>());
    }
  }
  if (const json* a = r.items(j, "process", s.proc_unavailable)) {
    for (const json& e : *a) {
      ProcSample p;
      p.pid = static_cast<int>(r.counter(e, "pid").value_or(0));
      p.comm = r.str(e, "comm");
      const std::string st = r.str(e, "state");
      p.state = st.size() == 1 ? st[0] : '?';
      p.start_ticks = r.counter(e, "start_ticks");
      p.cpu_ticks = r.counter(e, "cpu_ticks");
      p.threads = r.counter(e, "threads");
      p.run_ns = r.counter(e, "run_ns");
      p.wait_ns = r.counter(e, "wait_ns");
      p.blkio_ticks = r.counter(e, "blkio_ticks");
      p.rchar = r.counter(e, "rchar");
      p.wchar = r.counter(e, "wchar");
      p.read_bytes = r.counter(e, "read_bytes");
      p.write_bytes = r.counter(e, "write_bytes");
      s.procs.push_back(std::move(p));
    }
  }
  // NCCL RAS (optional: only samples right after a query carry it; older recordings never).
  if (auto ras = j.find("nccl_ras"); ras != j.end()) {
    if (!ras->is_object()) r.fail("\"nccl_ras\": expected an object");
    RasReply q;
    q.address = r.str(*ras, "address");
    q.time = r.number(*ras, "time").value_or(0);
    q.seconds = r.number(*ras, "seconds").value_or(0);
    q.unavailable = r.str(*ras, "unavailable");
    if (q.unavailable.empty()) {
      auto reply = ras->find("reply");
      if (reply == ras->end() || !reply->is_string())
        r.fail("\"nccl_ras\": expected \"reply\" (a string) or \"unavailable\"");
      q.text = reply->get<std::string>();
      q.format = r.str(*ras, "format");
      if (q.format != "json" && q.format != "text")
        r.fail("\"nccl_ras.format\": expected \"json\" or \"text\"");
      q.server_protocol = r.str(*ras, "server_protocol");
      if (auto tr = ras->find("truncated"); tr != ras->end() && !tr->is_null()) {
        if (!tr->is_boolean()) r.fail("\"nccl_ras.truncated\": expected true or false");
        q.truncated = tr->get<bool>();
      }
    }
    s.nccl_ras = std::move(q);
  }
  return s;
}

bool parse_recording_line(std::string_view text, const std::string& file, int line, Sample& out) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    throw InputError(file, line, "expected one JSON object per line (a watch recording)");
  if (j.is_object() && j.contains("format")) {
    if (!j["format"].is_string() || j["format"].get<std::string>() != kRecordingFormat)
      throw InputError(file, line,
                       std::string("expected \"format\": \"") + kRecordingFormat + "\"");
    if (!j["version"].is_number_integer() || j["version"].get<int>() != kRecordingVersion)
      throw InputError(file, line,
                       "expected \"version\": " + std::to_string(kRecordingVersion) +
                           " (a recording from another trainready version)");
    return false;
  }
  out = sample_from_json(j, file, line);
  return true;
}

}  // namespace trainready::watch
