// The live straggler's board (watch/peer_exchange.h): the same rule as --replay of several
// recordings, fed interval summaries as rank 0 receives them.
#include "watch/peer_exchange.h"

#include <gtest/gtest.h>

#include "core/input_error.h"

namespace trainready::watch {
namespace {

PeerInterval iv(int rank, double start, std::optional<double> busy, double len = 1.0) {
  PeerInterval p;
  p.rank = rank;
  p.host = "node" + std::to_string(rank);
  p.start = 1.7e9 + start;
  p.end = p.start + len;
  p.seconds = len;
  p.gpus = busy ? 8 : 0;
  p.gpu_busy = busy;
  p.cpu_cores = 2.0;
  p.label = busy && *busy >= 0.9 ? Label::kCompute : Label::kIdle;
  return p;
}

TEST(WatchPeers, MessageRoundTrip) {
  PeerInterval p = iv(2, 0, 0.42);
  p.host = "gpu-\x1b[31m-07";  // escaped on output, carried as is
  const PeerInterval q = decode_peer_interval(encode_peer_interval(p));
  EXPECT_EQ(q.rank, 2);
  EXPECT_EQ(q.host, p.host);
  EXPECT_DOUBLE_EQ(*q.gpu_busy, 0.42);
  EXPECT_EQ(q.label, Label::kIdle);
  EXPECT_DOUBLE_EQ(q.end - q.start, 1.0);
}

TEST(WatchPeers, BadMessagesAreRefusedWithAReason) {
  EXPECT_THROW(decode_peer_interval("\xff\x00garbage"), std::runtime_error);
  EXPECT_THROW(decode_peer_interval("[]"), std::runtime_error);
  nlohmann::json j = nlohmann::json::parse(encode_peer_interval(iv(1, 0, 0.5)));
  j["gpu_busy"] = 7;  // a ratio
  EXPECT_THROW(decode_peer_interval(j.dump()), std::runtime_error);
  j["gpu_busy"] = 0.5;
  j["label"] = "sleepy";
  EXPECT_THROW(decode_peer_interval(j.dump()), std::runtime_error);
  j["label"] = "compute";
  j["format"] = 99;
  try {
    decode_peer_interval(j.dump());
    FAIL() << "format 99 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("format"), std::string::npos);
  }
}

TEST(WatchPeers, TheIdleNodeAmongBusyPeersIsNamed) {
  PeerBoard b(3, {}, 5, 16, 0);
  std::vector<StragglerEvent> all;
  for (int i = 0; i < 6; ++i) {
    for (int r = 0; r < 3; ++r) b.accept(iv(r, i + 0.1 * r, r == 1 ? 0.05 : 0.97), i);
    for (auto& e : b.judge(false)) all.push_back(e);
  }
  for (auto& e : b.judge(true)) all.push_back(e);
  ASSERT_FALSE(all.empty());
  for (const auto& e : all) EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(b.rank(1).straggler_intervals, 6);
  EXPECT_EQ(b.rank(1).judged, 6);
  EXPECT_EQ(b.rank(0).straggler_intervals, 0);
  EXPECT_EQ(straggler_line(all[0]),
            "node node1 (rank 1) idle while its 2 peers work (GPU busy 5 %)");
  EXPECT_NE(
      b.text("mpirun").find("Straggler: node node1 (rank 1) idle while its 2 peers work: 6 of 6"),
      std::string::npos);
  EXPECT_GT(b.facts("mpirun").ranks.at(1).straggler_intervals, 0);
  EXPECT_EQ(b.facts("mpirun").ranks.at(0).straggler_intervals, 0);
}

TEST(WatchPeers, AllBusyNamesNone) {
  PeerBoard b(3, {}, 5, 16, 0);
  for (int i = 0; i < 6; ++i) {
    for (int r = 0; r < 3; ++r) b.accept(iv(r, i + 0.1 * r, 0.9 + 0.03 * r), i);
    EXPECT_TRUE(b.judge(false).empty());
  }
  EXPECT_TRUE(b.judge(true).empty());
  EXPECT_NE(b.text("mpirun").find("No straggler"), std::string::npos);
}

TEST(WatchPeers, AnIntervalWaitsUntilEveryPeerCoveredIt) {
  PeerBoard b(2, {}, 5, 16, 0);
  b.accept(iv(0, 0, 0.97), 0);
  b.accept(iv(1, 0, 0.05), 0);
  b.accept(iv(0, 1, 0.97), 1);
  // Rank 1's first interval is covered by rank 0's; rank 0's second is not yet by rank 1.
  EXPECT_EQ(b.judge(false).size(), 1u);
  EXPECT_EQ(b.rank(0).judged, 1);
  EXPECT_EQ(b.rank(1).judged, 1);
}

TEST(WatchPeers, ASilentRankIsReportedAndNotWaitedFor) {
  PeerBoard b(3, {}, 2.0, 16, 0);
  b.accept(iv(2, 0, 0.97), 0.5);
  for (int i = 0; i < 6; ++i) {
    b.accept(iv(0, i, 0.97), i);
    b.accept(iv(1, i, i < 1 ? 0.97 : 0.05), i);
    auto silent = b.update_silence(i);
    if (i == 3) {
      EXPECT_EQ(silent, std::vector<int>{2});
    }
    b.judge(false);
  }
  EXPECT_EQ(b.rank(2).state, PeerState::kSilent);
  EXPECT_FALSE(b.all_answering());
  // Rank 1 is still judged against rank 0 once rank 2 stopped.
  EXPECT_GE(b.rank(1).straggler_intervals, 3);
  EXPECT_NE(b.text("mpirun").find("Silent: rank 2 (node2) stopped answering after 1 interval"),
            std::string::npos);
}

TEST(WatchPeers, UnreadableMessagesDoNotCountAsAnswers) {
  PeerBoard b(2, {}, 1.0, 16, 0);
  b.unreadable(1, "not a JSON object");
  EXPECT_EQ(b.update_silence(2.0), std::vector<int>{1});
  EXPECT_NE(b.text("srun").find("Unreadable: rank 1 sent 1 message(s)"), std::string::npos);
  EXPECT_NE(b.text("srun").find("never sent an interval summary"), std::string::npos);
}

TEST(WatchPeers, WithoutGpusTheProcessesCpuDecides) {
  PeerBoard b(3, {}, 5, 16, 0);
  std::vector<StragglerEvent> all;
  for (int i = 0; i < 4; ++i) {
    for (int r = 0; r < 3; ++r) {
      PeerInterval p = iv(r, i, std::nullopt);
      p.cpu_cores = r == 2 ? 0.01 : 3.5;
      p.label = r == 2 ? Label::kIdle : Label::kCompute;
      b.accept(p, i);
    }
    for (auto& e : b.judge(false)) all.push_back(e);
  }
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].rank, 2);
  EXPECT_FALSE(all[0].by_gpu);
  EXPECT_NE(straggler_line(all[0]).find("its processes on CPU 0.01"), std::string::npos);
}

