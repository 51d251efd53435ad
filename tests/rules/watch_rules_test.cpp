// The watch rules (src/rules/watch/): each labels a window of the timeline when its counters say
// so and stays quiet otherwise, and at the end of a run reports the time its label took on each
// node as a finding of the shared report. The Attributor's precedence is checked through the
// labels in tests/unit/watch_attribution_test.cpp; here each rule alone.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "report/report.h"
#include "rules/registry.h"
#include "watch/attribution.h"
#include "watch/gpu_busy.h"
#include "watch/window.h"

namespace trainready {
namespace {

using watch::Interval;
using watch::Label;
using watch::Thresholds;
using watch::Window;

const watch::LabelRule& rule(const std::string& id) {
  const auto* r = dynamic_cast<const watch::LabelRule*>(find_rule(id));
  EXPECT_NE(r, nullptr) << id;
  return *r;
}

// A window over `iv` as the Attributor builds it, with the given GPU busy share (nullopt: no
// GPU counters).
struct Case {
  Interval iv;
  Thresholds t;
  Window w;
  explicit Case(std::optional<double> busy = std::nullopt) {
    iv.seconds = 1;
    if (busy) {
      iv.gpus = 8;
      iv.gpu_busy = busy;
    }
    w.busy = busy;
  }
  std::optional<std::string> judge(const std::string& id) {
    w.iv = &iv;
    w.t = &t;
    return rule(id).judge(w);
  }
};

TEST(WatchCommunicationBound, FiresAtLineRateWhateverTheGpusRead) {
  Case c(1.0);
  c.iv.ib_ports = 8;
  c.iv.ib_peak_port_util = 0.96;
  auto v = c.judge("watch-communication-bound");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, "GPU utilization 100 %, InfiniBand at 96 % of line rate");
  // Below the ceiling, busy GPUs are not waiting on it.
  c.iv.ib_peak_port_util = 0.5;
  EXPECT_FALSE(c.judge("watch-communication-bound"));
  c.w.busy = c.iv.gpu_busy = 0.5;
  EXPECT_TRUE(c.judge("watch-communication-bound"));
  c.iv.ib_peak_port_util = 0.1;
  EXPECT_FALSE(c.judge("watch-communication-bound"));
}

TEST(WatchCommunicationBound, WithoutGpusTheBytesDecide) {
  Case c;
  c.iv.procs = 2;
  c.w.net_bytes_per_s = 500e6;
  c.w.storage_bytes_per_s = 0;
  EXPECT_EQ(c.judge("watch-communication-bound").value_or(""), "network 500 MB/s");
  c.w.storage_bytes_per_s = 600e6;  // more read than sent: storage's
  EXPECT_FALSE(c.judge("watch-communication-bound"));
  c.w.net_bytes_per_s = 512 << 10;  // under 1 MiB/s
  c.w.storage_bytes_per_s = 0;
  EXPECT_FALSE(c.judge("watch-communication-bound"));
}

TEST(WatchHang, FiresOnlyAfterTheQuietWindowWithTheRanksAlive) {
  Case c(0.0);
  c.iv.procs = 4;
  c.w.quiet_for = 59;
  EXPECT_FALSE(c.judge("watch-hang"));
  c.w.quiet_for = 61;
  EXPECT_EQ(c.judge("watch-hang").value_or(""),
            "GPU utilization 0 %, network, NVLink and storage quiet for 61.0 s");
  // Spinning kernels read busy: a hang only once the job has used the network.
  c.w.busy = c.iv.gpu_busy = 1.0;
  EXPECT_FALSE(c.judge("watch-hang"));
  c.w.network_seen = true;
  EXPECT_TRUE(c.judge("watch-hang"));
  // A network at line rate is not quiet.
  c.iv.net_peak_util = 0.9;
  c.w.net_peak_util = 0.9;
  EXPECT_FALSE(c.judge("watch-hang"));
  // No watched process: idle, never a hang, InfiniBand ports or not (domain-review-3 finding 2).
  Case d(0.0);
  d.w.quiet_for = 100;
  EXPECT_FALSE(d.judge("watch-hang"));
  d.iv.ib_ports = 8;
  EXPECT_FALSE(d.judge("watch-hang"));
  Case e;  // without GPU counters
  e.w.quiet_for = 100;
  EXPECT_FALSE(e.judge("watch-hang"));
  e.iv.procs = 1;
  EXPECT_TRUE(e.judge("watch-hang"));
}

// SM activity tells spinning from computing (src/watch/gpu_busy.h, trainready's heuristic): a
// kernel that holds the GPU at 100 % utilization on a tenth of its SMs is not computing; one at
// SM activity 0.5 is (domain-review-3 finding 8: no rescale of the busy share by SM / 0.8).
TEST(WatchGpuBusy, SmActivityDetectsSpinningWithoutRescaling) {
  Interval iv;
  iv.gpus = 8;
  iv.gpu_busy = 1.0;
  const Thresholds t;
  EXPECT_EQ(watch::gpu_busy_share(iv).value_or(-1), 1.0);
  EXPECT_FALSE(watch::gpus_spinning(iv, t));  // not sampled: nothing to say
  iv.gpu_sm_active = 0.1;
  EXPECT_DOUBLE_EQ(watch::gpu_busy_share(iv).value_or(-1), 1.0);
  EXPECT_TRUE(watch::gpus_spinning(iv, t));
  iv.gpu_sm_active = 0.5;  // a small-grid job computing all the time
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  iv.gpu_busy = 0.4;
  iv.gpu_sm_active = 0.1;
  EXPECT_FALSE(watch::gpus_spinning(iv, t));  // not busy enough to be spinning
  iv.gpu_busy.reset();                        // SM activity alone
  iv.gpu_sm_active = 0.4;
  EXPECT_DOUBLE_EQ(watch::gpu_busy_share(iv).value_or(-1), 0.4);
}

TEST(WatchComputeBound, SpinningGpusAreNotCompute) {
  Case c(1.0);
  c.iv.gpu_sm_active = 0.1;
  EXPECT_FALSE(c.judge("watch-compute-bound"));
  c.iv.gpu_sm_active = 0.5;  // the old rescale read this 62 % busy, not compute
  EXPECT_EQ(c.judge("watch-compute-bound").value_or(""), "GPU utilization 100 %, SM activity 50 %");
}

TEST(WatchHang, SmActivityShowsASpinningRankWithoutWaitingForTheNetwork) {
  Case c(1.0);
  c.iv.procs = 4;
  c.iv.gpu_sm_active = 0.04;  // NCCL kernels parked on a few SMs
  c.w.busy = watch::gpu_busy_share(c.iv);
  c.w.quiet_for = 61;
  EXPECT_EQ(c.judge("watch-hang").value_or(""),
            "GPU utilization 100 %, SM activity 4 %, network, NVLink and storage quiet for 61.0 s");
  c.iv.gpu_sm_active = 0.9;  // real work on the SMs: not a hang before the network is used
  c.w.busy = watch::gpu_busy_share(c.iv);
  EXPECT_FALSE(c.judge("watch-hang"));
}

// Power tells spinning from computing where SM activity cannot (issue 34 item 3): an NCCL kernel
// with one block per channel can hold SM activity above 0.3 while it polls, at near idle power
// (hung jobs read 0.10-0.18 of the limit: NVIDIA/nccl#968, #2213, the Lambda guide) and with no
// tensor activity. Power alone (NVML only: A100, no DCGM) says it too.
TEST(WatchGpuBusy, NearIdlePowerIsSpinningWhateverTheSmActivity) {
  Interval iv;
  iv.gpus = 8;
  iv.gpu_busy = 1.0;
  const Thresholds t;
  iv.gpu_sm_active = 0.35;  // above the SM line: the old test called this compute
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  EXPECT_TRUE(watch::gpus_working(iv, t));
  iv.gpu_power_ratio = 0.12;
  EXPECT_TRUE(watch::gpus_spinning(iv, t));
  EXPECT_FALSE(watch::gpus_working(iv, t));
  iv.gpu_tensor_active = 0.0;
  EXPECT_TRUE(watch::gpus_spinning(iv, t));
  iv.gpu_tensor_active = 0.4;  // matrix math at low power (a capped board): work
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  iv.gpu_tensor_active.reset();
  iv.gpu_power_ratio = 0.8;  // a training step draws most of the limit
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  EXPECT_TRUE(watch::gpus_working(iv, t));
  iv.gpu_power_ratio = 0.25;  // the line itself is work
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  // NVML alone: power and utilization, no SM activity.
  iv.gpu_sm_active.reset();
  iv.gpu_power_ratio = 0.10;
  EXPECT_TRUE(watch::gpus_spinning(iv, t));
  EXPECT_FALSE(watch::gpus_working(iv, t));
  iv.gpu_power_ratio = 0.9;
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  EXPECT_TRUE(watch::gpus_working(iv, t));
  iv.gpu_busy = 0.5;  // not busy enough to be spinning, whatever the power
  iv.gpu_power_ratio = 0.10;
  EXPECT_FALSE(watch::gpus_spinning(iv, t));
  // Neither counter: no evidence either way.
  Interval none;
  none.gpu_busy = 1.0;
  EXPECT_FALSE(watch::gpus_spinning(none, t));
  EXPECT_FALSE(watch::gpus_working(none, t));
}

TEST(WatchHang, NearIdlePowerShowsASpinningRankAtAnySmActivity) {
  Case c(1.0);
  c.iv.procs = 4;
  c.iv.gpu_sm_active = 0.35;
  c.iv.gpu_tensor_active = 0.0;
  c.iv.gpu_power_ratio = 0.12;
  c.w.quiet_for = 61;
  EXPECT_EQ(c.judge("watch-hang").value_or(""),
            "GPU utilization 100 %, SM activity 35 %, tensor active 0 %, power 12 % of the limit, "
            "network, NVLink and storage quiet for 61.0 s");
  EXPECT_FALSE(c.judge("watch-compute-bound"));
  // The same SM activity at 80 % of the limit is work: neither a hang, nor before nor after the
  // job has used its network.
  c.iv.gpu_power_ratio = 0.8;
  EXPECT_FALSE(c.judge("watch-hang"));
  c.w.network_seen = true;
  EXPECT_FALSE(c.judge("watch-hang"));
  EXPECT_EQ(c.judge("watch-compute-bound").value_or(""),
            "GPU utilization 100 %, SM activity 35 %, tensor active 0 %, power 80 % of the limit");
  // NVML alone after the network was used: busy at 90 % of the limit is work, at 10 % a hang.
  Case d(1.0);
  d.iv.procs = 4;
  d.w.network_seen = true;
  d.w.quiet_for = 61;
  d.iv.gpu_power_ratio = 0.9;
  EXPECT_FALSE(d.judge("watch-hang"));
  d.iv.gpu_power_ratio = 0.1;
  EXPECT_EQ(d.judge("watch-hang").value_or(""),
            "GPU utilization 100 %, power 10 % of the limit, network, NVLink and storage quiet for "
            "61.0 s");
}

TEST(WatchIdle, SpinningOnPowerAloneIsWordedWithoutSmActivity) {
  Case c(1.0);
  c.iv.gpu_power_ratio = 0.1;  // no SM activity sampled: the words must not read it
  EXPECT_EQ(c.judge("watch-idle").value_or(""),
            "GPU utilization 100 %, power 10 % of the limit (kernels spinning, not computing), no "
            "counter shows the path it waits on");
}

TEST(WatchComputeBound, FiresOnBusyGpusOrProcessesOnACpu) {
  Case c(0.95);
  EXPECT_EQ(c.judge("watch-compute-bound").value_or(""), "GPU utilization 95 %");
  c.w.busy = c.iv.gpu_busy = 0.5;
  EXPECT_FALSE(c.judge("watch-compute-bound"));
  Case d;
  d.iv.proc_cpu_cores = 3;
  EXPECT_TRUE(d.judge("watch-compute-bound"));
  d.iv.proc_cpu_cores = 0.1;
  EXPECT_FALSE(d.judge("watch-compute-bound"));
}

TEST(WatchInputStorage, FiresOnReadsBlockIoFuseOrTheFrontEndNic) {
  Case c(0.2);
  c.w.storage_bytes_per_s = 2e9;
  EXPECT_EQ(c.judge("watch-input-storage").value_or(""),
            "GPU utilization 20 %, storage reads 2.00 GB/s");
  c.w.storage_bytes_per_s = 0;
  EXPECT_FALSE(c.judge("watch-input-storage"));
  c.iv.fuse_waiting = 3;
  EXPECT_NE(c.judge("watch-input-storage").value_or("").find("fuse requests waiting"),
            std::string::npos);
  Case nic(0.2);
  nic.iv.ib_ports = 8;
  nic.iv.net_peak_util = 0.9;
  nic.iv.net_rx_peak_util = 0.9;
  EXPECT_NE(nic.judge("watch-input-storage").value_or("").find("front-end NIC receiving at 90 %"),
            std::string::npos);
  // The NIC sending at 90 % (a checkpoint upload) is not input (domain-review-3 finding 6).
  nic.iv.net_rx_peak_util = 0.01;
  nic.iv.net_tx_peak_util = 0.9;
  EXPECT_FALSE(nic.judge("watch-input-storage"));
  Case d;
  d.iv.proc_blkio_share = 0.5;
  EXPECT_EQ(d.judge("watch-input-storage").value_or(""), "block I/O wait 50 %");
  d.iv.proc_blkio_share = 0.05;
  EXPECT_FALSE(d.judge("watch-input-storage"));
}

TEST(WatchInputCpu, FiresWhenTheLoaderWaitsOnARunQueue) {
  Case c(0.3);
  c.iv.proc_runq_wait_share = 0.6;
  EXPECT_EQ(c.judge("watch-input-cpu").value_or(""),
            "GPU utilization 30 %, input processes wait for a CPU 60 % of the time they run");
  c.iv.proc_runq_wait_share = 0.1;
  EXPECT_FALSE(c.judge("watch-input-cpu"));
}

TEST(WatchIdle, IsTheLastWordAndAlwaysFires) {
  Case c(0.3);
  EXPECT_EQ(c.judge("watch-idle").value_or(""),
            "GPU utilization 30 %, no counter shows the path it waits on");
  Case d;
  EXPECT_TRUE(d.judge("watch-idle"));
}

TEST(WatchNoCounters, FiresOnlyWithNothingToJudge) {
  Case c;
  EXPECT_EQ(c.judge("watch-no-counters").value_or(""), "no GPU, process or I/O counters");
  c.w.storage_bytes_per_s = 0;  // a disk counter that reads 0 is a counter
  EXPECT_FALSE(c.judge("watch-no-counters"));
  Case d(0.0);
  EXPECT_FALSE(d.judge("watch-no-counters"));
}

TEST(WatchStraggler, FiresWhenIdleAmongBusyPeers) {
  Case c(0.2);
  c.w.peers = 2;
  c.w.peers_median_busy = 0.98;
  c.w.alone_label = "idle";
  c.w.alone_because = "GPU utilization 20 %, no counter shows the path it waits on";
  EXPECT_EQ(c.judge("watch-straggler").value_or(""),
            "GPU utilization 20 % while the peers' median is 98 % (2 peers); alone it read: idle "
            "(GPU utilization 20 %, no counter shows the path it waits on)");
  c.w.alone_label = "hang";  // a hang stays a hang
  EXPECT_FALSE(c.judge("watch-straggler"));
  c.w.alone_label = "idle";
  c.w.peers_median_busy = 0.6;  // the peers are not busy either
  EXPECT_FALSE(c.judge("watch-straggler"));
  c.w.peers = 0;
  c.w.peers_median_busy.reset();
  EXPECT_FALSE(c.judge("watch-straggler"));
}

// End of run: a node's totals, as Summary::facts() gives them.
WatchFacts run_with(const std::string& label, int intervals, double seconds) {
  WatchNodeFacts n;
  n.node = "gpu-node-1";
  n.intervals = 10;
  n.seconds = 10;
  n.gpu_busy_ratio = 0.55;
  for (Label l : watch::kAllLabels) {
    WatchLabelShare s;
    s.label = watch::label_id(l);
    if (s.label == label) {
      s.intervals = intervals;
      s.seconds = seconds;
      s.time_share = seconds / 10;
      s.gpu_idle_share = 0.3;
      s.detail = "InfiniBand at 96 % of 8 x 400 Gb/s";
    }
    n.labels.push_back(s);
  }
  WatchFacts w;
  w.mode = "replay";
  w.nodes.push_back(n);
  return w;
}

RuleOutcome end_of_run(const std::string& id, const WatchFacts& w) {
  RuleContext ctx;
  ctx.watch = &w;
  return find_rule(id)->evaluate(ctx);
}

TEST(WatchRules, EachReportsItsLabelsTimeAndStaysQuietWithout) {
  const std::vector<std::pair<std::string, std::string>> rules = {
      {"watch-communication-bound", "communication"},
      {"watch-compute-bound", "compute"},
      {"watch-hang", "hang"},
      {"watch-idle", "idle"},
      {"watch-input-cpu", "input-cpu"},
      {"watch-input-storage", "input-storage"},
      {"watch-no-counters", "unknown"},
      {"watch-straggler", "straggler"}};
  for (const auto& [id, label] : rules) {
    RuleOutcome o = end_of_run(id, run_with(label, 6, 6));
    ASSERT_EQ(o.findings.size(), 1u) << id;
    EXPECT_EQ(o.findings[0].node, "gpu-node-1") << id;
    EXPECT_FALSE(o.findings[0].cause.empty() || o.findings[0].fix.empty()) << id;
    const std::string other = label == "compute" ? "idle" : "compute";
    EXPECT_TRUE(end_of_run(id, run_with(other, 6, 6)).findings.empty()) << id;
    EXPECT_EQ(rule(id).label(), [&] {
      for (Label l : watch::kAllLabels)
        if (watch::label_id(l) == label) return l;
      return Label::kUnknown;
    }()) << id;
  }
  RuleOutcome comm = end_of_run("watch-communication-bound", run_with("communication", 6, 6));
  EXPECT_EQ(comm.findings[0].message,
            "30 % of GPU time waiting on the network, communication-bound 60 % of the time "
            "(InfiniBand at 96 % of 8 x 400 Gb/s)");
  // No interval at all: the rules could not judge (skipped), not "passed".
  WatchFacts empty = run_with("compute", 0, 0);
  empty.nodes[0].intervals = 0;
  EXPECT_TRUE(end_of_run("watch-hang", empty).skipped);
}

TEST(WatchStraggler, TheLiveJobViewUnderALauncherIsAFinding) {
  WatchFacts w = run_with("compute", 10, 10);
  w.mode = "live";
  WatchJobFacts job;
  job.launcher = "mpirun";
  job.size = 3;
  for (int r = 0; r < 3; ++r) {
    WatchJobRank x;
    x.rank = r;
    x.node = "node" + std::to_string(r) + " (rank " + std::to_string(r) + ")";
    x.intervals = x.judged_intervals = 6;
    x.state = "ok";
    x.peers = 2;
    job.ranks.push_back(x);
  }
  w.job = job;
  EXPECT_TRUE(end_of_run("watch-straggler", w).findings.empty());  // all busy: quiet
  w.job->ranks[1].straggler_intervals = 5;
  w.job->ranks[1].straggler_seconds = 5;
  const RuleOutcome o = end_of_run("watch-straggler", w);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].node, "node1 (rank 1)");
  EXPECT_EQ(o.findings[0].message,
            "straggler: 5 of 6 judged intervals, 5.00 s idle while its 2 peers worked");
}

