// watch's counter parsers on real kernel output, and the delta arithmetic (wraps, resets,
// saturated InfiniBand counters, the 4-byte unit).
#include <gtest/gtest.h>

#include "support/paths.h"
#include "watch/counter_delta.h"
#include "watch/proc_counters.h"

using namespace trainready;
using namespace trainready::watch;

namespace {
std::string data(const std::string& name) { return test::read_fixture("../watch/" + name); }
}  // namespace

TEST(WatchCounters, DiskstatsOfThisVm) {
  const auto d = parse_diskstats(data("diskstats-debian12-vm.txt"));
  ASSERT_GE(d.size(), 9u);
  const DiskStat* vda = nullptr;
  for (const DiskStat& x : d) {
    if (x.name == "vda") vda = &x;
  }
  ASSERT_NE(vda, nullptr);
  EXPECT_TRUE(vda->sectors_read.has_value());
  EXPECT_GT(*vda->sectors_read, 0u);
  EXPECT_TRUE(vda->io_ticks_ms.has_value());
}

TEST(WatchCounters, DiskstatsFieldsByPosition) {
  // major minor name reads merged sectors ms writes merged sectors ms inflight io_ms weighted
  const auto d = parse_diskstats(" 259 0 nvme0n1 10 0 2048 5 20 0 4096 7 0 33 12\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(*d[0].reads_completed, 10u);
  EXPECT_EQ(*d[0].sectors_read, 2048u);
  EXPECT_EQ(*d[0].sectors_written, 4096u);
  EXPECT_EQ(*d[0].io_ticks_ms, 33u);
  EXPECT_TRUE(parse_diskstats("garbage\n1 2 short 3\n").empty());
}

TEST(WatchCounters, NetDevSkipsHeaders) {
  const auto n = parse_net_dev(data("net-dev-debian12-vm.txt"));
  ASSERT_GE(n.size(), 2u);
  bool lo = false;
  for (const NetDevStat& x : n) {
    EXPECT_TRUE(x.rx_bytes.has_value()) << x.name;
    lo = lo || x.name == "lo";
  }
  EXPECT_TRUE(lo);
}

TEST(WatchCounters, MountstatsNfsBytes) {
  const auto m = parse_mountstats(data("mountstats-nfs4-procfs.txt"));
  ASSERT_EQ(m.size(), 1u);  // rootfs, sysfs, proc, ext4 are not NFS
  EXPECT_EQ(m[0].mountpoint, "/mnt/nfs/test");
  EXPECT_EQ(m[0].device, "192.168.1.1:/srv/test");
  EXPECT_EQ(*m[0].app_read_bytes, 1207640230u);
  EXPECT_EQ(*m[0].server_read_bytes, 1210214218u);
  EXPECT_EQ(*m[0].server_write_bytes, 0u);
}

TEST(WatchCounters, FuseMountsFromMountinfo) {
  EXPECT_TRUE(parse_fuse_mounts(data("mountinfo-debian12-vm.txt")).empty());
  // blobfuse2 as mountinfo shows it (a space in the mount point is \040).
  const auto f = parse_fuse_mounts(
      "36 25 0:53 / /mnt/blob\\040data rw,nosuid,nodev,relatime shared:1 - fuse.blobfuse2 "
      "blobfuse2 rw,user_id=0,group_id=0\n"
      "37 25 8:1 / /data rw - ext4 /dev/sda1 rw\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].mountpoint, "/mnt/blob data");
  EXPECT_EQ(f[0].fstype, "fuse.blobfuse2");
  EXPECT_EQ(f[0].minor, 53u);
}

TEST(WatchCounters, ProcFilesOfARealProcess) {
  const ProcIo io = parse_proc_io(data("proc-io-cat.txt"));
  EXPECT_TRUE(io.rchar && io.wchar && io.read_bytes && io.write_bytes);
  const auto st = parse_proc_stat(data("proc-stat-cat.txt"));
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->comm, "cat");
  EXPECT_EQ(st->state, 'R');
  EXPECT_EQ(*st->num_threads, 1u);
  EXPECT_EQ(*st->starttime_ticks, 2118615u);
  EXPECT_EQ(*st->blkio_delay_ticks, 0u);
  const auto ss = parse_schedstat(data("proc-schedstat-pid1.txt"));
  ASSERT_TRUE(ss.has_value());
  EXPECT_GT(ss->run_ns, 0u);
}

TEST(WatchCounters, CommWithParenthesesAndSpaces) {
  const auto st = parse_proc_stat(
      "42 (a) b (c) S 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 4 0 999 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
      "0 0 0 0 0 0 0 0 55 0 0\n");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->comm, "a) b (c");
  EXPECT_EQ(*st->utime_ticks, 7u);
  EXPECT_EQ(*st->stime_ticks, 3u);
  EXPECT_EQ(*st->num_threads, 4u);
  EXPECT_FALSE(parse_proc_stat("no parens here").has_value());
  EXPECT_FALSE(parse_schedstat("x y").has_value());
}

TEST(WatchCounters, UnavailableIsNotZero) {
  const ProcIo io = parse_proc_io("rchar: 5\n");
  EXPECT_EQ(*io.rchar, 5u);
  EXPECT_FALSE(io.read_bytes.has_value());
  EXPECT_FALSE(parse_counter("").has_value());
  EXPECT_FALSE(parse_counter("-1").has_value());
  EXPECT_FALSE(parse_counter("99999999999999999999999").has_value());
}

TEST(CounterDelta, WrapsResetsAndSaturation) {
  EXPECT_EQ(*counter_delta(10, 25, CounterKind::kWraps64), 15u);
  // A 64-bit counter just below the top wraps; one far below went backwards: a reset.
  EXPECT_EQ(*counter_delta(UINT64_MAX - 4, 5, CounterKind::kWraps64), 10u);
  EXPECT_FALSE(counter_delta(1000, 5, CounterKind::kWraps64).has_value());
  EXPECT_EQ(*counter_delta(0xFFFFFFF0u, 0x10u, CounterKind::kWraps32), 0x20u);
  // A 32-bit PortCounters value pinned at its maximum says nothing about the interval.
  EXPECT_FALSE(counter_delta(kIb32BitMax, kIb32BitMax, CounterKind::kIbPort).has_value());
  EXPECT_FALSE(counter_delta(100, kIb32BitMax, CounterKind::kIbPort).has_value());
  EXPECT_EQ(*counter_delta(100, 200, CounterKind::kIbPort), 100u);
  EXPECT_FALSE(counter_delta(std::nullopt, 200, CounterKind::kIbPort).has_value());
  EXPECT_EQ(kIbDataUnitBytes, 4u);
}

// reliability-probe-3 D23: a counter that jumps forward by about 2^64 (a read of all ones) is a
// bad read, like a reset: no delta, never a rate of 10^11 % of line rate.
TEST(CounterDelta, AForwardJumpOfHalfTheRangeIsNotTraffic) {
  EXPECT_FALSE(counter_delta(5, UINT64_MAX, CounterKind::kIbPort).has_value());
  EXPECT_FALSE(counter_delta(5, UINT64_MAX, CounterKind::kWraps64).has_value());
  EXPECT_FALSE(counter_delta(0, std::uint64_t{1} << 63, CounterKind::kWraps64).has_value());
  EXPECT_EQ(*counter_delta(0, (std::uint64_t{1} << 62), CounterKind::kWraps64),
            std::uint64_t{1} << 62);
}
