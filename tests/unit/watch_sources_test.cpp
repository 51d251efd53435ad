// The profiling and Lustre sources of `watch`: the llite/osc stats parser on real captures and
// garbage, the Lustre sampler over fixture trees, NVML GPM and NVLink counters through the fake
// libnvidia-ml, DCGM through the fake libdcgm attached to a listener this test opens, the
// interval arithmetic, and the recording round trip.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/input_error.h"
#include "core/root.h"
#include "support/paths.h"
#include "watch/dcgm_sampler.h"
#include "watch/interval.h"
#include "watch/lustre_stats.h"
#include "watch/nvml_sampler.h"
#include "watch/sample_json.h"
#include "watch/sampler.h"

using namespace trainready;
using namespace trainready::watch;

namespace {

std::string data(const std::string& name) { return test::read_fixture("../watch/" + name); }

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// A listening socket on 127.0.0.1: "a host engine listens" for the fake libdcgm's connect.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&sa), len) != 0 || ::listen(fd_, 4) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) != 0)
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    port_ = ntohs(sa.sin_port);
  }
  ~Listener() { ::close(fd_); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// An address nothing listens on: a port bound and closed again.
std::string closed_address() {
  std::string a;
  {
    Listener l;
    a = l.address();
  }
  return a;
}

std::string fake_nvml_json(const std::string& dir, const std::string& gpu_extra) {
  const std::string path = dir + "/nvml.json";
  put(path, R"({"driver_version": "550.54.15", "gpus": [
    {"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-aaaa", "utilization_percent": 70)" +
                gpu_extra + R"(},
    {"index": 1, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-bbbb", "utilization_percent": 30)" +
                gpu_extra + "}]}");
  return path;
}

}  // namespace

TEST(WatchLustre, LliteStatsOfARealClient) {
  // HewlettPackard/lustre_exporter fixture: one 4 MiB read, 89 M writes of 4 KiB..1 MiB.
  const auto st = parse_lustre_stats(data("lustre-llite-stats-hpe.txt"));
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st->read_bytes, 4194304u);
  EXPECT_EQ(*st->read_calls, 1u);
  EXPECT_EQ(*st->write_bytes, 93813797294080u);
  EXPECT_EQ(*st->write_calls, 89467810u);
}

TEST(WatchLustre, OscStatsWithoutReadsReadZero) {
  // The OSC file of the same client has no read_bytes line: lprocfs_stats_seq_show prints no
  // counter whose count is 0, so the client read nothing from this OST.
  const auto st = parse_lustre_stats(data("lustre-osc-stats-hpe.txt"));
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st->read_bytes, 0u);
  EXPECT_EQ(*st->read_calls, 0u);
  EXPECT_EQ(*st->write_bytes, 65298098221056u);
}

TEST(WatchLustre, NewerHeaderAndSumOfSquares) {
  // Newer lprocfs_stats_header adds start_time and elapsed_time lines; bytes counters may carry
  // a fifth number, the sum of squares.
  const auto st = parse_lustre_stats(
      "snapshot_time             1700000000.123456789 secs.nsecs\n"
      "start_time                1699990000.000000001 secs.nsecs\n"
      "elapsed_time              10000.123456788 secs.nsecs\n"
      "read_bytes                3 samples [bytes] 4096 1048576 1056768 1099528404992\n"
      "open                      2 samples [usecs] 10 20 30 500\n");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st->read_bytes, 1056768u);
  EXPECT_EQ(*st->write_bytes, 0u);
}

TEST(WatchLustre, GarbageIsNotStats) {
  EXPECT_FALSE(parse_lustre_stats("").has_value());
  EXPECT_FALSE(parse_lustre_stats("read_bytes 1 samples [bytes] 1 1 1\n").has_value());
  EXPECT_FALSE(
      parse_lustre_stats("snapshot_time 1.2 secs.nsecs\nread_bytes x samples [bytes] 1 1 1\n")
          .has_value());
  EXPECT_FALSE(parse_lustre_stats("snapshot_time 1.2 secs.nsecs\nread_bytes 1 samples [regs]\n")
                   .has_value());
  EXPECT_FALSE(
      parse_lustre_stats("snapshot_time 1.2 secs.nsecs\nwrite_bytes 1 samples [bytes] 1 2 -3\n")
          .has_value());
  EXPECT_FALSE(parse_lustre_stats(std::string("\0\xff\xfe snapshot", 11)).has_value());
}

