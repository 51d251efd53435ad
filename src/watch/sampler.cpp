#include "watch/sampler.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"
#include "parsers/ib_common.h"
#include "watch/lustre_stats.h"

namespace trainready::watch {
namespace {

// Bounds: a node with more than this many watched processes or threads is sampled partly (the
// first ones in pid order) rather than turning a 1 Hz sampler into a full /proc walk.
constexpr std::size_t kMaxProcs = 4096;
constexpr std::size_t kMaxThreadsPerProc = 4096;
// Lustre: client mounts and the OSC stats files summed per sample (one per object server).
constexpr std::size_t kMaxLustreInstances = 64;
constexpr std::size_t kMaxOscFiles = 4096;
// The hw_counters that tell congestion or retransmission (mlx5; names from the kernel's
// drivers/infiniband/hw/mlx5/counters.c). Read only these: a full listing is ~60 files a port.
constexpr const char* kHwCounters[] = {
    "out_of_sequence", "packet_seq_err", "local_ack_timeout_err",     "rnr_nak_retry_err",
    "np_cnp_sent",     "rp_cnp_handled", "np_ecn_marked_roce_packets"};

double clock_seconds(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

Counter read_counter(const Root& root, const std::string& path) {
  FileRead r = root.read_file(path);
  return r.ok() ? parse_counter(r.data) : std::nullopt;
}

std::string why(const FileRead& r, const Root& root, const std::string& path) {
  return root.display(path) + ": " + (r.error.empty() ? "unreadable" : r.error);
}

}  // namespace

Sampler::Sampler(const Root& root, SamplerOptions options)
    : root_(root),
      options_(std::move(options)),
      dcgm_(options_.dcgm),
      nvml_(options_.nvml_library, !dcgm_.attached()) {
  // delayacct_blkio_ticks is 0 for every task unless the kernel accounts delays
  // (kernel.task_delayacct, Linux 5.14+, or the delayacct boot option): then it is unavailable.
  FileRead d = root_.read_file("/proc/sys/kernel/task_delayacct");
  if (d.ok() && trim(d.data) == "1") {
    delayacct_ = true;
  } else {
    delayacct_reason_ = d.ok() ? "kernel.task_delayacct is 0 (block I/O wait is not accounted)"
                               : "no /proc/sys/kernel/task_delayacct";
  }
}

Sample Sampler::sample() {
  Sample s;
  s.time = clock_seconds(CLOCK_REALTIME);
  s.monotonic = clock_seconds(CLOCK_MONOTONIC);
  if (const long t = ::sysconf(_SC_CLK_TCK); t > 0) s.clock_ticks_per_s = static_cast<double>(t);
  nvml_.sample(s);
  if (dcgm_.attached()) {
    dcgm_.sample(s);
  } else if (s.gpu_profiling_source.empty() && !s.gpus.empty()) {
    // Neither source gave profiling values: say why for both.
    s.gpu_profiling_unavailable += "; DCGM: " + dcgm_.unavailable();
  }
  sample_ib(s);
  sample_net(s);
  sample_disks(s);
  sample_mounts(s);
  sample_lustre(s);
  sample_procs(s);
  return s;
}

void Sampler::sample_ib(Sample& s) const {
  const std::string base = "/sys/class/infiniband";
  DirList devs = root_.list_dir(base);
  if (!devs.ok()) {
    s.ib_unavailable = "no InfiniBand devices (" + root_.display(base) + ": " + devs.error + ")";
    return;
  }
  for (const std::string& dev : devs.entries) {
    DirList ports = root_.list_dir(base + "/" + dev + "/ports");
    for (const std::string& p : ports.entries) {
      const auto n = parse_int(p);
      if (!n || *n < 0 || *n > 255) continue;
      const std::string pdir = base + "/" + dev + "/ports/" + p;
      IbPortSample port;
      port.device = dev;
      port.port = static_cast<int>(*n);
      if (FileRead st = root_.read_file(pdir + "/state"); st.ok()) port.state = first_line(st.data);
      if (FileRead r = root_.read_file(pdir + "/rate"); r.ok())
        port.rate_gbps = parse_rate_gbps(r.data);
      port.xmit_data = read_counter(root_, pdir + "/counters/port_xmit_data");
      port.rcv_data = read_counter(root_, pdir + "/counters/port_rcv_data");
      port.xmit_wait = read_counter(root_, pdir + "/counters/port_xmit_wait");
      for (const char* h : kHwCounters) {
        if (Counter v = read_counter(root_, pdir + "/hw_counters/" + h)) port.hw_counters[h] = *v;
      }
      s.ib.push_back(std::move(port));
    }
  }
  if (s.ib.empty()) s.ib_unavailable = "no InfiniBand ports under " + root_.display(base);
}

void Sampler::sample_net(Sample& s) const {
  FileRead r = root_.read_file("/proc/net/dev", kLargeFileLimit);
  if (!r.ok()) {
    s.net_unavailable = why(r, root_, "/proc/net/dev");
    return;
  }
  for (NetDevStat& n : parse_net_dev(r.data)) {
    NetSample ns;
    ns.name = n.name;
    ns.rx_bytes = n.rx_bytes;
    ns.tx_bytes = n.tx_bytes;
    if (n.name.find('/') == std::string::npos) {
      if (FileRead sp = root_.read_file("/sys/class/net/" + n.name + "/speed"); sp.ok()) {
        const auto v = parse_double(trim(sp.data));
        if (v && *v > 0) ns.speed_mbps = *v;  // -1 (unknown) stays unavailable
      }
      if (LinkRead m = root_.read_link("/sys/class/net/" + n.name + "/master"); m.ok()) {
        const std::size_t slash = m.target.rfind('/');
        ns.master = slash == std::string::npos ? m.target : m.target.substr(slash + 1);
      }
    }
    s.net.push_back(std::move(ns));
  }
}

void Sampler::sample_disks(Sample& s) const {
  FileRead r = root_.read_file("/proc/diskstats", kLargeFileLimit);
  if (!r.ok()) {
    s.disk_unavailable = why(r, root_, "/proc/diskstats");
    return;
  }
  // Count each byte once: whole devices only (partitions are not in /sys/block), and of a stack
  // (md over NVMe, dm over a disk) only the top, the device nothing else holds. Loop and RAM
  // disks are files and memory, not storage paths.
  DirList block = root_.list_dir("/sys/block");
  std::set<std::string> top;
  for (const std::string& b : block.entries) {
    if (b.rfind("loop", 0) == 0 || b.rfind("ram", 0) == 0 || b.rfind("zram", 0) == 0) continue;
    DirList holders = root_.list_dir("/sys/block/" + b + "/holders");
    if (holders.ok() && !holders.entries.empty()) continue;
    top.insert(b);
  }
  for (DiskStat& d : parse_diskstats(r.data)) {
    if (block.ok() && top.count(d.name) == 0) continue;
    s.disks.push_back({d.name, d.sectors_read, d.sectors_written, d.io_ticks_ms});
  }
}

void Sampler::sample_mounts(Sample& s) const {
  FileRead ms = root_.read_file("/proc/self/mountstats", kLargeFileLimit);
  if (!ms.ok()) {
    s.nfs_unavailable = why(ms, root_, "/proc/self/mountstats");
  } else {
    for (NfsMountStat& m : parse_mountstats(ms.data))
      s.nfs.push_back(
          {m.device, m.mountpoint, m.app_read_bytes, m.server_read_bytes, m.server_write_bytes});
  }
  FileRead mi = root_.read_file("/proc/self/mountinfo", kLargeFileLimit);
  if (!mi.ok()) {
    s.fuse_unavailable = why(mi, root_, "/proc/self/mountinfo");
    return;
  }
  for (FuseMount& m : parse_fuse_mounts(mi.data)) {
    FuseSample f;
    f.mountpoint = m.mountpoint;
    f.fstype = m.fstype;
    f.waiting =
        read_counter(root_, "/sys/fs/fuse/connections/" + std::to_string(m.minor) + "/waiting");
    s.fuse.push_back(std::move(f));
  }
}

void Sampler::sample_lustre(Sample& s) const {
  // Older clients keep lprocfs under /proc/fs/lustre; newer ones put the stats files in debugfs
  // (readable by root only). The first base with an llite directory is the client's.
  static constexpr const char* kBases[] = {"/proc/fs/lustre", "/sys/kernel/debug/lustre"};
  std::string base;
  DirList llite;
  for (const char* b : kBases) {
    llite = root_.list_dir(std::string(b) + "/llite");
    if (llite.ok()) {
      base = b;
      break;
    }
  }
  if (base.empty()) {
    s.lustre_unavailable = "no Lustre client (" + root_.display("/proc/fs/lustre/llite") + " and " +
                           root_.display("/sys/kernel/debug/lustre/llite") +
                           " are absent or unreadable)";
    return;
  }
  std::string first_error;
  std::map<std::string, std::size_t> by_instance;
  for (const std::string& inst : llite.entries) {
    if (s.lustre.size() >= kMaxLustreInstances) break;
    const std::string path = base + "/llite/" + inst + "/stats";
    FileRead r = root_.read_file(path, kLargeFileLimit);
    std::optional<LustreStats> st = r.ok() ? parse_lustre_stats(r.data) : std::nullopt;
    if (!st) {
      if (first_error.empty())
        first_error =
            r.ok() ? root_.display(path) + ": not an lprocfs stats file" : why(r, root_, path);
      continue;
    }
    LustreSample l;
    l.instance = inst;
    l.fsname = lustre_fsname(inst);
    l.read_bytes = st->read_bytes;
    l.write_bytes = st->write_bytes;
    by_instance[inst] = s.lustre.size();
    s.lustre.push_back(std::move(l));
  }
  if (s.lustre.empty()) {
    s.lustre_unavailable = first_error.empty() ? "no Lustre file system mounted (" +
                                                     root_.display(base + "/llite") + " is empty)"
                                               : first_error;
    return;
  }
  // The RPC side: one stats file per object server. A node mounting a file system with
  // thousands of OSTs reads that many files a sample; kMaxOscFiles bounds it, and an instance
  // whose OSCs were not all read gets no OSC total rather than a partial one.
  DirList osc = root_.list_dir(base + "/osc");
  std::map<std::string, bool> complete;
  std::size_t files = 0;
  for (const std::string& dir : osc.entries) {
    auto it = by_instance.find(lustre_osc_instance(dir));
    if (it == by_instance.end()) continue;
    LustreSample& l = s.lustre[it->second];
    if (complete.count(l.instance) == 0) complete[l.instance] = true;
    std::optional<LustreStats> st;
    if (++files <= kMaxOscFiles) {
      FileRead r = root_.read_file(base + "/osc/" + dir + "/stats", kLargeFileLimit);
      if (r.ok()) st = parse_lustre_stats(r.data);
    }
    if (!st) {
      complete[l.instance] = false;
      continue;
    }
    l.osc_read_bytes = l.osc_read_bytes.value_or(0) + *st->read_bytes;
    l.osc_write_bytes = l.osc_write_bytes.value_or(0) + *st->write_bytes;
    ++l.osts;
  }
  for (LustreSample& l : s.lustre) {
    if (auto c = complete.find(l.instance); c != complete.end() && !c->second) {
      l.osc_read_bytes.reset();
      l.osc_write_bytes.reset();
      l.osts = 0;
    }
  }
}

void Sampler::sample_procs(Sample& s) const {
  s.watched_pids = options_.pids;
  std::vector<int> todo;
  if (options_.all_processes) {
    for (const std::string& e : root_.list_dir("/proc").entries) {
      if (auto p = parse_int(e); p && *p > 0 && *p < (1 << 22))
        todo.push_back(static_cast<int>(*p));
    }
  } else {
    todo = options_.pids;
  }
  if (todo.empty()) {
    s.proc_unavailable = "no process watched (give --pid PID or --all)";
    return;
  }
  std::set<int> seen;
  while (!todo.empty() && seen.size() < kMaxProcs) {
    const int pid = todo.back();
    todo.pop_back();
    if (!seen.insert(pid).second) continue;
    const std::string dir = "/proc/" + std::to_string(pid);
    FileRead st = root_.read_file(dir + "/stat");
    if (!st.ok()) continue;  // exited
    auto ps = parse_proc_stat(st.data);
    if (!ps) continue;
    ProcSample p;
    p.pid = pid;
    p.comm = ps->comm;
    p.state = ps->state;
    p.start_ticks = ps->starttime_ticks;
    if (ps->utime_ticks && ps->stime_ticks) p.cpu_ticks = *ps->utime_ticks + *ps->stime_ticks;
    p.threads = ps->num_threads;
    if (delayacct_) p.blkio_ticks = ps->blkio_delay_ticks;
    if (FileRead io = root_.read_file(dir + "/io"); io.ok()) {
      ProcIo pio = parse_proc_io(io.data);
      p.rchar = pio.rchar;
      p.wchar = pio.wchar;
      p.read_bytes = pio.read_bytes;
      p.write_bytes = pio.write_bytes;
    }
    // /proc/PID/schedstat is the main thread alone: the process is the sum of its tasks.
    DirList tasks = root_.list_dir(dir + "/task");
    std::uint64_t run = 0, wait = 0;
    bool any = false;
    std::size_t n = 0;
    for (const std::string& t : tasks.entries) {
      if (++n > kMaxThreadsPerProc) break;
      const std::string tdir = dir + "/task/" + t;
      if (FileRead ss = root_.read_file(tdir + "/schedstat"); ss.ok()) {
        if (auto v = parse_schedstat(ss.data)) {
          run += v->run_ns;
          wait += v->wait_ns;
          any = true;
        }
      }
      if (options_.all_processes) continue;
      // Children of every thread (Linux 3.5+, CONFIG_PROC_CHILDREN): data-loader workers.
      if (FileRead ch = root_.read_file(tdir + "/children"); ch.ok()) {
        for (std::string_view c : split_ws(ch.data)) {
          if (auto cp = parse_int(c); cp && *cp > 0) todo.push_back(static_cast<int>(*cp));
        }
      }
    }
    if (any) {
      p.run_ns = run;
      p.wait_ns = wait;
    }
    s.procs.push_back(std::move(p));
  }
  std::sort(s.procs.begin(), s.procs.end(),
            [](const ProcSample& a, const ProcSample& b) { return a.pid < b.pid; });
  if (s.procs.empty()) s.proc_unavailable = "none of the watched processes is running";
}

}  // namespace trainready::watch
