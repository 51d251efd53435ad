// Attribution rules over intervals built from samples whose counters advance as a job's would:
// each label has a case that fires and cases that stay quiet; the summary's words; stragglers.
#include <gtest/gtest.h>

#include "core/input_error.h"
#include "watch/attribution.h"
#include "watch/interval.h"
#include "watch/sample_json.h"
#include "watch/summary.h"
#include "watch/timeline.h"

using namespace trainready;
using namespace trainready::watch;

namespace {

constexpr double kNdrBytesPerS = 400e9 / 8;  // one 400 Gb/s port

// A node at time t: 8 GPUs at `util` %, 8 NDR ports having moved `ib_bytes_each` in total,
// one disk having read `disk_bytes`, one watched process.
struct Node {
  double util = -1;  // < 0: no GPU data
  double ib_bytes_each = 0;
  double disk_bytes = 0;
  double lo_bytes = 0;
  double cpu_s = 0;
  double run_s = 0, wait_s = 0;
  bool proc = true;
  double eth_bytes = -1;  // < 0: no eth0
};

Sample make(double t, const Node& n) {
  Sample s;
  s.time = 1.7e9 + t;
  s.monotonic = 1000 + t;
  if (n.util >= 0) {
    for (int i = 0; i < 8; ++i) {
      GpuSample g;
      g.index = i;
      g.util_percent = n.util;
      s.gpus.push_back(g);
    }
  } else {
    s.gpu_unavailable = "no NVIDIA driver";
  }
  for (int i = 0; i < 8; ++i) {
    IbPortSample p;
    p.device = "mlx5_ib" + std::to_string(i);
    p.state = "4: ACTIVE";
    p.rate_gbps = 400;
    p.xmit_data = static_cast<std::uint64_t>(n.ib_bytes_each / 4);
    p.rcv_data = static_cast<std::uint64_t>(n.ib_bytes_each / 4);
    s.ib.push_back(p);
  }
  s.net.push_back({"lo", static_cast<std::uint64_t>(n.lo_bytes),
                   static_cast<std::uint64_t>(n.lo_bytes), std::nullopt});
  if (n.eth_bytes >= 0)
    s.net.push_back({"eth0", static_cast<std::uint64_t>(n.eth_bytes),
                     static_cast<std::uint64_t>(n.eth_bytes), 80000.0});
  s.disks.push_back({"nvme0n1", static_cast<std::uint64_t>(n.disk_bytes / 512), 0, 0});
  if (n.proc) {
    ProcSample p;
    p.pid = 42;
    p.state = 'S';
    p.start_ticks = 7;
    p.threads = 4;
    p.cpu_ticks = static_cast<std::uint64_t>(n.cpu_s * 100);
    p.run_ns = static_cast<std::uint64_t>(n.run_s * 1e9);
    p.wait_ns = static_cast<std::uint64_t>(n.wait_s * 1e9);
    s.procs.push_back(p);
  }
  return s;
}

Verdict label_of(const Node& a, const Node& b, Thresholds t = {}, IntervalOptions o = {}) {
  Attributor at(t);
  return at.label(make_interval(make(0, a), make(1, b), o));
}

}  // namespace

TEST(WatchInterval, InfinibandBytesAreFourTimesTheCounter) {
  Node a, b;
  b.ib_bytes_each = 1e9;
  const Interval iv = make_interval(make(0, a), make(1, b), {});
  EXPECT_EQ(iv.ib_ports, 8);
  EXPECT_NEAR(*iv.ib_rx_bytes_per_s, 8e9, 1e3);
  EXPECT_NEAR(*iv.ib_peak_port_util, 1e9 / kNdrBytesPerS, 1e-6);
  EXPECT_NEAR(*iv.ib_line_bytes_per_s, 8 * kNdrBytesPerS, 1);
}

TEST(WatchInterval, UnavailableStaysUnavailable) {
  Node a, b;
  Sample x = make(0, a), y = make(1, b);
  x.disks.clear();
  y.disks.clear();
  x.disk_unavailable = y.disk_unavailable = "no /proc/diskstats";
  for (auto& p : y.ib) p.xmit_data.reset();
  const Interval iv = make_interval(x, y, {});
  EXPECT_FALSE(iv.disk_read_bytes_per_s.has_value());
  EXPECT_FALSE(iv.ib_tx_bytes_per_s.has_value());
  EXPECT_TRUE(iv.ib_rx_bytes_per_s.has_value());
}

