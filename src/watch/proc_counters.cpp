#include "watch/proc_counters.h"

#include "parsers/procfs.h"

#include "core/text.h"

namespace trainready::watch {
namespace {

Counter to_counter(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

Counter field(const std::vector<std::string_view>& f, std::size_t i) {
  return i < f.size() ? to_counter(f[i]) : std::nullopt;
}

}  // namespace

Counter parse_counter(std::string_view text) { return to_counter(trim(text)); }

std::vector<DiskStat> parse_diskstats(std::string_view text) {
  std::vector<DiskStat> out;
  for (std::string_view line : split_lines(text)) {
    const auto f = split_ws(line);
    // major minor name + at least the 11 fields of Linux 2.6 (later kernels append more).
    if (f.size() < 14 || !to_counter(f[0]) || !to_counter(f[1])) continue;
    DiskStat d;
    d.name = std::string(f[2]);
    d.reads_completed = field(f, 3);
    d.sectors_read = field(f, 5);
    d.sectors_written = field(f, 9);
    d.io_ticks_ms = field(f, 12);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<NetDevStat> parse_net_dev(std::string_view text) {
  std::vector<NetDevStat> out;
  for (std::string_view line : split_lines(text)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = trim(line.substr(0, colon));
    const auto f = split_ws(line.substr(colon + 1));
    if (name.empty() || f.size() < 16) continue;  // the two header lines have no 16 numbers
    NetDevStat n;
    n.name = std::string(name);
    n.rx_bytes = field(f, 0);
    n.tx_bytes = field(f, 8);
    if (!n.rx_bytes && !n.tx_bytes) continue;
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<NfsMountStat> parse_mountstats(std::string_view text) {
  std::vector<NfsMountStat> out;
  bool in_nfs = false;
  for (std::string_view line : split_lines(text)) {
    const auto f = split_ws(line);
    if (f.empty()) continue;
    if (f[0] == "device") {
      // device SRC mounted on MNT with fstype TYPE [statvers=...]
      in_nfs = false;
      if (f.size() < 8 || f[2] != "mounted" || f[3] != "on" || f[5] != "with" || f[6] != "fstype")
        continue;
      if (f[7] != "nfs" && f[7] != "nfs4") continue;
      NfsMountStat m;
      m.device = unescape_octal(f[1]);
      m.mountpoint = unescape_octal(f[4]);
      m.fstype = std::string(f[7]);
      out.push_back(std::move(m));
      in_nfs = true;
    } else if (in_nfs && f[0] == "bytes:" && f.size() >= 7) {
      NfsMountStat& m = out.back();
      const Counter nr = field(f, 1), nw = field(f, 2), dr = field(f, 3), dw = field(f, 4);
      if (nr && dr) m.app_read_bytes = *nr + *dr;
      if (nw && dw) m.app_write_bytes = *nw + *dw;
      m.server_read_bytes = field(f, 5);
      m.server_write_bytes = field(f, 6);
    }
  }
  return out;
}

std::vector<FuseMount> parse_fuse_mounts(std::string_view mountinfo) {
  std::vector<FuseMount> out;
  for (std::string_view line : split_lines(mountinfo)) {
    const auto f = split_ws(line);
    std::size_t dash = 0;
    for (std::size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        dash = i;
        break;
      }
    }
    if (dash == 0 || dash + 2 >= f.size()) continue;
    const std::string_view fstype = f[dash + 1];
    if (fstype != "fuse" && fstype.substr(0, 5) != "fuse.") continue;
    const std::string_view dev = f[2];
    const std::size_t colon = dev.find(':');
    if (colon == std::string_view::npos) continue;
    const Counter minor = to_counter(dev.substr(colon + 1));
    if (!minor || *minor > 0xFFFFF) continue;
    FuseMount m;
    m.mountpoint = unescape_octal(f[4]);
    m.fstype = std::string(fstype);
    m.source = unescape_octal(f[dash + 2]);
    m.minor = static_cast<unsigned>(*minor);
    out.push_back(std::move(m));
  }
  return out;
}

ProcIo parse_proc_io(std::string_view text) {
  ProcIo io;
  for (std::string_view line : split_lines(text)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const Counter v = to_counter(trim(line.substr(colon + 1)));
    if (key == "rchar")
      io.rchar = v;
    else if (key == "wchar")
      io.wchar = v;
    else if (key == "read_bytes")
      io.read_bytes = v;
    else if (key == "write_bytes")
      io.write_bytes = v;
  }
  return io;
}

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ProcStat s;
  s.comm = std::string(text.substr(open + 1, close - open - 1));
  const auto f = split_ws(text.substr(close + 1));
  // f[0] is field 3 (state): field n is f[n - 3].
  if (f.size() < 20 || f[0].size() != 1) return std::nullopt;
  s.state = f[0][0];
  s.utime_ticks = field(f, 14 - 3);
  s.stime_ticks = field(f, 15 - 3);
  s.num_threads = field(f, 20 - 3);
  s.starttime_ticks = field(f, 22 - 3);
  s.blkio_delay_ticks = field(f, 42 - 3);
  return s;
}

std::optional<SchedStat> parse_schedstat(std::string_view text) {
  const auto f = split_ws(text);
  if (f.size() < 2) return std::nullopt;
  const Counter run = to_counter(f[0]);
  const Counter wait = to_counter(f[1]);
  if (!run || !wait) return std::nullopt;
  return SchedStat{*run, *wait};
}

}  // namespace trainready::watch
