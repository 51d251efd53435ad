#pragma once
// Pure parsers for the kernel counter files `watch` samples: text in, counters out. Every field
// a line lacks stays std::nullopt (unavailable), never 0; a line that is not the expected shape
// is skipped, so one odd device never hides the others.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready::watch {

using Counter = std::optional<std::uint64_t>;

// /proc/diskstats (Documentation/admin-guide/iostats.rst): sectors are 512 bytes whatever the
// device's block size ("sectors" in iostats.rst are the kernel's 512-byte units).
struct DiskStat {
  std::string name;
  Counter reads_completed;
  Counter sectors_read;
  Counter sectors_written;
  Counter io_ticks_ms;  // field 10: milliseconds spent doing I/Os
};
std::vector<DiskStat> parse_diskstats(std::string_view text);

// /proc/net/dev: "iface: rx_bytes rx_packets ... (8 rx fields) tx_bytes ...".
struct NetDevStat {
  std::string name;
  Counter rx_bytes;
  Counter tx_bytes;
};
std::vector<NetDevStat> parse_net_dev(std::string_view text);

// /proc/self/mountstats, NFS mounts: the "bytes:" line (nfs_iostat: normalreadbytes
// normalwritebytes directreadbytes directwritebytes serverreadbytes serverwritebytes ...).
// Reads the application asked for = normal + direct; what crossed the wire = server*.
struct NfsMountStat {
  std::string device;  // server:/export
  std::string mountpoint;
  std::string fstype;  // nfs, nfs4
  Counter app_read_bytes;
  Counter app_write_bytes;
  Counter server_read_bytes;
  Counter server_write_bytes;
};
std::vector<NfsMountStat> parse_mountstats(std::string_view text);

// /proc/self/mountinfo: fuse mounts (blobfuse2 is fuse with fstype "fuse" or "fuse.blobfuse2")
// with their device number, which names /sys/fs/fuse/connections/<minor>.
struct FuseMount {
  std::string mountpoint;
  std::string fstype;
  std::string source;
  unsigned minor = 0;
};
std::vector<FuseMount> parse_fuse_mounts(std::string_view mountinfo);

// /proc/PID/io (Documentation/filesystems/proc.rst, "/proc/<pid>/io"): rchar/wchar count every
// read()/write() (sockets and page-cache hits too); read_bytes/write_bytes only what reached the
// block layer.
struct ProcIo {
  Counter rchar;
  Counter wchar;
  Counter read_bytes;
  Counter write_bytes;
};
ProcIo parse_proc_io(std::string_view text);

// /proc/PID/stat (proc(5)): the command is in parentheses and may itself hold ") ", so fields are
// counted from the last ')'.
struct ProcStat {
  std::string comm;
  char state = '?';
  Counter utime_ticks;        // field 14
  Counter stime_ticks;        // field 15
  Counter num_threads;        // field 20
  Counter starttime_ticks;    // field 22: tells a reused pid from the process seen before
  Counter blkio_delay_ticks;  // field 42: delayacct_blkio_ticks (needs task_delayacct)
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// /proc/PID/task/TID/schedstat (Documentation/scheduler/sched-stats.rst): time on the CPU (ns),
// time waiting on a run queue (ns), timeslices.
struct SchedStat {
  std::uint64_t run_ns = 0;
  std::uint64_t wait_ns = 0;
};
std::optional<SchedStat> parse_schedstat(std::string_view text);

// A one-line decimal counter (sysfs); nullopt when the file holds anything else.
Counter parse_counter(std::string_view text);

}  // namespace trainready::watch
