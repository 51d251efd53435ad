#pragma once
// One sample of the node: counters read at one instant, the fact `watch` is built on. A source
// that cannot be read carries the reason in `*_unavailable` and no entries; a field a source
// does not offer stays std::nullopt. Nothing unavailable is ever written as 0.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "watch/proc_counters.h"

namespace trainready::watch {

struct GpuSample {
  int index = 0;
  std::string name;
  std::string uuid;
  // nvmlDeviceGetUtilizationRates: percent of the last sample period (1/6 s to 1 s, per NVML)
  // during which one or more kernels ran; DCGM_FI_DEV_GPU_UTIL.
  std::optional<double> util_percent;
  std::optional<double> mem_util_percent;  // DCGM_FI_DEV_MEM_COPY_UTIL
  std::optional<double> sm_clock_mhz;      // DCGM_FI_DEV_SM_CLOCK
  std::optional<double> power_watts;       // DCGM_FI_DEV_POWER_USAGE (NVML gives mW)
  // nvmlDeviceGetEnforcedPowerLimit (mW in NVML; DCGM_FI_DEV_ENFORCED_POWER_LIMIT): the limit the
  // board's power management enforces now. power_watts / this is how hard the GPU works: a
  // kernel spinning on a flag draws near idle power (watch/gpu_busy.h).
  std::optional<double> power_limit_watts;
  Counter mem_used_bytes;  // DCGM_FI_DEV_FB_USED is MiB; we keep bytes
  Counter mem_total_bytes;
  Counter clocks_event_reasons;               // DCGM_FI_DEV_CLOCK_THROTTLE_REASONS bitmask
  std::optional<double> pcie_tx_bytes_per_s;  // nvmlDeviceGetPcieThroughput (KB/s, 20 ms window)
  std::optional<double> pcie_rx_bytes_per_s;
  // Profiling activity. Filled by DCGM when watch attached to a running host engine (--dcgm):
  // DCGM_FI_PROF_SM_ACTIVE (1002), DCGM_FI_PROF_SM_OCCUPANCY (1003),
  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE (1004), ratios 0..1. Otherwise by NVML GPM on Hopper and
  // newer (nvmlGpmMetricsGet over the previous and this sample): NVML_GPM_METRIC_SM_UTIL,
  // _SM_OCCUPANCY and _ANY_TENSOR_UTIL (percent, / 100), the metrics DCGM itself maps those fields
  // to (NVIDIA/DCGM dcgmlib/src/dcgm_fields.cpp). Sample::gpu_profiling_source says which.
  std::optional<double> sm_active_ratio;
  std::optional<double> sm_occupancy_ratio;
  std::optional<double> tensor_active_ratio;
  // NVLink data throughput, bytes/s, all links: DCGM_FI_PROF_NVLINK_{TX,RX}_BYTES (1011/1012,
  // a rate in bytes/s despite the name: DCGM scales GPM's MiB/s by 2^20, DcgmCacheManager.cpp)
  // from DCGM; without DCGM the change of the NVML counters below over the sampler's previous
  // reading.
  std::optional<double> nvlink_tx_bytes_per_s;
  std::optional<double> nvlink_rx_bytes_per_s;
  // nvmlDeviceGetFieldValues NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_{TX,RX} (138/139) with scopeId
  // UINT_MAX (all links): cumulative data bytes (no protocol overhead) in KiB, per nvml.h.
  Counter nvlink_tx_kib;
  Counter nvlink_rx_kib;
};

struct IbPortSample {
  std::string device;  // mlx5_ib0
  int port = 1;
  std::string state;                // "4: ACTIVE"
  std::optional<double> rate_gbps;  // ports/N/rate: the link's signalling rate in Gb/s
  // counters/port_{xmit,rcv}_data as read: units of 4 octets (see ib_counters.h).
  Counter xmit_data;
  Counter rcv_data;
  // counters/port_xmit_wait: ticks the port had data to send but no credits (congestion).
  Counter xmit_wait;
  std::map<std::string, std::uint64_t> hw_counters;  // hw_counters/* that parsed
};

struct NetSample {
  std::string name;
  Counter rx_bytes;
  Counter tx_bytes;
  std::optional<double> speed_mbps;  // /sys/class/net/X/speed (Mb/s); absent for lo, -1 = unknown
  // /sys/class/net/X/master's name: set for a port enslaved to another interface (Azure's
  // accelerated-networking VF under its netvsc interface, a bond member), whose bytes the master
  // already counts.
  std::string master = {};
};

struct DiskSample {
  std::string name;
  Counter sectors_read;  // 512-byte units
  Counter sectors_written;
  Counter io_ticks_ms;
};

struct NfsSample {
  std::string device;
  std::string mountpoint;
  Counter app_read_bytes;
  Counter server_read_bytes;
  Counter server_write_bytes;
};

// One Lustre client file system instance (/proc/fs/lustre/llite/<fsname>-<sb>/stats; newer
// Lustre releases keep the stats files in debugfs, /sys/kernel/debug/lustre/llite/...).
struct LustreSample {
  std::string instance;  // the llite directory name, e.g. lustrefs-ffff88105db50000
  std::string fsname;    // lustrefs
  // llite read_bytes / write_bytes "sum": bytes the applications' read()/write() calls moved,
  // page-cache hits included (VFS level, not RPCs).
  Counter read_bytes;
  Counter write_bytes;
  // osc/<fsname>-OSTxxxx-osc-<sb>/stats read_bytes / write_bytes summed over the instance's OSTs:
  // bytes in bulk RPCs to and from the object servers (what crossed the network).
  Counter osc_read_bytes;
  Counter osc_write_bytes;
  int osts = 0;  // osc stats files summed
};

struct FuseSample {
  std::string mountpoint;
  std::string fstype;
  Counter waiting;  // /sys/fs/fuse/connections/N/waiting: requests not yet answered (a gauge)
};

struct ProcSample {
  int pid = 0;
  std::string comm;
  char state = '?';
  Counter start_ticks;
  Counter cpu_ticks;  // utime + stime
  Counter threads;
  Counter run_ns;       // schedstat summed over the process's threads
  Counter wait_ns;      // run-queue wait, summed likewise
  Counter blkio_ticks;  // delayacct; nullopt when kernel.task_delayacct is off
  Counter rchar;
  Counter wchar;
  Counter read_bytes;
  Counter write_bytes;
};

// One answer of NCCL's RAS service (watch/ras_client.h) to "STATUS", as received: the raw report
// (text or JSON, as NCCL chose), bounded; or why there is none. Parsed elsewhere
// (src/parsers/nccl_ras.h), never here.
struct RasReply {
  std::string address;      // HOST:PORT queried
  double time = 0;          // Unix seconds when the query ended
  double seconds = 0;       // how long it took
  std::string unavailable;  // why there is no report (refused, no answer by the deadline, ...)
  std::string format;       // "json" or "text"
  std::string server_protocol;
  std::string text;  // the report as NCCL sent it, at most kRasMaxReplyBytes
  bool truncated = false;
};

struct Sample {
  double time = 0;       // seconds since the Unix epoch (CLOCK_REALTIME), for people and files
  double monotonic = 0;  // CLOCK_MONOTONIC seconds: intervals never jump with the wall clock
  double clock_ticks_per_s = 100;  // sysconf(_SC_CLK_TCK) of the sampled node
  std::string gpu_unavailable;     // empty when NVML answered
  std::vector<GpuSample> gpus;
  // Where sm_active_ratio & co. came from ("DCGM host engine 127.0.0.1:5555", "NVML GPM"), or
  // why they are absent (no host engine, GPM unsupported before Hopper, counters held elsewhere).
  std::string gpu_profiling_source;
  std::string gpu_profiling_unavailable;
  std::string ib_unavailable;
  std::vector<IbPortSample> ib;
  std::string net_unavailable;
  std::vector<NetSample> net;
  std::string disk_unavailable;
  std::vector<DiskSample> disks;
  std::string nfs_unavailable;
  std::vector<NfsSample> nfs;
  std::string lustre_unavailable;
  std::vector<LustreSample> lustre;
  std::string fuse_unavailable;
  std::vector<FuseSample> fuse;
  std::string proc_unavailable;   // no --pid / --all, or none of them readable
  std::vector<int> watched_pids;  // what the user asked for (alive or not)
  std::vector<ProcSample> procs;
  // Set only in the sample taken just after a RAS query ended (rank 0 of a job, --ras-addr).
  std::optional<RasReply> nccl_ras;
};

}  // namespace trainready::watch
