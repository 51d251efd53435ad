// The straggler rule at the scale of a cluster: the sweep (mark_stragglers) gives what asking
// every peer at every interval gives (mark_stragglers_direct), and rank 0 of a live `watch`
// judges 16,384 ranks' windows in well under a second, where asking every peer took minutes.
#include <time.h>

#include <gtest/gtest.h>

#include <random>

#include "watch/bucket_sort.h"
#include "watch/peer_exchange.h"
#include "watch/timeline.h"

namespace trainready::watch {
namespace {

double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Nodes whose intervals start and end at random moments, some without GPU data, some touching,
// some overlapping the one before, some ending together, busy shares from a small set (ties).
std::vector<NodeTimeline> random_nodes(std::mt19937& rng, int count, int per_node) {
  std::uniform_real_distribution<double> gap(-0.3, 0.6), len(0.2, 2.0);
  std::uniform_int_distribution<int> busy(0, 12), pick(0, 9);
  std::vector<NodeTimeline> nodes(static_cast<std::size_t>(count));
  for (int n = 0; n < count; ++n) {
    NodeTimeline& nt = nodes[static_cast<std::size_t>(n)];
    nt.node = "node" + std::to_string(n);
    double t = 1.7e9 + gap(rng) * 3;
    double last_end = 0;
    for (int i = 0; i < per_node; ++i) {
      LabelledInterval li;
      li.interval.start = t + gap(rng);
      li.interval.end = std::max(li.interval.start + len(rng), last_end);
      if (pick(rng) == 0) li.interval.end = last_end > 0 ? last_end : li.interval.end;  // tie
      li.interval.end = std::max(li.interval.end, li.interval.start);
      last_end = li.interval.end;
      li.interval.seconds = li.interval.end - li.interval.start;
      li.interval.gpus = 8;
      if (pick(rng) != 0) li.interval.gpu_busy = busy(rng) / 12.0;
      li.verdict.label =
          li.interval.gpu_busy && *li.interval.gpu_busy >= 0.9 ? Label::kCompute : Label::kIdle;
      nt.intervals.push_back(li);
      t = li.interval.end;
    }
  }
  return nodes;
}

TEST(WatchStragglerScale, SweepAgreesWithAskingEveryPeer) {
  std::mt19937 rng(20261202);
  int stragglers = 0;
  for (int round = 0; round < 60; ++round) {
    std::vector<NodeTimeline> a = random_nodes(rng, 2 + round % 9, 1 + round % 7);
    std::vector<NodeTimeline> b = a;
    mark_stragglers(a, {});
    mark_stragglers_direct(b, {});
    for (std::size_t n = 0; n < a.size(); ++n) {
      ASSERT_EQ(a[n].intervals.size(), b[n].intervals.size());
      for (std::size_t i = 0; i < a[n].intervals.size(); ++i) {
        const Verdict& x = a[n].intervals[i].verdict;
        const Verdict& y = b[n].intervals[i].verdict;
        EXPECT_EQ(x.label, y.label) << "round " << round << " node " << n << " interval " << i;
        EXPECT_EQ(x.because, y.because) << "round " << round << " node " << n;
        stragglers += x.label == Label::kStraggler ? 1 : 0;
      }
      EXPECT_EQ(a[n].summary.to_json(), b[n].summary.to_json());
    }
  }
  EXPECT_GT(stragglers, 0);  // the comparison covered the rule firing, not only staying quiet
}

// Many distinct busy shares (the median's cursor walks over them) and rank counts past the
// bucket sort's small-input cut-off: the linear sweep still gives the direct answer.
TEST(WatchStragglerScale, LinearSweepAgreesWithManyDistinctValues) {
  std::mt19937 rng(35);
  std::uniform_real_distribution<double> share(0.0, 1.0), high(0.9, 1.0), jitter(0.0, 0.05);
  int stragglers = 0;
  for (int round = 0; round < 6; ++round) {
    const int count = 40 + 37 * round;
    std::vector<NodeTimeline> a(static_cast<std::size_t>(count));
    for (int n = 0; n < count; ++n) {
      NodeTimeline& nt = a[static_cast<std::size_t>(n)];
      nt.node = "node" + std::to_string(n);
      double t = 1.7e9 + jitter(rng);
      for (int i = 0; i < 5; ++i) {
        LabelledInterval li;
        li.interval.start = t;
        li.interval.end = t + 1 + jitter(rng);
        li.interval.seconds = li.interval.end - li.interval.start;
        li.interval.gpus = 8;
        li.interval.gpu_busy =
            n % 11 == 3 ? share(rng) * 0.3 : (n % 5 == 0 ? share(rng) : high(rng));
        li.verdict.label = *li.interval.gpu_busy >= 0.9 ? Label::kCompute : Label::kIdle;
        nt.intervals.push_back(li);
        t = li.interval.end;
      }
    }
    std::vector<NodeTimeline> b = a;
    mark_stragglers(a, {});
    mark_stragglers_direct(b, {});
    for (std::size_t n = 0; n < a.size(); ++n)
      for (std::size_t i = 0; i < a[n].intervals.size(); ++i) {
        EXPECT_EQ(a[n].intervals[i].verdict.label, b[n].intervals[i].verdict.label)
            << "round " << round << " node " << n << " interval " << i;
        EXPECT_EQ(a[n].intervals[i].verdict.because, b[n].intervals[i].verdict.because);
        stragglers += a[n].intervals[i].verdict.label == Label::kStraggler ? 1 : 0;
      }
  }
  EXPECT_GT(stragglers, 0);
}

TEST(WatchBucketSort, SortsAsStdSortDoes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-5, 5);
  std::uniform_int_distribution<int> small(0, 9);
  for (std::size_t n : {0, 1, 5, 31, 32, 33, 100, 5000}) {
    std::vector<double> spread, ties, wide;
    for (std::size_t i = 0; i < n; ++i) {
      spread.push_back(u(rng));
      ties.push_back(small(rng) * 0.25);
      wide.push_back(i % 3 == 0 ? 1e300 : (i % 3 == 1 ? -1e300 : u(rng)));
    }
    for (std::vector<double>* v : {&spread, &ties, &wide}) {
      std::vector<double> want = *v;
      std::sort(want.begin(), want.end());
      bucket_sort(*v, [](double x) { return x; });
      EXPECT_EQ(*v, want) << n;
    }
  }
  std::vector<double> same(100, 2.5);
  bucket_sort(same, [](double x) { return x; });
  EXPECT_EQ(same, std::vector<double>(100, 2.5));
}

TEST(WatchStragglerScale, RankZeroJudgesSixteenThousandRanksInLinearTime) {
  // 16,384 ranks, 4 intervals each, one rank in 64 idle while its peers work. Asking every peer
  // at every interval is 65,536 x 16,383 lookups and as many sorts of 16,383 values: minutes.
  const int ranks = 16384;
  PeerBoard b(ranks, {}, 1e9, 4, 0);
  for (int i = 0; i < 4; ++i) {
    for (int r = 0; r < ranks; ++r) {
      PeerInterval p;
      p.rank = r;
      p.host = "node" + std::to_string(r);
      p.start = 1.7e9 + i + 0.001 * (r % 100);
      p.end = p.start + 1;
      p.seconds = 1;
      p.gpus = 8;
      p.gpu_busy = r % 64 == 5 ? 0.05 : 0.97;
      p.label = r % 64 == 5 ? Label::kIdle : Label::kCompute;
      b.accept(p, i);
    }
  }
  const double c0 = cpu_s();
  const std::vector<StragglerEvent> events = b.judge(true);
  const double spent = cpu_s() - c0;
  EXPECT_EQ(events.size(), static_cast<std::size_t>(ranks / 64 * 4));
  for (const StragglerEvent& e : events) {
    EXPECT_EQ(e.rank % 64, 5);
    EXPECT_EQ(e.peers, ranks - 1);  // every other rank covers the middle of its interval
  }
  EXPECT_LT(spent, 5.0) << "judging " << ranks << " ranks took " << spent << " s of CPU";
}

}  // namespace
}  // namespace trainready::watch
