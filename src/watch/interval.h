#pragma once
// What happened between two samples: rates from counter deltas, in base units (bytes/s, cores,
// ratios 0..1). Anything whose counters were unavailable in either sample stays std::nullopt.
#include <optional>
#include <string>
#include <vector>

#include "watch/sample.h"

namespace trainready::watch {

struct IntervalOptions {
  // Network interfaces to count (--net). Empty: every interface but lo, since loopback traffic
  // never leaves the node (a job whose ranks all talk over lo, one node, names it), and but one
  // with a master (Azure's accelerated-networking VF, whose bytes its netvsc interface counts).
  std::vector<std::string> net_interfaces;
};

struct Interval {
  double start = 0;  // Unix seconds
  double end = 0;
  double seconds = 0;  // monotonic length
  // GPUs: the mean of nvmlDeviceGetUtilizationRates().gpu over GPUs, as a ratio.
  int gpus = 0;
  std::optional<double> gpu_busy;
  std::optional<double> gpu_busy_min;  // the least busy GPU
  // Profiling activity (DCGM or NVML GPM, see GpuSample): means over the GPUs that report it.
  std::optional<double> gpu_sm_active;
  std::optional<double> gpu_tensor_active;
  // Power draw over the enforced power limit (NVML, both in the later sample), mean over the GPUs
  // that report both: a ratio 0..1 (a GPU briefly over its limit reads above 1).
  std::optional<double> gpu_power_ratio;
  // NVLink data bytes/s summed over GPUs: the NVML counters' change when both samples have them,
  // else the rates in the later sample (DCGM).
  std::optional<double> nvlink_tx_bytes_per_s;
  std::optional<double> nvlink_rx_bytes_per_s;
  // InfiniBand, ACTIVE ports only. Bytes = counter delta x 4 (counter_delta.h).
  int ib_ports = 0;
  double ib_line_gbps_each = 0;               // the fastest active port's rate (for "8 x 400 Gb/s")
  std::optional<double> ib_line_bytes_per_s;  // sum of active ports' rate / 8
  std::optional<double> ib_rx_bytes_per_s;
  std::optional<double> ib_tx_bytes_per_s;
  std::optional<double> ib_peak_port_util;  // max over ports of max(rx, tx) / rate
  std::optional<double> ib_xmit_wait_per_s;
  // Ethernet / other interfaces counted (see IntervalOptions).
  std::vector<std::string> net_names;
  std::optional<double> net_rx_bytes_per_s;
  std::optional<double> net_tx_bytes_per_s;
  std::optional<double> net_line_bytes_per_s;  // when every counted interface reports a speed
  std::optional<double> net_peak_util;         // max over interfaces of max(rx, tx) / speed
  std::optional<double> net_rx_peak_util;      // max over interfaces of rx / speed (input)
  std::optional<double> net_tx_peak_util;  // max over interfaces of tx / speed (checkpoint, egress)
  // Storage: top-level block devices, NFS mounts, fuse mounts.
  std::optional<double> disk_read_bytes_per_s;
  std::optional<double> disk_write_bytes_per_s;
  std::string busiest_disk;
  std::optional<double> nfs_read_bytes_per_s;
  // Lustre clients: llite read_bytes / write_bytes sums (what the applications read, page-cache
  // hits included), and the OSC RPC bytes (what came from the object servers: storage input).
  std::optional<double> lustre_read_bytes_per_s;
  std::optional<double> lustre_write_bytes_per_s;
  std::optional<double> lustre_osc_read_bytes_per_s;
  std::optional<double> fuse_waiting;  // requests waiting, summed over fuse mounts, at the end
  int fuse_mounts = 0;
  // The watched processes (matched by pid and start time in both samples).
  int procs = 0;                                    // alive at the end
  std::optional<double> proc_cpu_cores;             // CPU time / wall time
  std::optional<double> proc_runq_wait_share;       // run-queue wait / (on CPU + run-queue wait)
  std::optional<double> proc_blkio_share;           // block I/O delay / (wall time x threads)
  std::optional<double> proc_read_bytes_per_s;      // reached the block layer (read_bytes)
  std::optional<double> proc_other_io_bytes_per_s;  // rchar+wchar - storage: sockets, pipes, cache
  double proc_threads = 0;
};

Interval make_interval(const Sample& before, const Sample& after, const IntervalOptions& o);

// Lustre's storage input: the OSC read_bytes (bulk RPC bytes from the OSTs) where sampled; else
// llite's read_bytes (the applications' reads, page-cache hits included: an upper bound).
std::optional<double> lustre_storage_read_bytes_per_s(const Interval& iv);
// The storage read rate the job saw: the processes' own block reads when watched, else the
// node's disks, plus NFS and Lustre (whose reads never reach a local block device).
std::optional<double> storage_read_bytes_per_s(const Interval& iv);
// NVLink bytes/s both ways, summed over GPUs (NVML 138/139 deltas or DCGM 1011/1012 rates).
std::optional<double> nvlink_bytes_per_s(const Interval& iv);
// The bytes/s of the job's own data path, both ways: InfiniBand on a node that has it (its
// front-end NIC carries storage and downloads), else the counted interfaces; plus NVLink.
std::optional<double> data_path_bytes_per_s(const Interval& iv);
// Network bytes/s both ways: InfiniBand plus the counted interfaces.
std::optional<double> network_bytes_per_s(const Interval& iv);
// The busier of the InfiniBand and Ethernet paths, as a share of line rate.
std::optional<double> network_peak_util(const Interval& iv);

}  // namespace trainready::watch
