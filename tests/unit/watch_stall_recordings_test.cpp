// Stalled kernels from counters, measured on recordings (issue 34, item 3). The three files under
// tests/data/watch/stall-*.jsonl were written by the real `trainready watch --record` sampling a
// fixture node through the fake libnvidia-ml (tests/tools/watch_stall_recordings.py, which also
// makes them afresh in CTest watch_stall); here each is replayed through the Timeline as
// `watch --replay --hang-after 2s` does, and its label sequence (runs of equal labels) asserted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "watch/recording.h"
#include "watch/timeline.h"

using namespace trainready::watch;

namespace {

struct Replayed {
  std::vector<std::string> runs;  // consecutive equal labels collapsed
  std::vector<std::string> labels;
  std::vector<std::string> because;
  int samples = 0;
};

Replayed replay(const std::string& name) {
  Thresholds t;
  t.hang_after_s = 2;  // the recordings are 9 s long: a hang after 2 s quiet, not 60
  Timeline timeline({}, t);
  Replayed r;
  read_recording(
      std::string(TR_TEST_DATA) + "/watch/" + name, [](const RecordingHeader&) {},
      [&](const Sample& s, int) {
        ++r.samples;
        auto li = timeline.add(s);
        if (!li) return;
        const std::string l = label_id(li->verdict.label);
        r.labels.push_back(l);
        r.because.push_back(li->verdict.because);
        if (r.runs.empty() || r.runs.back() != l) r.runs.push_back(l);
      });
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

// Training over InfiniBand (SM 0.9, tensor 0.5, 595 W of 700 W), then wedged: utilization 100 %,
// SM activity 0.35 (above the 0.3 SM line: the SM test alone called it compute for ever), tensor
// 0, 84 W. Quiet for 2 s: a hang; before that, idle (spinning is not compute).
TEST(WatchStallRecordings, ASpinningKernelIsAHang) {
  const Replayed r = replay("stall-spinning.jsonl");
  EXPECT_EQ(r.samples, 36);
  EXPECT_EQ(joined(r.runs), "compute idle hang") << joined(r.labels);
  ASSERT_FALSE(r.because.empty());
  EXPECT_NE(r.because.back().find("SM activity 35 %, tensor active 0 %, power 12 % of the limit"),
            std::string::npos)
      << r.because.back();
  int hang = 0;
  for (const std::string& l : r.labels) hang += l == "hang";
  EXPECT_GE(hang, 8) << joined(r.labels);
}

// An A100 node (NVML only: no GPM, no DCGM) in a long compute phase after an all-reduce: 100 %,
// 340 W of 400 W, nothing moving. Without power, "busy after the network was used" could not be
// told from spinning and read as a hang after 2 s; the power says work.
TEST(WatchStallRecordings, RealComputeIsComputeBound) {
  const Replayed r = replay("stall-compute.jsonl");
  EXPECT_EQ(joined(r.runs), "compute") << joined(r.labels);
  ASSERT_FALSE(r.because.empty());
  EXPECT_EQ(r.because.back(), "GPU utilization 100 %, power 85 % of the limit");
}

// One VM, 8 GPUs, NVLink only at 100 GB/s a GPU, kernels on few SMs at 0.22 of the limit: the
// counters say "spinning", the bytes say it moves. Never a hang; no label says NVLink-bound
// (docs/watch.md), so idle.
TEST(WatchStallRecordings, AnNvlinkOnlyJobIsNotAHang) {
  const Replayed r = replay("stall-nvlink.jsonl");
  EXPECT_EQ(joined(r.runs), "idle") << joined(r.labels);
  ASSERT_FALSE(r.because.empty());
  EXPECT_NE(r.because.back().find("kernels spinning"), std::string::npos) << r.because.back();
}
