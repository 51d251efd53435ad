#include "watch/live_view.h"

#include <cstdio>
#include <ctime>

#include "core/text.h"
#include "core/units.h"

namespace trainready::watch {
namespace {

std::string na_rate(const std::optional<double>& v) {
  return v ? format_rate_si(*v) : std::string("n/a");
}
std::string na_pct(const std::optional<double>& v) {
  if (!v) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", *v * 100);
  return b;
}
std::string clock_time(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%H:%M:%SZ", &tm);
  return b;
}

}  // namespace

std::string live_line(const Interval& iv, const Verdict& v) {
  std::string s = clock_time(iv.end);
  s += "  gpu " + (iv.gpu_busy ? na_pct(iv.gpu_busy) : std::string("n/a"));
  if (iv.gpu_sm_active || iv.gpu_tensor_active)
    s += " sm " + na_pct(iv.gpu_sm_active) + " tensor " + na_pct(iv.gpu_tensor_active);
  if (iv.gpu_power_ratio) s += " power " + na_pct(iv.gpu_power_ratio) + " of limit";
  if (iv.nvlink_tx_bytes_per_s || iv.nvlink_rx_bytes_per_s)
    s += "  nvlink tx " + na_rate(iv.nvlink_tx_bytes_per_s) + " rx " +
         na_rate(iv.nvlink_rx_bytes_per_s);
  s += "  ib " + (iv.ib_ports > 0 ? "rx " + na_rate(iv.ib_rx_bytes_per_s) + " tx " +
                                        na_rate(iv.ib_tx_bytes_per_s) + " (" +
                                        na_pct(iv.ib_peak_port_util) + " of line)"
                                  : std::string("n/a"));
  s += "  net rx " + na_rate(iv.net_rx_bytes_per_s) + " tx " + na_rate(iv.net_tx_bytes_per_s);
  s += "  disk r " + na_rate(iv.disk_read_bytes_per_s);
  s += "  nfs r " + na_rate(iv.nfs_read_bytes_per_s);
  s += "  lustre r " + na_rate(iv.lustre_read_bytes_per_s);
  if (iv.procs > 0) {
    s += "  procs " + std::to_string(iv.procs) + " cpu " +
         (iv.proc_cpu_cores ? format_number(*iv.proc_cpu_cores) : std::string("n/a")) +
         " cores rd " + na_rate(iv.proc_read_bytes_per_s);
  }
  s += "  -> " + std::string(label_id(v.label));
  return terminal_safe(s);
}

std::vector<std::string> live_panel(const Interval& iv, const Verdict& v, const Summary& so_far) {
  std::vector<std::string> out;
  out.push_back("trainready watch  " + clock_time(iv.end) +
                "  (Ctrl-C ends and prints the summary)");
  std::string gpu = "GPU      ";
  if (iv.gpu_busy) {
    gpu += na_pct(iv.gpu_busy) + " busy across " + std::to_string(iv.gpus) + " GPUs, least busy " +
           na_pct(iv.gpu_busy_min);
    if (iv.gpu_power_ratio) gpu += ", power " + na_pct(iv.gpu_power_ratio) + " of the limit";
  } else {
    gpu += "n/a";
  }
  out.push_back(gpu);
  out.push_back("         SM active " + na_pct(iv.gpu_sm_active) + "  tensor active " +
                na_pct(iv.gpu_tensor_active) + "  NVLink tx " + na_rate(iv.nvlink_tx_bytes_per_s) +
                " rx " + na_rate(iv.nvlink_rx_bytes_per_s));
  if (iv.ib_ports > 0) {
    char b[64];
    std::snprintf(b, sizeof b, "%d x %g Gb/s", iv.ib_ports, iv.ib_line_gbps_each);
    out.push_back("IB       rx " + na_rate(iv.ib_rx_bytes_per_s) + "  tx " +
                  na_rate(iv.ib_tx_bytes_per_s) + "  busiest port " + na_pct(iv.ib_peak_port_util) +
                  " of line (" + b + ")");
  } else {
    out.push_back("IB       n/a");
  }
  std::string names;
  for (const std::string& n : iv.net_names) names += (names.empty() ? "" : ",") + n;
  out.push_back("network  rx " + na_rate(iv.net_rx_bytes_per_s) + "  tx " +
                na_rate(iv.net_tx_bytes_per_s) + " (checkpoint/egress)  " +
                na_pct(iv.net_peak_util) + " of line (" + (names.empty() ? "none counted" : names) +
                ")");
  std::string st = "storage  disk read " + na_rate(iv.disk_read_bytes_per_s);
  if (!iv.busiest_disk.empty()) st += " (" + iv.busiest_disk + ")";
  st += "  NFS read " + na_rate(iv.nfs_read_bytes_per_s);
  if (iv.lustre_osc_read_bytes_per_s)
    st += "  Lustre from OSTs " + na_rate(iv.lustre_osc_read_bytes_per_s) + " (applications read " +
          na_rate(iv.lustre_read_bytes_per_s) + ", page cache included)";
  else
    st += "  Lustre read " + na_rate(iv.lustre_read_bytes_per_s);
  if (iv.fuse_mounts > 0)
    st += "  fuse waiting " +
          (iv.fuse_waiting ? format_number(*iv.fuse_waiting) : std::string("n/a"));
  out.push_back(st);
  if (iv.procs > 0) {
    out.push_back(
        "input    " + std::to_string(iv.procs) + " processes  CPU " +
        (iv.proc_cpu_cores ? format_number(*iv.proc_cpu_cores) + " cores" : std::string("n/a")) +
        "  run-queue wait " + na_pct(iv.proc_runq_wait_share) + "  read " +
        na_rate(iv.proc_read_bytes_per_s) + "  I/O wait " + na_pct(iv.proc_blkio_share));
  } else {
    out.push_back("input    no process watched (--pid)");
  }
  out.push_back(std::string("label    ") + label_id(v.label) + ": " + v.because);
  out.push_back("so far   " + so_far.headline());
  for (std::string& l : out) l = terminal_safe(l);
  return out;
}

}  // namespace trainready::watch