TEST(WatchAttribution, CommunicationWhenTheNetworkIsAtLineRate) {
  Node a{.util = 100}, b{.util = 100, .ib_bytes_each = 0.9 * kNdrBytesPerS};
  EXPECT_EQ(label_of(a, b).label, Label::kCommunication);
  // The same GPUs with the network at a fifth of line rate are computing.
  Node c{.util = 100, .ib_bytes_each = 0.2 * kNdrBytesPerS};
  EXPECT_EQ(label_of(a, c).label, Label::kCompute);
  // Half idle with the network at 40 %: waiting on it.
  Node d{.util = 50, .ib_bytes_each = 0.4 * kNdrBytesPerS};
  EXPECT_EQ(label_of(a, d).label, Label::kCommunication);
}

TEST(WatchAttribution, InputStorageWhenReadsFlowAndGpusIdle) {
  Node a{.util = 30}, b{.util = 30, .disk_bytes = 2e9};
  b.proc = a.proc = false;  // node-wide disks decide when no process is watched
  const Verdict v = label_of(a, b);
  EXPECT_EQ(v.label, Label::kInputStorage);
  EXPECT_NE(v.because.find("storage reads 2.00 GB/s"), std::string::npos) << v.because;
  // The same reads with busy GPUs: compute (reads overlap with compute).
  Node c{.util = 97, .disk_bytes = 2e9};
  EXPECT_EQ(label_of(Node{.util = 97}, c).label, Label::kCompute);
}

TEST(WatchAttribution, TheFrontEndNicOfAnInfinibandNodeIsStorage) {
  // blobfuse reads at the 80 Gb/s NIC ceiling while the GPUs wait: storage, not communication.
  Node a{.util = 40, .eth_bytes = 0}, b{.util = 40, .eth_bytes = 0.9 * 80e9 / 8};
  const Verdict v = label_of(a, b);
  EXPECT_EQ(v.label, Label::kInputStorage) << v.because;
  EXPECT_NE(v.because.find("front-end NIC receiving at 90 %"), std::string::npos) << v.because;
  Timeline tl({}, {});
  tl.add(make(0, a));
  tl.add(make(1, b));
  EXPECT_NE(tl.summary().headline().find(
                "60 % on storage (0 B/s reads, front-end NIC receiving at 90 % of 80 Gb/s"),
            std::string::npos)
      << tl.summary().headline();
  // The NIC at a tenth of its rate says nothing.
  Node c{.util = 40, .eth_bytes = 0.1 * 80e9 / 8};
  EXPECT_EQ(label_of(a, c).label, Label::kIdle);
}

TEST(WatchAttribution, InputCpuWhenTheLoaderWaitsForACpu) {
  Node a{.util = 20}, b{.util = 20, .run_s = 1.0, .wait_s = 0.5};
  EXPECT_EQ(label_of(a, b).label, Label::kInputCpu);
  Node c{.util = 20, .run_s = 1.0, .wait_s = 0.05};
  EXPECT_EQ(label_of(a, c).label, Label::kIdle);
}

TEST(WatchAttribution, HangOnlyAfterTheQuietWindow) {
  Thresholds t;
  t.hang_after_s = 3;
  Attributor at(t);
  std::vector<Label> got;
  Node busy{.util = 100, .ib_bytes_each = 0};
  // The job used the network, then everything stopped with GPUs "100 %" (spinning in NCCL).
  double ib = 0;
  for (int i = 0; i < 6; ++i) {
    Node x{.util = 100, .ib_bytes_each = ib};
    if (i < 2) ib += 0.9 * kNdrBytesPerS;
    Node y{.util = 100, .ib_bytes_each = ib};
    got.push_back(at.label(make_interval(make(i, x), make(i + 1, y), {})).label);
  }
  EXPECT_EQ(got[0], Label::kCommunication);
  EXPECT_EQ(got[1], Label::kCommunication);
  EXPECT_EQ(got[2], Label::kCompute);  // quiet 1 s: not yet
  EXPECT_EQ(got[4], Label::kHang);     // quiet 3 s
  EXPECT_EQ(got[5], Label::kHang);
  // A single-node job that never used the network is computing, however long.
  Attributor single(t);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(single.label(make_interval(make(i, busy), make(i + 1, busy), {})).label,
              Label::kCompute);
}