TEST(WatchRules, AHangFailsTheRunAndTheRestDoNot) {
  Catalog c = Catalog::builtin();
  for (const auto& [label, errors] :
       std::vector<std::pair<std::string, bool>>{{"hang", true}, {"communication", false}}) {
    WatchFacts w = run_with(label, 3, 3);
    JudgeInputs in;
    in.watch = &w;
    Evaluation ev = evaluate(in, c, {});
    EXPECT_EQ(exit_code_for(ev, Severity::kError), errors ? 1 : 0) << label;
  }
}

TEST(WatchRules, ExplainComesFromTheRules) {
  const std::string e = watch::explain_rules({});
  for (const char* id :
       {"watch-hang", "watch-communication-bound", "watch-compute-bound", "watch-input-storage",
        "watch-input-cpu", "watch-idle", "watch-no-counters", "watch-straggler"})
    EXPECT_NE(e.find(std::string("rule ") + id), std::string::npos) << id;
  EXPECT_NE(e.find("port_{xmit,rcv}_data x 4 bytes"), std::string::npos);
  // The thresholds are the ones given, not a fixed text.
  Thresholds t;
  t.hang_after_s = 90;
  EXPECT_NE(watch::explain_rules(t).find("for >= 90.0 s (--hang-after)"), std::string::npos)
      << watch::explain_rules(t);
}

}  // namespace
}  // namespace trainready