TEST(WatchPeers, AFinishedRankIsNotSilent) {
  PeerBoard b(2, {}, 1.0, 16, 0);
  b.accept(iv(1, 0, 0.9), 0);
  b.finished(1, 0.5);
  EXPECT_TRUE(b.update_silence(10).empty());
  EXPECT_TRUE(b.all_answering());
}

TEST(WatchPeers, TheWindowStaysBounded) {
  PeerBoard b(2, {}, 5, 4, 0);
  for (int i = 0; i < 1000; ++i) b.accept(iv(1, i, 0.9), i);
  EXPECT_EQ(b.rank(1).window.size(), 4u);
  EXPECT_EQ(b.rank(1).intervals, 1000);
}

TEST(WatchPeers, FaultHookAndPlaceholders) {
  EXPECT_EQ(parse_peer_faults("1:silent,2:hang,3:garbage").size(), 3u);
  EXPECT_THROW(parse_peer_faults("x:hang"), InputError);
  EXPECT_THROW(parse_peer_faults("1:sleep"), InputError);
  EXPECT_EQ(expand_rank_placeholders("/snap/{rank}/r-{rank}-{host}.jsonl", 3, "gpu7"),
            "/snap/3/r-3-gpu7.jsonl");
  EXPECT_EQ(expand_rank_placeholders("/plain", 3, "gpu7"), "/plain");
}

}  // namespace
}  // namespace trainready::watch