TEST(WatchAttribution, WithoutGpusTheBytesDecide) {
  IntervalOptions lo;
  lo.net_interfaces = {"lo"};
  Node a{}, b{.lo_bytes = 500e6, .run_s = 1};
  EXPECT_EQ(label_of(a, b, {}, lo).label, Label::kCommunication);
  // lo is not counted unless named.
  EXPECT_EQ(label_of(a, b).label, Label::kCompute);
  Node c{.disk_bytes = 300e6};
  c.proc = a.proc = false;
  EXPECT_EQ(label_of(a, c).label, Label::kInputStorage);
  Node d{.run_s = 0.01};
  Node e{.run_s = 0.01};
  EXPECT_EQ(label_of(d, e).label, Label::kIdle);
  Node none{};
  none.proc = false;
  EXPECT_EQ(label_of(none, none).label, Label::kIdle);
}

TEST(WatchSummary, SaysItInTheWordsOfTheProblem) {
  Timeline tl({}, {});
  double ib = 0, disk = 0;
  tl.add(make(0, Node{.util = 100}));
  // 6 s communication-bound at 50 % utilization, 2 s storage-bound at 25 %, 2 s compute at 100 %.
  for (int i = 1; i <= 10; ++i) {
    Node n;
    if (i <= 6) {
      ib += 0.96 * kNdrBytesPerS;
      n.util = 50;
    } else if (i <= 8) {
      disk += 2e9;
      n.util = 25;
    } else {
      n.util = 100;
    }
    n.ib_bytes_each = ib;
    n.disk_bytes = disk;
    n.proc = false;
    tl.add(make(i, n));
  }
  const std::string h = tl.summary().headline();
  EXPECT_NE(h.find("GPUs were busy 55 % of the time"), std::string::npos) << h;
  EXPECT_NE(h.find("30 % waiting on the network (InfiniBand at 96 % of 8 x 400 Gb/s)"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("15 % on storage (2.00 GB/s reads"), std::string::npos) << h;
  EXPECT_EQ(tl.summary().total(Label::kCommunication).intervals, 6);
}

TEST(WatchTimeline, AppendedSessionsDoNotMakeAnInterval) {
  Timeline tl({}, {});
  EXPECT_FALSE(tl.add(make(0, Node{})).has_value());
  EXPECT_TRUE(tl.add(make(1, Node{})).has_value());
  Sample restart = make(2, Node{});
  restart.monotonic = 5;  // another boot
  EXPECT_FALSE(tl.add(restart).has_value());
}

TEST(WatchStraggler, TheIdleNodeAmongBusyPeersIsNamed) {
  std::vector<NodeTimeline> nodes;
  for (int n = 0; n < 3; ++n) {
    Timeline tl({}, {});
    NodeTimeline nt;
    nt.node = "node" + std::to_string(n);
    for (int i = 0; i <= 5; ++i) {
      Node x{.util = n == 2 ? 20.0 : 98.0};
      x.proc = false;
      if (auto li = tl.add(make(i, x))) nt.intervals.push_back(*li);
    }
    nt.summary = tl.summary();
    nodes.push_back(nt);
  }
  mark_stragglers(nodes, {});
  EXPECT_EQ(nodes[2].summary.total(Label::kStraggler).intervals, 5);
  EXPECT_EQ(nodes[0].summary.total(Label::kStraggler).intervals, 0);
  EXPECT_NE(nodes[2].summary.headline().find("behind its peers"), std::string::npos);
}

TEST(WatchRecording, RoundTripKeepsUnavailableAsNull) {
  Sample s = make(3, Node{.util = 40, .ib_bytes_each = 1e6});
  s.ib[0].xmit_data.reset();
  const auto j = sample_to_json(s);
  EXPECT_TRUE(j["infiniband"]["items"][0]["port_xmit_data"].is_null());
  EXPECT_EQ(j["gpu"].count("unavailable"), 0u);
  Sample back = sample_from_json(j, "r.jsonl", 2);
  EXPECT_FALSE(back.ib[0].xmit_data.has_value());
  EXPECT_EQ(*back.ib[1].xmit_data, 250000u);
  EXPECT_EQ(*back.gpus[3].util_percent, 40);
  EXPECT_EQ(sample_to_json(back), j);
}

// The power limit (nvmlDeviceGetEnforcedPowerLimit) is recorded; a recording made before watch
// read it replays with the limit unavailable, never 0, and so no power ratio.
TEST(WatchRecording, PowerLimitRoundTripsAndOldRecordingsLackIt) {
  Sample s = make(3, Node{.util = 100});
  for (GpuSample& g : s.gpus) {
    g.power_watts = 84;
    g.power_limit_watts = 700;
  }
  auto j = sample_to_json(s);
  EXPECT_EQ(j["gpu"]["items"][0]["power_limit_watts"], 700.0);
  Sample back = sample_from_json(j, "r.jsonl", 2);
  EXPECT_EQ(back.gpus[0].power_limit_watts.value_or(0), 700.0);
  Sample s2 = make(4, Node{.util = 100});
  for (GpuSample& g : s2.gpus) {
    g.power_watts = 84;
    g.power_limit_watts = 700;
  }
  auto iv = make_interval(back, s2, {});
  ASSERT_TRUE(iv.gpu_power_ratio);
  EXPECT_DOUBLE_EQ(*iv.gpu_power_ratio, 0.12);
  for (auto& g : j["gpu"]["items"]) g.erase("power_limit_watts");
  Sample old = sample_from_json(j, "old.jsonl", 2);
  EXPECT_FALSE(old.gpus[0].power_limit_watts.has_value());
  EXPECT_TRUE(old.gpus[0].power_watts.has_value());
  Sample old2 = sample_from_json(j, "old.jsonl", 3);
  old2.monotonic += 1;
  EXPECT_FALSE(make_interval(old, old2, {}).gpu_power_ratio.has_value());
  j["gpu"]["items"][0]["power_limit_watts"] = 0;
  EXPECT_THROW(sample_from_json(j, "r.jsonl", 5), InputError);
}

// A NCCL RAS report (watch/ras_client.h) rides in the sample taken after the query, raw, and
// reaches the node's facts unparsed; a failed query keeps its reason; a bad entry is a bad line.
TEST(WatchRecording, RasReplyRoundTripsAndReachesTheFacts) {
  Sample s = make(3, Node{.util = 100});
  RasReply r;
  r.address = "localhost:28028";
  r.time = 1.7e9;
  r.seconds = 0.25;
  r.format = "text";
  r.server_protocol = "2";
  r.text = "NCCL version 2.24.3+cuda12.4 compiled with CUDA 12.4\n\x01<tag>";
  s.nccl_ras = r;
  auto j = sample_to_json(s);
  EXPECT_EQ(j["nccl_ras"]["reply"], r.text);
  EXPECT_EQ(j["nccl_ras"].count("unavailable"), 0u);
  Sample back = sample_from_json(j, "r.jsonl", 2);
  ASSERT_TRUE(back.nccl_ras);
  EXPECT_EQ(back.nccl_ras->text, r.text);
  EXPECT_EQ(back.nccl_ras->format, "text");
  EXPECT_EQ(sample_to_json(back), j);
  EXPECT_FALSE(sample_from_json(sample_to_json(make(4, Node{})), "r", 3).nccl_ras);

  Timeline tl({}, Thresholds{});
  tl.add(back);
  Sample failed = make(4, Node{.util = 100});
  RasReply no;
  no.address = "localhost:28028";
  no.unavailable = "no reply";
  failed.nccl_ras = no;
  tl.add(failed);
  const auto f = tl.summary().facts();
  ASSERT_TRUE(f.nccl_ras);
  EXPECT_EQ(f.nccl_ras->queries, 2);
  EXPECT_EQ(f.nccl_ras->replies, 1);
  EXPECT_EQ(f.nccl_ras->text, r.text);  // the newest report, kept through a failed query
  EXPECT_EQ(f.nccl_ras->unavailable, "no reply");
  EXPECT_NE(f.text.find("NCCL RAS at localhost:28028: 1 of 2 queries answered, the last a text "
                        "report of"),
            std::string::npos)
      << f.text;

  j["nccl_ras"]["format"] = "xml";
  EXPECT_THROW(sample_from_json(j, "r.jsonl", 5), InputError);
  j["nccl_ras"].erase("reply");
  j["nccl_ras"]["format"] = "json";
  EXPECT_THROW(sample_from_json(j, "r.jsonl", 6), InputError);
}

TEST(WatchRecording, BadLinesNameFileAndLine) {
  Sample out;
  try {
    parse_recording_line("{\"time\": 1, \"monotonic\": \"x\"}", "r.jsonl", 7, out);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_NE(std::string(e.what()).find("r.jsonl:7"), std::string::npos);
  }
  EXPECT_THROW(parse_recording_line("not json", "r.jsonl", 3, out), InputError);
  auto j = sample_to_json(make(0, Node{.util = 10}));
  j["gpu"]["items"][0]["util_percent"] = 250;
  EXPECT_THROW(sample_from_json(j, "r.jsonl", 4), InputError);
  EXPECT_FALSE(parse_recording_line(recording_header_line(), "r.jsonl", 1, out));
  EXPECT_THROW(
      parse_recording_line("{\"format\":\"trainready-watch\",\"version\":99}", "r", 1, out),
      InputError);
}
