#include "watch/attribution.h"

#include <cstdio>

#include "core/units.h"

namespace trainready::watch {
namespace {

std::string pct(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", ratio * 100);
  return b;
}

std::string rate_or_na(const std::optional<double>& v) {
  return v ? format_rate_si(*v) : std::string("unavailable");
}

// Thresholds are powers of two (64 KiB/s, 1 MiB/s): print them as such.
std::string binary_rate(double bytes_per_s) {
  return format_bytes_binary(static_cast<std::uint64_t>(bytes_per_s)) + "/s";
}

}  // namespace

const char* label_id(Label l) {
  switch (l) {
    case Label::kCompute:
      return "compute";
    case Label::kCommunication:
      return "communication";
    case Label::kInputStorage:
      return "input-storage";
    case Label::kInputCpu:
      return "input-cpu";
    case Label::kStraggler:
      return "straggler";
    case Label::kHang:
      return "hang";
    case Label::kIdle:
      return "idle";
    case Label::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Verdict Attributor::label(const Interval& iv) {
  const auto net = network_bytes_per_s(iv);
  const auto storage = storage_read_bytes_per_s(iv);
  if (net && *net >= t_.quiet_bytes_per_s) network_seen_ = true;
  const bool moving =
      (net && *net >= t_.quiet_bytes_per_s) || (storage && *storage >= t_.quiet_bytes_per_s) ||
      (iv.gpu_busy && *iv.gpu_busy >= t_.gpu_quiet && !network_seen_) ||
      (!iv.gpu_busy && iv.proc_cpu_cores && *iv.proc_cpu_cores >= t_.cpu_active_cores);
  quiet_seconds_ = moving ? 0 : quiet_seconds_ + iv.seconds;
  return iv.gpu_busy ? with_gpus(iv, quiet_seconds_) : without_gpus(iv, quiet_seconds_);
}

// GPUs present: the GPUs are busy, or their idle time is put on the path whose counters show it.
Verdict Attributor::with_gpus(const Interval& iv, double quiet_for) {
  const double busy = *iv.gpu_busy;
  // On a node with InfiniBand the GPUs talk over it; the front-end NIC carries storage (Blob
  // through blobfuse, NFS, Azure Managed Lustre). Without InfiniBand the NIC is both.
  const bool has_ib = iv.ib_ports > 0;
  const auto util = has_ib ? iv.ib_peak_port_util : network_peak_util(iv);
  // -1: no front-end NIC reading (a plain double: GCC 12 at -O2 sees a copied optional as
  // maybe uninitialized).
  const double nic_util = has_ib && iv.net_peak_util ? *iv.net_peak_util : -1;
  const auto storage = storage_read_bytes_per_s(iv);
  const std::string gpu = "GPU utilization " + pct(busy);
  const char* path = has_ib ? "InfiniBand" : "network";
  // NCCL kernels count as "busy" in NVML's utilization (it only says a kernel ran): an all-reduce
  // at line rate reads 100 %. The network at its ceiling is what decides then.
  if (util && *util >= t_.net_saturated)
    return {Label::kCommunication, gpu + ", " + path + " at " + pct(*util) + " of line rate"};
  // Hang: nothing moves for hang_after seconds while the ranks live, whether NVML says 0 % or
  // (a rank spinning in a NCCL kernel that never completes) ~100 % after the job had used the
  // network.
  if (quiet_for >= t_.hang_after_s && (iv.procs > 0 || iv.ib_ports > 0) &&
      (busy <= t_.gpu_quiet || network_seen_))
    return {Label::kHang, gpu + ", network and storage quiet for " + format_duration(quiet_for)};
  if (busy >= t_.gpu_busy) return {Label::kCompute, gpu};
  if (util && *util >= t_.net_active)
    return {Label::kCommunication, gpu + ", " + path + " at " + pct(*util) + " of line rate"};
  if (nic_util >= t_.net_active)
    return {Label::kInputStorage, gpu + ", front-end NIC at " + pct(nic_util) +
                                      " of line rate (the storage path of an InfiniBand node)"};
  if ((storage && *storage >= t_.storage_active_bytes_per_s) ||
      (iv.proc_blkio_share && *iv.proc_blkio_share >= t_.blkio_share) ||
      (iv.fuse_waiting && *iv.fuse_waiting > 0))
    return {Label::kInputStorage,
            gpu + ", storage reads " + rate_or_na(storage) +
                (iv.fuse_waiting && *iv.fuse_waiting > 0 ? ", fuse requests waiting" : "")};
  if (iv.proc_runq_wait_share && *iv.proc_runq_wait_share >= t_.runq_wait_share)
    return {Label::kInputCpu, gpu + ", input processes wait for a CPU " +
                                  pct(*iv.proc_runq_wait_share) + " of the time they run"};
  return {Label::kIdle, gpu + ", no counter shows the path it waits on"};
}

// No GPU data: the watched processes' time is what there is. A rank in MPI polls its progress
// engine, so its CPU time cannot tell computing from communicating; the bytes on the network the
// job uses can, and they decide first.
Verdict Attributor::without_gpus(const Interval& iv, double quiet_for) {
  const auto net = network_bytes_per_s(iv);
  const auto storage = storage_read_bytes_per_s(iv);
  if (iv.procs == 0 && !net && !storage)
    return {Label::kUnknown, "no GPU, process or I/O counters"};
  if (net && *net >= t_.storage_active_bytes_per_s && *net >= storage.value_or(0))
    return {Label::kCommunication,
            "network " + format_rate_si(*net) +
                (iv.proc_cpu_cores
                     ? ", processes on CPU " + format_number(*iv.proc_cpu_cores) + " cores"
                     : "")};
  if (storage && *storage >= t_.storage_active_bytes_per_s)
    return {Label::kInputStorage, "storage reads " + format_rate_si(*storage)};
  if (iv.proc_blkio_share && *iv.proc_blkio_share >= t_.blkio_share)
    return {Label::kInputStorage, "block I/O wait " + pct(*iv.proc_blkio_share)};
  if (iv.proc_runq_wait_share && *iv.proc_runq_wait_share >= t_.runq_wait_share)
    return {Label::kInputCpu,
            "processes wait for a CPU " + pct(*iv.proc_runq_wait_share) + " of the time they run"};
  if (iv.proc_cpu_cores && *iv.proc_cpu_cores >= t_.cpu_active_cores)
    return {Label::kCompute, "processes on CPU " + format_number(*iv.proc_cpu_cores) + " cores"};
  if (iv.procs > 0 && quiet_for >= t_.hang_after_s)
    return {Label::kHang, "processes alive, no CPU, network or storage activity for " +
                              format_duration(quiet_for)};
  return {Label::kIdle, "little CPU, network or storage activity"};
}

std::string explain_rules(const Thresholds& t) {
  auto p = [](double r) { return pct(r); };
  std::string s;
  s += "How watch labels each interval (thresholds are choices stated here, not standards):\n\n";
  s += "With GPU counters (NVML), in this order:\n";
  s += "  (on a node with InfiniBand, the network below is InfiniBand; its front-end NIC is a\n"
       "  storage path: Blob through blobfuse, NFS, Azure Managed Lustre)\n";
  s += "  communication  the busiest InfiniBand port or counted NIC carries >= " +
       p(t.net_saturated) +
       " of its line rate (max(rx, tx) / rate),\n"
       "                 whatever NVML's utilization says: NCCL kernels count as busy, so an\n"
       "                 all-reduce at line rate reads 100 %.\n"
       "                 counters: ports/*/counters/port_{xmit,rcv}_data x 4 bytes, ports/*/rate;\n"
       "                 /proc/net/dev, /sys/class/net/*/speed\n";
  s += "  hang           network and storage below " + binary_rate(t.quiet_bytes_per_s) +
       " for >= " + format_duration(t.hang_after_s) +
       " (--hang-after) while the processes live,\n"
       "                 with GPU utilization <= " +
       p(t.gpu_quiet) +
       ", or at any utilization once the job has used the network\n"
       "                 (a rank spinning in a collective that never completes)\n";
  s += "  compute        mean GPU utilization >= " + p(t.gpu_busy) +
       " (nvmlDeviceGetUtilizationRates; MLPerf Storage counts a GPU\n"
       "                 fed at >= 90 % AU as fed)\n";
  s += "  communication  utilization below that and the network >= " + p(t.net_active) +
       " of line rate\n";
  s +=
      "  input-storage  storage reads >= " + binary_rate(t.storage_active_bytes_per_s) +
      " (the processes' /proc/PID/io read_bytes, else /proc/diskstats of\n"
      "                 top-level devices x 512 bytes, plus /proc/self/mountstats NFS server "
      "reads),\n"
      "                 or block I/O delay >= " +
      p(t.blkio_share) +
      " of thread time (/proc/PID/stat field 42, needs kernel.task_delayacct=1),\n"
      "                 or requests waiting on a fuse mount (/sys/fs/fuse/connections/N/waiting)\n";
  s += "  input-cpu      the watched processes wait on a run queue >= " + p(t.runq_wait_share) +
       " of the time they want a CPU\n"
       "                 (/proc/PID/task/*/schedstat: wait / (run + wait))\n";
  s += "  idle           none of the above: the GPUs wait and no counter says on what\n\n";
  s += "Without GPU counters (no NVML), the watched processes' time, in this order:\n";
  s += "  communication  network >= " + binary_rate(t.storage_active_bytes_per_s) +
       " and at least the storage read rate. An MPI rank polls while it\n"
       "                 waits, so its CPU time cannot tell compute from communication; the bytes "
       "on\n"
       "                 the network the job uses can. Ranks on one node talk over shared memory\n"
       "                 (no counter sees it) unless told to use lo: name it with --net lo.\n";
  s += "  input-storage  storage reads >= " + binary_rate(t.storage_active_bytes_per_s) +
       ", or block I/O delay >= " + p(t.blkio_share) + "\n";
  s += "  input-cpu      run-queue wait >= " + p(t.runq_wait_share) + "\n";
  s += "  compute        the processes use >= " + format_number(t.cpu_active_cores) +
       " cores (schedstat run time, else utime + stime)\n";
  s += "  hang           processes alive, all of the above quiet for >= " +
       format_duration(t.hang_after_s) + "\n";
  s += "  idle           processes alive, little activity, not yet long enough for hang\n\n";
  s += "straggler (replaying several nodes' recordings together): a node whose GPU utilization is\n"
       "  below " +
       p(t.straggler_ratio) +
       " of the median of its peers' in the same second, while the peers are at >= " +
       p(t.gpu_busy) + ".\n";
  s += "\nThe summary puts each interval's idle GPU time (1 - utilization) on its label: 'waiting "
       "on the\nnetwork' is the idle time of communication intervals, and so on.\n";
  return s;
}

}  // namespace trainready::watch