TEST(WatchLustre, InstanceNames) {
  EXPECT_EQ(lustre_fsname("lustrefs-ffff88105db50000"), "lustrefs");
  EXPECT_EQ(lustre_fsname("my-fs-ffff9a1c2b3d4000"), "my-fs");
  EXPECT_EQ(lustre_osc_instance("lustrefs-OST0000-osc-ffff88105db50000"),
            "lustrefs-ffff88105db50000");
  EXPECT_EQ(lustre_osc_instance("lustrefs-MDT0000-mdc-ffff88105db50000"), "");
}

TEST(WatchLustre, SamplerSumsOscFilesPerInstance) {
  const std::string root = test::temp_dir("lustre-tree");
  put(root + "/proc/fs/lustre/llite/lustrefs-ffff88105db50000/stats",
      data("lustre-llite-stats-hpe.txt"));
  for (int i = 0; i < 3; ++i)
    put(root + "/proc/fs/lustre/osc/lustrefs-OST000" + std::to_string(i) +
            "-osc-ffff88105db50000/stats",
        "snapshot_time 1.1 secs.nsecs\nread_bytes 2 samples [bytes] 1 1048576 " +
            std::to_string(1000 * (i + 1)) + "\n");
  // Another client instance's OSC (a second mount) does not count toward this one.
  put(root + "/proc/fs/lustre/osc/scratch-OST0000-osc-ffff000000000001/stats",
      "snapshot_time 1.1 secs.nsecs\nread_bytes 2 samples [bytes] 1 1 99999\n");
  FsRoot r(root);
  Sampler sampler(r, {});
  const Sample s = sampler.sample();
  ASSERT_TRUE(s.lustre_unavailable.empty()) << s.lustre_unavailable;
  ASSERT_EQ(s.lustre.size(), 1u);
  EXPECT_EQ(s.lustre[0].fsname, "lustrefs");
  EXPECT_EQ(*s.lustre[0].read_bytes, 4194304u);
  EXPECT_EQ(*s.lustre[0].osc_read_bytes, 6000u);
  EXPECT_EQ(*s.lustre[0].osc_write_bytes, 0u);
  EXPECT_EQ(s.lustre[0].osts, 3);
}

TEST(WatchLustre, UnavailableSaysWhy) {
  const std::string bare = test::temp_dir("lustre-bare");
  std::filesystem::create_directories(bare + "/proc");
  FsRoot r1(bare);
  Sampler s1(r1, {});
  const Sample a = s1.sample();
  EXPECT_TRUE(a.lustre.empty());
  EXPECT_NE(a.lustre_unavailable.find("no Lustre client"), std::string::npos);

  const std::string empty = test::temp_dir("lustre-empty");
  std::filesystem::create_directories(empty + "/sys/kernel/debug/lustre/llite");
  FsRoot r2(empty);
  Sampler s2(r2, {});
  EXPECT_NE(s2.sample().lustre_unavailable.find("no Lustre file system mounted"),
            std::string::npos);

  const std::string bad = test::temp_dir("lustre-bad");
  put(bad + "/proc/fs/lustre/llite/x-ffff000000000001/stats", "not stats\n");
  FsRoot r3(bad);
  Sampler s3(r3, {});
  const Sample c = s3.sample();
  EXPECT_TRUE(c.lustre.empty());
  EXPECT_NE(c.lustre_unavailable.find("not an lprocfs stats file"), std::string::npos);
}

