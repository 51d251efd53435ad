#include "watch/interval.h"

#include <algorithm>
#include <map>

#include "watch/counter_delta.h"

namespace trainready::watch {
namespace {

// Adds v to an optional accumulator, making it present.
void add(std::optional<double>& acc, double v) { acc = acc.value_or(0) + v; }

std::optional<double> rate(Counter a, Counter b, CounterKind k, double seconds, double scale = 1) {
  auto d = counter_delta(a, b, k);
  if (!d || seconds <= 0) return std::nullopt;
  return static_cast<double>(*d) * scale / seconds;
}

// A rate above kAboveLineRate x the link's line rate (bytes/s; 0 = unknown) is not physical: a
// misread or reset counter, unavailable like a reset.
std::optional<double> physical(std::optional<double> r, double line) {
  if (r && line > 0 && *r > kAboveLineRate * line) return std::nullopt;
  return r;
}

template <class T, class Key>
std::map<Key, const T*> index_by(const std::vector<T>& v, Key (*key)(const T&)) {
  std::map<Key, const T*> m;
  for (const T& e : v) m.emplace(key(e), &e);
  return m;
}

std::string ib_key(const IbPortSample& p) { return p.device + "/" + std::to_string(p.port); }
std::string net_key(const NetSample& n) { return n.name; }
std::string disk_key(const DiskSample& d) { return d.name; }
std::string nfs_key(const NfsSample& n) { return n.mountpoint; }
std::string lustre_key(const LustreSample& l) { return l.instance; }
std::string gpu_key(const GpuSample& g) {
  return g.uuid.empty() ? std::to_string(g.index) : g.uuid;
}
std::pair<int, std::uint64_t> proc_key(const ProcSample& p) {
  return {p.pid, p.start_ticks.value_or(0)};
}

bool active(const IbPortSample& p) { return p.state.find("ACTIVE") != std::string::npos; }

}  // namespace

Interval make_interval(const Sample& before, const Sample& after, const IntervalOptions& o) {
  Interval iv;
  iv.start = before.time;
  iv.end = after.time;
  iv.seconds = after.monotonic - before.monotonic;
  const double dt = iv.seconds;
  if (dt <= 0) return iv;

  // GPUs: utilization is already an average over NVML's own window, so the later sample is the
  // interval's (NVML: "over the past sample period", 1/6 s to 1 s).
  iv.gpus = static_cast<int>(after.gpus.size());
  double sum = 0;
  int n = 0;
  for (const GpuSample& g : after.gpus) {
    if (!g.util_percent) continue;
    sum += *g.util_percent / 100.0;
    ++n;
    iv.gpu_busy_min = std::min(iv.gpu_busy_min.value_or(1.0), *g.util_percent / 100.0);
  }
  if (n > 0) iv.gpu_busy = sum / n;
  double sm = 0, tensor = 0, power = 0;
  int n_sm = 0, n_tensor = 0, n_power = 0;
  auto gpu0 = index_by<GpuSample, std::string>(before.gpus, gpu_key);
  for (const GpuSample& g : after.gpus) {
    // nvmlDeviceGetPowerUsage: averaged over 1 s on Ampere (except GA100) and newer, instant on
    // GA100 and older (NVML API reference); like utilization, the later sample's is the interval's.
    if (g.power_watts && g.power_limit_watts && *g.power_limit_watts > 0) {
      power += *g.power_watts / *g.power_limit_watts;
      ++n_power;
    }
    if (g.sm_active_ratio) {
      sm += *g.sm_active_ratio;
      ++n_sm;
    }
    if (g.tensor_active_ratio) {
      tensor += *g.tensor_active_ratio;
      ++n_tensor;
    }
    auto it = gpu0.find(gpu_key(g));
    // NVML: cumulative KiB (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*, nvml.h).
    std::optional<double> tx, rx;
    if (it != gpu0.end()) {
      tx = rate(it->second->nvlink_tx_kib, g.nvlink_tx_kib, CounterKind::kWraps64, dt, 1024);
      rx = rate(it->second->nvlink_rx_kib, g.nvlink_rx_kib, CounterKind::kWraps64, dt, 1024);
    }
    if (!tx && !g.nvlink_tx_kib) tx = g.nvlink_tx_bytes_per_s;
    if (!rx && !g.nvlink_rx_kib) rx = g.nvlink_rx_bytes_per_s;
    if (tx) add(iv.nvlink_tx_bytes_per_s, *tx);
    if (rx) add(iv.nvlink_rx_bytes_per_s, *rx);
  }
  if (n_sm > 0) iv.gpu_sm_active = sm / n_sm;
  if (n_tensor > 0) iv.gpu_tensor_active = tensor / n_tensor;
  if (n_power > 0) iv.gpu_power_ratio = power / n_power;

  auto ib0 = index_by<IbPortSample, std::string>(before.ib, ib_key);
  for (const IbPortSample& p : after.ib) {
    if (!active(p)) continue;
    auto it = ib0.find(ib_key(p));
    if (it == ib0.end()) continue;
    ++iv.ib_ports;
    const double ib_line = p.rate_gbps ? *p.rate_gbps * 1e9 / 8 : 0;
    const auto rx = physical(rate(it->second->rcv_data, p.rcv_data, CounterKind::kIbPort, dt,
                                  static_cast<double>(kIbDataUnitBytes)),
                             ib_line);
    const auto tx = physical(rate(it->second->xmit_data, p.xmit_data, CounterKind::kIbPort, dt,
                                  static_cast<double>(kIbDataUnitBytes)),
                             ib_line);
    if (rx) add(iv.ib_rx_bytes_per_s, *rx);
    if (tx) add(iv.ib_tx_bytes_per_s, *tx);
    if (auto w = rate(it->second->xmit_wait, p.xmit_wait, CounterKind::kIbPort, dt))
      add(iv.ib_xmit_wait_per_s, *w);
    if (p.rate_gbps) {
      const double line = *p.rate_gbps * 1e9 / 8;  // Gb/s (10^9 bits) -> bytes/s
      add(iv.ib_line_bytes_per_s, line);
      iv.ib_line_gbps_each = std::max(iv.ib_line_gbps_each, *p.rate_gbps);
      if (rx || tx) {
        const double u = std::max(rx.value_or(0), tx.value_or(0)) / line;
        iv.ib_peak_port_util = std::max(iv.ib_peak_port_util.value_or(0), u);
      }
    }
  }

  auto net0 = index_by<NetSample, std::string>(before.net, net_key);
  bool all_have_speed = true;
  for (const NetSample& x : after.net) {
    // Default: every interface but lo (its traffic never leaves the node) and but one enslaved
    // to another (Azure's accelerated-networking VF: netvsc_get_stats64 adds the VF's bytes to
    // the synthetic interface's, so counting both counts each byte twice).
    const bool wanted = o.net_interfaces.empty()
                            ? x.name != "lo" && x.master.empty()
                            : std::find(o.net_interfaces.begin(), o.net_interfaces.end(), x.name) !=
                                  o.net_interfaces.end();
    if (!wanted) continue;
    auto it = net0.find(x.name);
    if (it == net0.end()) continue;
    iv.net_names.push_back(x.name);
    const double nic_line = x.speed_mbps ? *x.speed_mbps * 1e6 / 8 : 0;
    const auto rx =
        physical(rate(it->second->rx_bytes, x.rx_bytes, CounterKind::kWraps64, dt), nic_line);
    const auto tx =
        physical(rate(it->second->tx_bytes, x.tx_bytes, CounterKind::kWraps64, dt), nic_line);
    if (rx) add(iv.net_rx_bytes_per_s, *rx);
    if (tx) add(iv.net_tx_bytes_per_s, *tx);
    if (x.speed_mbps) {
      const double line = *x.speed_mbps * 1e6 / 8;  // Mb/s -> bytes/s
      add(iv.net_line_bytes_per_s, line);
      if (rx || tx)
        iv.net_peak_util =
            std::max(iv.net_peak_util.value_or(0), std::max(rx.value_or(0), tx.value_or(0)) / line);
      if (rx) iv.net_rx_peak_util = std::max(iv.net_rx_peak_util.value_or(0), *rx / line);
      if (tx) iv.net_tx_peak_util = std::max(iv.net_tx_peak_util.value_or(0), *tx / line);
    } else {
      all_have_speed = false;
    }
  }
  if (!all_have_speed) iv.net_line_bytes_per_s.reset();

  auto disk0 = index_by<DiskSample, std::string>(before.disks, disk_key);
  double busiest = -1;
  for (const DiskSample& d : after.disks) {
    auto it = disk0.find(d.name);
    if (it == disk0.end()) continue;
    // /proc/diskstats sectors are 512 bytes (Documentation/admin-guide/iostats.rst).
    const auto r = rate(it->second->sectors_read, d.sectors_read, CounterKind::kWraps64, dt, 512);
    const auto w =
        rate(it->second->sectors_written, d.sectors_written, CounterKind::kWraps64, dt, 512);
    if (r) add(iv.disk_read_bytes_per_s, *r);
    if (w) add(iv.disk_write_bytes_per_s, *w);
    if (r && *r > busiest) {
      busiest = *r;
      iv.busiest_disk = d.name;
    }
  }

  auto nfs0 = index_by<NfsSample, std::string>(before.nfs, nfs_key);
  for (const NfsSample& m : after.nfs) {
    auto it = nfs0.find(m.mountpoint);
    if (it == nfs0.end()) continue;
    if (auto r =
            rate(it->second->server_read_bytes, m.server_read_bytes, CounterKind::kWraps64, dt))
      add(iv.nfs_read_bytes_per_s, *r);
  }
  auto lustre0 = index_by<LustreSample, std::string>(before.lustre, lustre_key);
  for (const LustreSample& l : after.lustre) {
    auto it = lustre0.find(l.instance);
    if (it == lustre0.end()) continue;
    // A sum that went back was cleared (lctl set_param llite.*.stats=clear): no rate.
    if (auto r = rate(it->second->read_bytes, l.read_bytes, CounterKind::kWraps64, dt))
      add(iv.lustre_read_bytes_per_s, *r);
    if (auto w = rate(it->second->write_bytes, l.write_bytes, CounterKind::kWraps64, dt))
      add(iv.lustre_write_bytes_per_s, *w);
    if (auto osc = rate(it->second->osc_read_bytes, l.osc_read_bytes, CounterKind::kWraps64, dt))
      add(iv.lustre_osc_read_bytes_per_s, *osc);
  }
  iv.fuse_mounts = static_cast<int>(after.fuse.size());
  for (const FuseSample& f : after.fuse) {
    if (f.waiting) add(iv.fuse_waiting, static_cast<double>(*f.waiting));
  }

  auto p0 = index_by<ProcSample, std::pair<int, std::uint64_t>>(before.procs, proc_key);
  const double tick = 1.0 / after.clock_ticks_per_s;
  double run = 0, wait = 0, blkio_threads = 0;
  bool have_sched = false;
  for (const ProcSample& p : after.procs) {
    if (p.state == 'Z' || p.state == 'X') continue;
    ++iv.procs;
    iv.proc_threads += static_cast<double>(p.threads.value_or(1));
    auto it = p0.find(proc_key(p));
    if (it == p0.end()) continue;
    const ProcSample& q = *it->second;
    const auto r = counter_delta(q.run_ns, p.run_ns, CounterKind::kWraps64);
    const auto w = counter_delta(q.wait_ns, p.wait_ns, CounterKind::kWraps64);
    if (r && w) {
      run += static_cast<double>(*r) / 1e9;
      wait += static_cast<double>(*w) / 1e9;
      have_sched = true;
    } else if (auto c = counter_delta(q.cpu_ticks, p.cpu_ticks, CounterKind::kWraps64)) {
      add(iv.proc_cpu_cores, static_cast<double>(*c) * tick / dt);
    }
    if (auto b = counter_delta(q.blkio_ticks, p.blkio_ticks, CounterKind::kWraps64)) {
      add(iv.proc_blkio_share, static_cast<double>(*b) * tick);
      blkio_threads += static_cast<double>(p.threads.value_or(1));
    }
    const auto rb = counter_delta(q.read_bytes, p.read_bytes, CounterKind::kWraps64);
    const auto wb = counter_delta(q.write_bytes, p.write_bytes, CounterKind::kWraps64);
    if (rb) add(iv.proc_read_bytes_per_s, static_cast<double>(*rb) / dt);
    const auto rc = counter_delta(q.rchar, p.rchar, CounterKind::kWraps64);
    const auto wc = counter_delta(q.wchar, p.wchar, CounterKind::kWraps64);
    if (rb && wb && rc && wc) {
      const double other = static_cast<double>(*rc + *wc) - static_cast<double>(*rb + *wb);
      add(iv.proc_other_io_bytes_per_s, std::max(0.0, other) / dt);
    }
  }
  if (have_sched) {
    add(iv.proc_cpu_cores, run / dt);
    if (run + wait > 0) iv.proc_runq_wait_share = wait / (run + wait);
  }
  if (iv.proc_blkio_share && blkio_threads > 0)
    iv.proc_blkio_share = *iv.proc_blkio_share / (dt * blkio_threads);
  return iv;
}

std::optional<double> lustre_storage_read_bytes_per_s(const Interval& iv) {
  return iv.lustre_osc_read_bytes_per_s ? iv.lustre_osc_read_bytes_per_s
                                        : iv.lustre_read_bytes_per_s;
}

std::optional<double> storage_read_bytes_per_s(const Interval& iv) {
  std::optional<double> local =
      iv.proc_read_bytes_per_s ? iv.proc_read_bytes_per_s : iv.disk_read_bytes_per_s;
  const std::optional<double> lustre = lustre_storage_read_bytes_per_s(iv);
  if (!local && !iv.nfs_read_bytes_per_s && !lustre) return std::nullopt;
  return local.value_or(0) + iv.nfs_read_bytes_per_s.value_or(0) + lustre.value_or(0);
}

std::optional<double> network_bytes_per_s(const Interval& iv) {
  if (!iv.ib_rx_bytes_per_s && !iv.ib_tx_bytes_per_s && !iv.net_rx_bytes_per_s &&
      !iv.net_tx_bytes_per_s)
    return std::nullopt;
  return iv.ib_rx_bytes_per_s.value_or(0) + iv.ib_tx_bytes_per_s.value_or(0) +
         iv.net_rx_bytes_per_s.value_or(0) + iv.net_tx_bytes_per_s.value_or(0);
}

std::optional<double> nvlink_bytes_per_s(const Interval& iv) {
  if (!iv.nvlink_tx_bytes_per_s && !iv.nvlink_rx_bytes_per_s) return std::nullopt;
  return iv.nvlink_tx_bytes_per_s.value_or(0) + iv.nvlink_rx_bytes_per_s.value_or(0);
}

std::optional<double> data_path_bytes_per_s(const Interval& iv) {
  std::optional<double> net;
  if (iv.ib_ports > 0) {
    if (iv.ib_rx_bytes_per_s || iv.ib_tx_bytes_per_s)
      net = iv.ib_rx_bytes_per_s.value_or(0) + iv.ib_tx_bytes_per_s.value_or(0);
  } else if (iv.net_rx_bytes_per_s || iv.net_tx_bytes_per_s) {
    net = iv.net_rx_bytes_per_s.value_or(0) + iv.net_tx_bytes_per_s.value_or(0);
  }
  const auto nvlink = nvlink_bytes_per_s(iv);
  if (!net && !nvlink) return std::nullopt;
  return net.value_or(0) + nvlink.value_or(0);
}

std::optional<double> network_peak_util(const Interval& iv) {
  if (!iv.ib_peak_port_util && !iv.net_peak_util) return std::nullopt;
  return std::max(iv.ib_peak_port_util.value_or(0), iv.net_peak_util.value_or(0));
}

}  // namespace trainready::watch