TEST(WatchInterval, LustreNvlinkAndProfiling) {
  Sample a, b;
  a.monotonic = 10;
  b.monotonic = 12;
  a.lustre.push_back({"fs-1", "fs", 1000, 0, 500, 0, 2});
  b.lustre.push_back({"fs-1", "fs", 1000 + 4'000'000, 0, 500 + 2'000'000, 0, 2});
  GpuSample g0, g1;
  g0.uuid = g1.uuid = "GPU-a";
  g0.nvlink_tx_kib = 100;
  g1.nvlink_tx_kib = 100 + 2048;   // 2 MiB in 2 s
  g1.nvlink_rx_bytes_per_s = 5e9;  // a DCGM rate, no counter
  g1.sm_active_ratio = 0.8;
  g1.tensor_active_ratio = 0.5;
  GpuSample h1;
  h1.uuid = "GPU-b";
  h1.index = 1;
  h1.sm_active_ratio = 0.4;
  a.gpus = {g0};
  b.gpus = {g1, h1};
  const Interval iv = make_interval(a, b, {});
  EXPECT_DOUBLE_EQ(*iv.lustre_read_bytes_per_s, 2e6);
  EXPECT_DOUBLE_EQ(*iv.lustre_osc_read_bytes_per_s, 1e6);
  // Storage input counts Lustre's OSC reads (from the OSTs), not llite's (page-cache hits
  // included: domain-review-3 finding 7); llite only where no OSC total was read.
  EXPECT_DOUBLE_EQ(*storage_read_bytes_per_s(iv), 1e6);
  Sample a2 = a, b2 = b;
  a2.lustre[0].osc_read_bytes.reset();
  b2.lustre[0].osc_read_bytes.reset();
  EXPECT_DOUBLE_EQ(*storage_read_bytes_per_s(make_interval(a2, b2, {})), 2e6);
  EXPECT_DOUBLE_EQ(*iv.nvlink_tx_bytes_per_s, 2048.0 * 1024 / 2);
  EXPECT_DOUBLE_EQ(*iv.nvlink_rx_bytes_per_s, 5e9);
  EXPECT_NEAR(*iv.gpu_sm_active, 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(*iv.gpu_tensor_active, 0.5);

  // Stats cleared between samples: the sum went back, the interval has no Lustre rate.
  b.lustre[0].read_bytes = 10;
  EXPECT_FALSE(make_interval(a, b, {}).lustre_read_bytes_per_s.has_value());
}

TEST(WatchRecording, NewSourcesRoundTrip) {
  Sample s;
  s.time = 1700000000;
  s.monotonic = 5;
  GpuSample g;
  g.uuid = "GPU-a";
  g.sm_active_ratio = 0.75;
  g.sm_occupancy_ratio = 0.25;
  g.tensor_active_ratio = 0.5;
  g.nvlink_tx_bytes_per_s = 1e9;
  g.nvlink_rx_kib = 12345;
  s.gpus.push_back(g);
  s.gpu_profiling_source = "DCGM host engine 127.0.0.1:5555";
  s.lustre.push_back({"fs-1", "fs", 7, 8, std::nullopt, 9, 0});
  const Sample r = sample_from_json(sample_to_json(s), "rec.jsonl", 2);
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(*r.gpus[0].sm_active_ratio, 0.75);
  EXPECT_EQ(*r.gpus[0].sm_occupancy_ratio, 0.25);
  EXPECT_EQ(*r.gpus[0].tensor_active_ratio, 0.5);
  EXPECT_EQ(*r.gpus[0].nvlink_tx_bytes_per_s, 1e9);
  EXPECT_FALSE(r.gpus[0].nvlink_rx_bytes_per_s.has_value());
  EXPECT_EQ(*r.gpus[0].nvlink_rx_kib, 12345u);
  EXPECT_EQ(r.gpu_profiling_source, s.gpu_profiling_source);
  ASSERT_EQ(r.lustre.size(), 1u);
  EXPECT_EQ(*r.lustre[0].read_bytes, 7u);
  EXPECT_FALSE(r.lustre[0].osc_read_bytes.has_value());  // null stays unavailable
  EXPECT_EQ(*r.lustre[0].osc_write_bytes, 9u);

  // A recording from before these sources: unavailable, not an error, not 0.
  nlohmann::json old = sample_to_json(s);
  old.erase("lustre");
  old.erase("gpu_profiling");
  const Sample o = sample_from_json(old, "old.jsonl", 3);
  EXPECT_TRUE(o.lustre.empty());
  EXPECT_NE(o.lustre_unavailable.find("not in this recording"), std::string::npos);
  EXPECT_NE(o.gpu_profiling_unavailable.find("not in this recording"), std::string::npos);

  // A ratio above 1 is a bad line: file and line named.
  nlohmann::json bad = sample_to_json(s);
  bad["gpu"]["items"][0]["sm_active_ratio"] = 75;
  try {
    (void)sample_from_json(bad, "bad.jsonl", 4);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sm_active_ratio"), std::string::npos);
  }
  bad = sample_to_json(s);
  bad["lustre"]["items"][0]["read_bytes"] = "lots";
  EXPECT_THROW((void)sample_from_json(bad, "bad.jsonl", 5), InputError);
}

TEST(WatchNvml, GpmRatiosFromTheSecondSampleAndNvlinkCounters) {
  const std::string dir = test::temp_dir("fake-nvml-gpm");
  ::setenv("TRAINREADY_FAKE_NVML",
           fake_nvml_json(dir, R"(, "gpm_supported": true, "gpm_sm_active_sequence": [60, 60],
              "gpm_sm_occupancy_sequence": [30], "gpm_tensor_sequence": [45],
              "nvlink_tx_kib_step": 1024, "nvlink_rx_kib_step": 2048)")
               .c_str(),
           1);
  ::unsetenv("FAKE_NVML_INIT_FAILS");
  NvmlSampler nvml(TR_FAKE_NVML);
  Sample first;
  nvml.sample(first);
  ASSERT_EQ(first.gpus.size(), 2u);
  EXPECT_EQ(first.gpu_profiling_source, "NVML GPM");
  // GPM compares two samples: nothing yet, and nothing made up.
  EXPECT_FALSE(first.gpus[0].sm_active_ratio.has_value());
  ASSERT_TRUE(first.gpus[0].nvlink_tx_kib.has_value());
  ::usleep(20000);
  Sample second;
  nvml.sample(second);
  ASSERT_TRUE(second.gpus[0].sm_active_ratio.has_value());
  EXPECT_DOUBLE_EQ(*second.gpus[0].sm_active_ratio, 0.60);
  EXPECT_DOUBLE_EQ(*second.gpus[0].sm_occupancy_ratio, 0.30);
  EXPECT_DOUBLE_EQ(*second.gpus[0].tensor_active_ratio, 0.45);
  EXPECT_EQ(*second.gpus[0].nvlink_tx_kib - *first.gpus[0].nvlink_tx_kib, 1024u);
  EXPECT_EQ(*second.gpus[0].nvlink_rx_kib - *first.gpus[0].nvlink_rx_kib, 2048u);
  ASSERT_TRUE(second.gpus[0].nvlink_tx_bytes_per_s.has_value());
  EXPECT_GT(*second.gpus[0].nvlink_tx_bytes_per_s, 0);
}

TEST(WatchNvml, GpmHeldByAHostEngineIsUnavailableAndSaysSo) {
  const std::string dir = test::temp_dir("fake-nvml-gpm-held");
  ::setenv("TRAINREADY_FAKE_NVML",
           fake_nvml_json(dir, R"(, "gpm_supported": true, "gpm_sm_active_sequence": [50],
              "gpm_sample_get_error": 19)")
               .c_str(),
           1);
  NvmlSampler nvml(TR_FAKE_NVML);
  Sample s1, s2;
  nvml.sample(s1);
  nvml.sample(s2);
  EXPECT_TRUE(s2.gpu_profiling_source.empty());
  EXPECT_NE(s2.gpu_profiling_unavailable.find("--dcgm"), std::string::npos)
      << s2.gpu_profiling_unavailable;
  EXPECT_FALSE(s2.gpus[0].sm_active_ratio.has_value());
  EXPECT_TRUE(s2.gpus[0].util_percent.has_value());  // the rest of NVML still answers
}

TEST(WatchNvml, NoGpmBeforeHopper) {
  const std::string dir = test::temp_dir("fake-nvml-no-gpm");
  ::setenv("TRAINREADY_FAKE_NVML", fake_nvml_json(dir, "").c_str(), 1);
  NvmlSampler nvml(TR_FAKE_NVML);
  Sample s;
  nvml.sample(s);
  EXPECT_NE(s.gpu_profiling_unavailable.find("not supported"), std::string::npos);
  EXPECT_FALSE(s.gpus[0].nvlink_tx_kib.has_value());  // no NVLink counters: unavailable, not 0
}

TEST(WatchDcgm, AttachesToAListeningHostEngine) {
  const std::string dir = test::temp_dir("fake-dcgm");
  const std::string log = dir + "/calls.log";
  put(dir + "/dcgm.json", R"({"gpus": [
      {"uuid": "GPU-bbbb", "sm_active_sequence": [0.9, 0.1], "tensor_active": 0.25,
       "nvlink_tx_bytes_per_s": 2e9, "nvlink_rx_bytes_per_s": 3e9},
      {"uuid": "GPU-aaaa", "sm_active": 0.5}]})");
  ::setenv("TRAINREADY_FAKE_DCGM", (dir + "/dcgm.json").c_str(), 1);
  ::setenv("TRAINREADY_FAKE_DCGM_LOG", log.c_str(), 1);
  ::setenv("TRAINREADY_FAKE_NVML",
           fake_nvml_json(dir, R"(, "gpm_supported": true, "gpm_sm_active_sequence": [5])").c_str(),
           1);
  {
    Listener engine;
    const std::string root = test::temp_dir("fake-dcgm-root");
    std::filesystem::create_directories(root + "/proc");
    FsRoot r(root);
    SamplerOptions o;
    o.nvml_library = TR_FAKE_NVML;
    o.dcgm = dcgm_options(engine.address(), TR_FAKE_DCGM, false, 0.5);
    Sampler sampler(r, o);
    const Sample s = sampler.sample();
    EXPECT_EQ(s.gpu_profiling_source, "DCGM host engine " + engine.address());
    ASSERT_EQ(s.gpus.size(), 2u);
    // Matched by UUID, not position: DCGM's first GPU is NVML's second.
    EXPECT_DOUBLE_EQ(*s.gpus[1].sm_active_ratio, 0.9);
    EXPECT_DOUBLE_EQ(*s.gpus[1].tensor_active_ratio, 0.25);
    EXPECT_DOUBLE_EQ(*s.gpus[1].nvlink_rx_bytes_per_s, 3e9);
    EXPECT_DOUBLE_EQ(*s.gpus[0].sm_active_ratio, 0.5);
    EXPECT_FALSE(s.gpus[0].tensor_active_ratio.has_value());  // DCGM blank: unavailable
    const Sample t = sampler.sample();
    EXPECT_DOUBLE_EQ(*t.gpus[1].sm_active_ratio, 0.1);
  }
  std::ifstream in(log);
  std::string calls((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(calls.find("watch 500000"), std::string::npos) << calls;
  // Detached cleanly: the watch, the field group and the connection given back.
  EXPECT_NE(calls.find("unwatch\nfieldgroup-destroy\ndisconnect\nshutdown"), std::string::npos)
      << calls;
}

TEST(WatchDcgm, NoHostEngineFallsBackToGpm) {
  const std::string dir = test::temp_dir("fake-dcgm-none");
  put(dir + "/dcgm.json", R"({"gpus": []})");
  ::setenv("TRAINREADY_FAKE_DCGM", (dir + "/dcgm.json").c_str(), 1);
  ::unsetenv("TRAINREADY_FAKE_DCGM_LOG");
  ::setenv("TRAINREADY_FAKE_NVML",
           fake_nvml_json(dir, R"(, "gpm_supported": true, "gpm_sm_active_sequence": [5])").c_str(),
           1);
  const std::string nobody = closed_address();
  DcgmSampler d(dcgm_options(nobody, TR_FAKE_DCGM, false, 1));
  EXPECT_FALSE(d.attached());
  EXPECT_NE(d.unavailable().find("no DCGM host engine at " + nobody), std::string::npos)
      << d.unavailable();

  const std::string root = test::temp_dir("fake-dcgm-none-root");
  std::filesystem::create_directories(root + "/proc");
  FsRoot r(root);
  SamplerOptions o;
  o.nvml_library = TR_FAKE_NVML;
  o.dcgm = dcgm_options(nobody, TR_FAKE_DCGM, false, 1);
  Sampler sampler(r, o);
  (void)sampler.sample();
  const Sample s = sampler.sample();
  EXPECT_EQ(s.gpu_profiling_source, "NVML GPM");
  EXPECT_DOUBLE_EQ(*s.gpus[0].sm_active_ratio, 0.05);
}

TEST(WatchDcgm, RefusedWatchAndMissingLibrary) {
  const std::string dir = test::temp_dir("fake-dcgm-refused");
  put(dir + "/dcgm.json", R"({"gpus": [], "watch_error": -29})");
  ::setenv("TRAINREADY_FAKE_DCGM", (dir + "/dcgm.json").c_str(), 1);
  Listener engine;
  DcgmSampler d(dcgm_options(engine.address(), TR_FAKE_DCGM, false, 1));
  EXPECT_FALSE(d.attached());
  EXPECT_NE(d.unavailable().find("dcgmWatchFields returned -29"), std::string::npos)
      << d.unavailable();

  DcgmSampler missing(dcgm_options("", dir + "/libdcgm-not-here.so.4", false, 1));
  EXPECT_NE(missing.unavailable().find("could not be loaded"), std::string::npos);
  DcgmSampler off(dcgm_options("off", "", true, 1));
  EXPECT_NE(off.unavailable().find("--dcgm off"), std::string::npos);
  EXPECT_NE(dcgm_options("", "", false, 1).off_reason.find("--root"), std::string::npos);
  EXPECT_EQ(dcgm_options("", "", true, 1).address, "127.0.0.1:5555");
}
