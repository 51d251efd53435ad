// Issue 30 items 3 and 4, the log reader's side: a chatty log's failure INFO lines kept around
// the failure, a WARN wrapped across lines joined back, an `ncclras -f json` report pasted into
// a log found and read.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "parsers/nccl_failure_info.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_ras_pasted.h"
#include "parsers/nccl_warn_join.h"
#include "support/paths.h"

namespace trainready {
namespace {

bool has_text(const std::vector<LogLine>& v, std::string_view s) {
  for (const LogLine& l : v)
    if (l.text.find(s) != std::string::npos) return true;
  return false;
}

std::string head(int rank) {
  return "node-" + std::to_string(rank / 8) + ":" + std::to_string(1000 + rank) + ":" +
         std::to_string(2000 + rank) + " [" + std::to_string(rank % 8) + "] ";
}

// 64 ranks each print a few distinct failure-worded setup lines (hundreds in all), then rank 37
// fails: its INFO lines around its WARN are the ones that explain it. The first 32 distinct
// lines (the old bound) were all setup chatter.
std::string chatty_failing_log() {
  std::string s = "NCCL version 2.21.5+cuda12.4\n";
  for (int r = 0; r < 64; ++r) {
    s += head(r) + "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA " + std::to_string(r) +
         " 'mlx5_" + std::to_string(r) + "' (no module)\n";
    s += head(r) + "NCCL INFO Could not enable P2P between dev " + std::to_string(r % 8) +
         "(=" + std::to_string(r) + ") and dev 3\n";
    s += head(r) + "NCCL INFO NCCL_IB_TIMEOUT not set for rank " + std::to_string(r) + "\n";
  }
  for (int i = 0; i < 50; ++i)
    s += head(i % 64) + "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";
  s += head(37) + "NCCL INFO NET/IB : Unable to open device mlx5_5: error 19\n";
  s += head(37) +
       "transport/net_ib.cc:1234 NCCL WARN NET/IB : ibv_modify_qp failed with 110 Connection "
       "timed out\n";
  s += head(37) + "NCCL INFO transport/net_ib.cc:1240 -> 2\n";
  s += head(37) + "NCCL INFO Failed to connect rank 37 to peer 45 after the QP timed out\n";
  for (int r = 0; r < 64; ++r)
    s += head(r) + "NCCL INFO Abort COMPLETE for rank " + std::to_string(r) + "\n";
  return s;
}

TEST(NcclFailureInfo, AChattyLogKeepsTheLinesAroundTheFailure) {
  const NcclRunFacts f = analyze_nccl_log_text(chatty_failing_log(), "chatty.log");
  // The lines just before and after rank 37's WARN (the old reader stopped at the 32nd line).
  EXPECT_TRUE(has_text(f.failure_info, "Unable to open device mlx5_5")) << f.failure_info.size();
  EXPECT_TRUE(has_text(f.failure_info, "Failed to connect rank 37 to peer 45"));
  // The first setup lines, and the last lines before the end.
  EXPECT_TRUE(has_text(f.failure_info, "GPU Direct RDMA Disabled for HCA 0 "));
  EXPECT_TRUE(has_text(f.failure_info, "Abort COMPLETE for rank 63"));
  // Bounded, and what went unkept is counted: 64 x 3 setup + 2 + 64 aborts, each once.
  EXPECT_LE(f.failure_info.size(), 48u);
  EXPECT_EQ(f.failure_info.size() + f.failure_info_folded, 64u * 3 + 2 + 64);
  // In the order NCCL printed them.
  for (std::size_t i = 1; i < f.failure_info.size(); ++i)
    EXPECT_LT(f.failure_info[i - 1].where.line, f.failure_info[i].where.line);
}

TEST(NcclFailureInfo, ASmallLogKeepsEveryLineAndFoldsNone) {
  std::string s;
  for (int i = 0; i < 30; ++i)
    s += head(i) + "NCCL INFO NET/IB : No device found for rank " + std::to_string(i) + "\n";
  s += head(0) + "NCCL INFO NET/IB : No device found for rank 0\n";  // a repeat: kept once
  const NcclRunFacts f = analyze_nccl_log_text(s, "small.log");
  EXPECT_EQ(f.failure_info.size(), 30u);
  EXPECT_EQ(f.failure_info_folded, 0u);
}

TEST(NcclFailureInfo, TheLatestWarningsKeepTheirWindowsPastTheFirstOnes) {
  NcclFailureInfo k;
  int chatty = 0, noisy = 0, warner[20] = {};
  int line = 0;
  auto info = [&](const std::string& t, const void* who) { k.info(t, {"x", ++line}, who); };
  for (int i = 0; i < 100; ++i) info("chatter " + std::to_string(i), &chatty);
  for (int w = 0; w < 20; ++w) {  // 20 warnings, each from its own rank: 8 first, 8 latest kept
    info("before warning " + std::to_string(w), &warner[w]);
    k.warn(&warner[w]);
    info("after warning " + std::to_string(w), &warner[w]);
    for (int i = 0; i < 30; ++i) info("noise " + std::to_string(w * 100 + i), &noisy);
  }
  std::vector<LogLine> out;
  std::uint64_t folded = 0;
  k.finish(out, folded);
  EXPECT_TRUE(has_text(out, "chatter 0"));
  EXPECT_TRUE(has_text(out, "before warning 0"));
  EXPECT_TRUE(has_text(out, "after warning 7"));
  EXPECT_FALSE(has_text(out, "before warning 8"));  // between the first and the latest: folded
  EXPECT_TRUE(has_text(out, "before warning 12"));
  EXPECT_TRUE(has_text(out, "after warning 19"));
  EXPECT_FALSE(has_text(out, "noise 0"));  // another stream's chatter is not the warning's
  EXPECT_EQ(out.size() + folded, 100u + 20 * 32);
}

// ---- WARN lines wrapped across lines -------------------------------------------------------

NcclRunFacts both_ways(const std::string& text) {
  NcclReadOptions ref;
  ref.line_reader = true;
  NcclRunFacts a = analyze_nccl_log_text(text, "w.log", ref);
  NcclReadOptions blocks;
  blocks.threads = 2;
  blocks.block_bytes = 4096;
  NcclRunFacts b = analyze_nccl_log_text(text, "w.log", blocks);
  EXPECT_EQ(a.warnings.size(), b.warnings.size());
  for (std::size_t i = 0; i < a.warnings.size() && i < b.warnings.size(); ++i)
    EXPECT_EQ(a.warnings[i].message, b.warnings[i].message);
  EXPECT_EQ(a.lines, b.lines);
  return a;
}

constexpr std::string_view kHead = "gpu-7:4321:4400 [3] ";

TEST(NcclWarnJoin, AnErrnoOnItsOwnLineJoinsItsWarn) {
  const NcclRunFacts f = both_ways(std::string(kHead) +
                                   "misc/socket.cc:484 NCCL WARN Net : Connect to "
                                   "10.0.0.5<43125> failed :\nConnection refused\n" +
                                   std::string(kHead) + "NCCL INFO misc/socket.cc:564 -> 2\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Net : Connect to 10.0.0.5<43125> failed : Connection refused");
  EXPECT_EQ(f.warnings[0].first.where.line, 1);
  ASSERT_EQ(f.issues.count(NcclProblem::kConnectionFailed), 1u);  // was "another warning"
  EXPECT_EQ(f.issues.count(NcclProblem::kOtherWarning), 0u);
  EXPECT_EQ(f.lines, 3u);
}

TEST(NcclWarnJoin, NcclsOwnThreeLineNvlsWarning) {
  const NcclRunFacts f = both_ways(
      std::string(kHead) +
      "transport/nvls.cc:376 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of "
      "size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.\n"
      "This is usually caused by a system or configuration error in the Fabric Manager or "
      "NVSwitches.\n"
      "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.\n"
      "terminate called after throwing an instance of 'c10::DistBackendError'\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  // quote() keeps 240 bytes of a message: the continuation is in the warning, the crash not.
  EXPECT_NE(f.warnings[0].message.find("state'. This is usually caused"), std::string::npos)
      << f.warnings[0].message;
}

TEST(NcclWarnJoin, AWordOrABracketCutByAWrapGoesOn) {
  // Wrapped at 80 columns inside a word, then inside "(...)".
  const std::string line1 =
      std::string(kHead) + "transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from pe";
  ASSERT_GE(line1.size(), 70u);
  const NcclRunFacts f = both_ways(line1 +
                                   "\ner 10.0.0.9<51234> with error 12, opcode 0, len 0, vendor "
                                   "err 129 (\nRecv)\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message,
            "NET/IB : Got completion from peer 10.0.0.9<51234> with error 12, opcode 0, len 0, "
            "vendor err 129 (Recv)");
  ASSERT_EQ(f.issues.count(NcclProblem::kIbCompletionError), 1u);
  const NcclIssue& i = f.issues.at(NcclProblem::kIbCompletionError);
  EXPECT_EQ(i.details.count("error 12"), 1u);
  EXPECT_EQ(i.peers.count("10.0.0.9<51234>"), 1u);
}

TEST(NcclWarnJoin, TheSameLauncherPrefixOrATimestampStillJoins) {
  NcclRunFacts f = both_ways("[rank3]: " + std::string(kHead) +
                             "misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0.5<1> failed :\n"
                             "[rank3]: Connection timed out\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Net : Connect to 10.0.0.5<1> failed : Connection timed out");
  f = both_ways("2026-12-02T07:00:00.123Z " + std::string(kHead) +
                "misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0.5<1> failed :\r\n"
                "2026-12-02T07:00:00.124Z Connection refused\r\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Net : Connect to 10.0.0.5<1> failed : Connection refused");
}

// A line NCCL broke by hand and indented ("...Multicast memory" / "  of size ..."), behind a
// prefix that takes the indent with it (torchrun's "[rank3]:", a CRI log, Docker's json-file
// lines): the indent is the line's own, so it goes on the WARN as it does without the prefix.
TEST(NcclWarnJoin, AnIndentBehindAPrefixStillJoins) {
  const std::string head = std::string(kHead) +
                           "transport/nvls.cc:287 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
                           "Multicast memory";
  const std::string rest =
      "  of size 2097152 : CUDA error 401 'the operation cannot be performed "
      "in the present state'.";
  const std::string joined =
      "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
      "operation cannot be performed in the present state'.";
  for (std::string p : {"", "[rank3]:", "2024-05-01T12:00:00.1Z stderr F ", "3: "}) {
    const NcclRunFacts f = both_ways(p + head + "\n" + p + rest + "\n");
    ASSERT_EQ(f.warnings.size(), 1u) << p;
    EXPECT_EQ(f.warnings[0].message, joined) << p;
  }
  const NcclRunFacts f = both_ways(R"({"log":")" + head + R"(\n","stream":"stderr"})" + "\n" +
                                   R"({"log":")" + rest + R"(\n","stream":"stderr"})" + "\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, joined);
}

TEST(NcclWarnJoin, LinesOfTheirOwnAreNotJoined) {
  const std::string warn =
      std::string(kHead) + "misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0.5<1> failed :\n";
  for (const std::string& next : std::vector<std::string>{
           "terminate called after throwing an instance of 'c10::Error'",
           "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1, unhandled system error",
           "[rank4]: Connection refused",  // another writer's line
           "Traceback (most recent call last):",
           "    raise DistBackendError(msg)",
           "E1202 07:00:00.000000 123 ProcessGroupNCCL.cpp:1] [Rank 0] failed",
           // TensorFlow's own log line after NCCL's WARN (tensorflow/tensorflow#34375)
           "2020-01-11 00:35:35.443989: I tensorflow/core/nccl/nccl_manager.cc:670] done Nccl "
           "kernel collective_key 118:0:0:0 participant 0 ncclResult 0",
           std::string(kHead) + "NCCL INFO misc/socket.cc:564 -> 2",
           "NCCL WARN Net : second warning",
           "",
       }) {
    const NcclRunFacts f = both_ways(warn + next + "\n");
    ASSERT_FALSE(f.warnings.empty()) << next;
    EXPECT_EQ(f.warnings[0].message, "Net : Connect to 10.0.0.5<1> failed :") << next;
  }
  // A message that ended (a full stop), or a short line: whatever follows is its own.
  NcclRunFacts f = both_ways(std::string(kHead) +
                             "init.cc:100 NCCL WARN Cuda failure 'out of memory'.\n"
                             "step 100 loss 2.3\n" +
                             std::string(kHead) + "init.cc:100 NCCL WARN short message\nend\n");
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_EQ(f.warnings[0].message, "Cuda failure 'out of memory'.");
  EXPECT_EQ(f.warnings[1].message, "short message");
}

TEST(NcclWarnJoin, AFileEndsTheWarnAndTheNextFileIsItsOwn) {
  const std::string dir = test::temp_dir("nccl-warn-join-files");
  std::ofstream(dir + "/a.log") << std::string(kHead)
                                << "misc/socket.cc:484 NCCL WARN Net : Connect to x failed :";
  std::ofstream(dir + "/b.log") << "Connection refused\n";
  for (bool line_reader : {true, false}) {
    NcclReadOptions o;
    o.line_reader = line_reader;
    const NcclRunFacts f = analyze_nccl_logs({dir}, o);
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_EQ(f.warnings[0].message, "Net : Connect to x failed :");
    EXPECT_EQ(f.warnings[0].first.where.source, dir + "/a.log");
  }
}

TEST(NcclWarnJoin, DecisionTable) {
  EXPECT_EQ(warn_continuation("Call to connect returned", 80, "Connection refused"),
            WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("peer 10.0.0.1<", 40, "4567> closed"), WarnJoin::kTight);
  EXPECT_EQ(warn_continuation("Couldn't find the device", 40, "and gave up"), WarnJoin::kNo);
  // A long line cut inside an address ("%s<%s>"): joined as is; a short one, or a sentence's
  // end before a number, is not.
  EXPECT_EQ(warn_continuation("Connect to 10.148.3.247", 80, "<56821> failed : Connection refused"),
            WarnJoin::kTight);
  EXPECT_EQ(warn_continuation("req 0/1 tag 0 peer 10", 120, ".10.23.6<58683> collective mismatch"),
            WarnJoin::kTight);
  EXPECT_EQ(warn_continuation("tag 0 peer 10.10.", 120, "23.6<58683> collective mismatch"),
            WarnJoin::kTight);
  EXPECT_EQ(warn_continuation("Connect to 10.148.3.247", 40, "<56821> failed"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("Gave up after three tries.", 80, "4 ranks left"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("x", 80, std::string_view("\0abc", 4)), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("open (", 80, "   deeply indented"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("failed :", 80, "python: error"), WarnJoin::kNo);
  // Broken by hand at a blank, the rest indented (a WARN quoted in a PR description): the
  // sentence goes on; not without the indent, nor after a sentence's end, nor into a capital.
  EXPECT_EQ(warn_continuation("Failed to bind NVLink SHARP (NVLS) Multicast memory", 84,
                              "  of size 2097152 : CUDA error 401 'the operation cannot be "
                              "performed in the present state'."),
            WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("Couldn't find the device", 80, " and gave up"), WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("Couldn't find the device.", 80, " and gave up"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("Couldn't find the device", 80, " Step 3 done"), WarnJoin::kNo);
  // Code under a warning is not its sentence going on (a call, a dotted name, an assignment).
  EXPECT_EQ(warn_continuation("opcode 1, len 0, vendor err 129", 80, "  warnings.warn("),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("vendor err 129", 80, "  retry(handle)"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("vendor err 129", 80, "  x = 3"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("memory of", 80, "  size 2097152 (rank 0) failed"), WarnJoin::kSpace);
  // A terminal's hard wrap inside a number (pytorch/ci-infra#490's "to 9637892 bytes" at 120
  // columns); not on a short line, nor into a line wider than the one cut.
  EXPECT_EQ(warn_continuation("failed to extend /dev/shm/nccl-WU88OE to 963789", 120,
                              "2 bytes, error: No space left on device (28)"),
            WarnJoin::kTight);
  // Between a word and its number NCCL's format has a blank (net_ib.cc's "len %d, vendor err
  // %d"; stas00/ml-engineering's Azure paste broke it there).
  EXPECT_EQ(
      warn_continuation("Got completion from peer 10.2.0.5<33092> with error 12, opcode 0, len",
                        130, "0, vendor err 129 (Recv)"),
      WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("with error 12, opcode 0, len", 130, "  0, vendor err 129"),
            WarnJoin::kNo);  // indented: not a hard wrap
  EXPECT_EQ(warn_continuation("to 963789", 40, "2 bytes"), WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("to 963789", 80, std::string(90, '2')), WarnJoin::kNo);
  // The next record's head, cut short where the paste ended (Lightning-AI/pytorch-lightning
  // #14986: "... has already checked in" / "hpc-25-15:21312:213"), is a line of its own; a
  // word's rest with a colon in it is not a head ("ailed: No data available").
  EXPECT_EQ(warn_continuation("Bootstrap Root : rank 1 of 8 ranks has already checked in", 110,
                              "hpc-25-15:21312:213"),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("ranks has already checked in", 110, "node7:4412:4413 [0]"),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("Call to ibv_reg_mr f", 110, "ailed: No data available"),
            WarnJoin::kTight);
  // The rest of an IPv6 address or a PCI bus id starts with a group of hex digits and a colon
  // too; that is no host name, so the cut still joins.
  EXPECT_NE(warn_continuation("Connect to 2001:db8:85a3:", 120,
                              "1234:5678::12<56821> failed : Connection refused"),
            WarnJoin::kNo);
  EXPECT_NE(warn_continuation("Could not find real path of (", 120, "0000:07:00.0)"),
            WarnJoin::kNo);
}

// A long line cut between letters: NCCL's own words (data/nccl-kb/printed-words.txt) tell a word
// cut inside ("not suppo" / "rted") from two whose blank the copy dropped ("Got completion" /
// "from peer"); a cut inside a quote or before a "word:"-looking piece is read the same way.
TEST(NcclWarnJoin, NcclsWordsTellWhereALongLineWasCut) {
  EXPECT_TRUE(cut_inside_word("is not suppo", "rted between these two devices'"));
  EXPECT_FALSE(cut_inside_word("Got completion", "from peer"));
  EXPECT_FALSE(cut_inside_word("the peer", "exited"));  // "peerexited" is no word
  EXPECT_EQ(warn_continuation("NET/IB : Got completion", 79,
                              "from peer 10.2.0.5<33092> with error 12, opcode 0, len"),
            WarnJoin::kSpace);
  EXPECT_EQ(
      warn_continuation("Call to ibv_reg_mr_iova2 failed with error Cannot", 79, "allocate memory"),
      WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("Cuda failure 217 'peer access is not suppo", 120,
                              "rted between these two devices'"),
            WarnJoin::kTight);
  EXPECT_EQ(warn_continuation("Cuda failure 217 'peer access is not", 120,
                              "supported between these two devices'"),
            WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("NET/OFI OFI fi_getinfo() call f", 120, "ailed: No data available"),
            WarnJoin::kTight);
  // A short line's next "word:" line is a line of its own, and a word NCCL never prints is no
  // evidence of a cut.
  EXPECT_EQ(warn_continuation("NET/OFI OFI fi_getinfo() call f", 40, "ailed: No data available"),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("fi_getinfo() call f", 120, "ooz: bar"), WarnJoin::kNo);
  // Cut just before the quoted text NCCL prints after a blank (cudawrap.cc "Cuda failure '%s'").
  EXPECT_EQ(warn_continuation("misc/cudawrap.cc:182 NCCL WARN Cuda failure", 79,
                              "'CUDA driver version is insufficient for CUDA runtime version'"),
            WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("Cuda failure", 40, "'CUDA driver version is insufficient'"),
            WarnJoin::kNo);
  // Cut just before a blank (the next piece starts with it) or at one the piece kept, at 120 and
  // 132 columns: NVIDIA/nccl#563's aws-ofi-nccl WARN.
  EXPECT_EQ(warn_continuation("NET/OFI Unable to register memory", 120,
                              " (type = 1) for device 0. RC: 12, Error: Cannot allocate memory"),
            WarnJoin::kSpace);
  EXPECT_EQ(warn_continuation("NET/OFI Unable to register memory (type = 1) ", 132,
                              "for device 0. RC: 12, Error: Cannot allocate memory"),
            WarnJoin::kSpace);
  // Not on a short line, nor a bracket at an indent of its own, nor without the kept blank.
  EXPECT_EQ(warn_continuation("NET/OFI Unable to register memory", 40, " (type = 1) for device"),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("NET/OFI Unable to register memory", 120, "  (type = 1)"),
            WarnJoin::kNo);
  EXPECT_EQ(warn_continuation("NET/OFI Unable to register memory (type = 1)", 132,
                              "for device 0. RC: 12"),
            WarnJoin::kNo);
}

// PyTorch's "Last error:" is followed by NCCL's message, wrapped like any other.
TEST(NcclWarnJoin, LastErrorsMessageJoinsToo) {
  const NcclRunFacts f = both_ways(
      "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
      "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of "
      "memory'.\nThis is usually caused by a system or configuration error in the Fabric Manager "
      "or NVSwitches.\n");
  bool found = false;
  for (const NcclWarning& w : f.warnings)
    found = found || w.message.find("memory'. This is usually") != std::string::npos;
  EXPECT_TRUE(found);
}

// ---- an `ncclras -f json` report pasted into a log -----------------------------------------

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(NcclRasJsonPasted, FoundBehindPrefixesAndReadIntoRasFacts) {
  const std::string json =
      slurp(std::string(TR_TEST_DATA) + "/nccl-telemetry/ras-json-2.29.7-missing-rank6.json");
  ASSERT_FALSE(json.empty());
  const std::string log = test::temp_dir("nccl-ras-json-pasted") + "/job.log";
  {
    std::ofstream out(log, std::ios::binary);
    for (int i = 0; i < 40; ++i) out << head(i % 8) << "NCCL INFO Channel 00/0 : via P2P/IPC\n";
    out << "$ ncclras -f json\n";
    std::istringstream in(json);
    std::string line;
    while (std::getline(in, line)) out << "2026-12-02T07:00:00Z " << line << "\r\n";
    out << head(0) << "NCCL INFO comm 0x1 rank 0 nranks 8 - Abort COMPLETE\n";
  }
  const NcclRunFacts f = analyze_nccl_logs({log});
  ASSERT_EQ(f.framework.ras_reports.size(), 1u);
  EXPECT_EQ(f.framework.ras_reports[0].line, 42);  // its "{"
  const std::vector<RasReport> r = read_pasted_ras(f.framework.ras_reports, {});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].format, "json");
  EXPECT_EQ(r[0].nccl_version, "2.29.7");
  EXPECT_EQ(r[0].source, log + ":42");
  ASSERT_FALSE(r[0].comms.empty());
  EXPECT_FALSE(r[0].comms[0].missing.empty());
  EXPECT_FALSE(r[0].all_ok);
}

TEST(NcclRasJsonPasted, MinifiedCutShortOrNotRasIsLeftOut) {
  const std::string dir = test::temp_dir("nccl-ras-json-shapes");
  std::ofstream(dir + "/mini.log")
      << "x\n{\"nccl_version\": \"2.28.7\", \"communicators\": [], \"ras\": {\"timeouts_count\": "
         "0}}\nafter\n";
  std::ofstream(dir + "/cut.log")
      << "x\n{\n  \"nccl_version\": \"2.28.7\",\n  \"communicators\": [\n";
  std::ofstream(dir + "/other.log") << "x\n{\n  \"nccl_version\": \"2.28.7\",\n  \"x\": 1\n}\n";
  for (const char* name : {"mini.log", "cut.log", "other.log"}) {
    const NcclRunFacts f = analyze_nccl_logs({dir + "/" + name});
    ASSERT_EQ(f.framework.ras_reports.size(), 1u) << name;
    EXPECT_EQ(f.framework.ras_reports[0].line, 2) << name;
    const std::vector<RasReport> r = read_pasted_ras(f.framework.ras_reports, {});
    EXPECT_EQ(r.size(), std::string(name) == "mini.log" ? 1u : 0u) << name;
  }
  // "nccl_version" on a file's first line has no "{" before it: not a report start.
  std::ofstream(dir + "/first.log") << "\"nccl_version\": \"2.28.7\",\n";
  EXPECT_TRUE(analyze_nccl_logs({dir + "/first.log"}).framework.ras_reports.empty());
}

// ---- shapes (item 4) -------------------------------------------------------------------------

// NCCL 2.26+ puts "[%F %T] " before its own lines (WARN by default, every level with
// NCCL_DEBUG_TIMESTAMP_LEVELS=ALL): the bare version banner behind it was not read as one.
TEST(NcclLogShapes, NcclsOwnTimestampIsTakenOff) {
  const NcclRunFacts f = both_ways(
      "[2025-09-09 23:51:24] NCCL version 2.26.2+cuda12.4\n\n"
      "[2025-09-09 23:51:24.123456] 9b40:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda "
      "failure 217 'peer access is not supported between these two devices'\n");
  EXPECT_EQ(f.versions.count("2.26.2"), 1u);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].hosts.count("9b40"), 1u);
}

// "host tag: " after an ISO time is a journald header only when a message follows it.
TEST(NcclLogShapes, IsoTimeThenLastErrorIsNotASyslogHeader) {
  std::string scratch;
  EXPECT_EQ(normalize_nccl_line("2026-12-02T07:00:00Z Last error: ", scratch), "Last error: ");
  const NcclRunFacts f =
      both_ways("2026-12-02T07:00:00Z Last error: \n2026-12-02T07:00:00Z Failed to bind x : y.\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Failed to bind x : y.");
}

// NCCL 2.0 - 2.6 printed "Ring %02d : ..." where 2.7+ print "Channel %02d : ...", and an
// excerpt may have lost the "Ring 00 : " (NVIDIA/nccl#133): both are connections.
TEST(NcclLogShapes, Pre27RingLinesAreConnections) {
  const NcclRunFacts f = both_ways(
      "h:1:2 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO Ring 00 : 3 -> 4 [receive] via NET/IB/0\n"
      "h:1:3 [1] NCCL INFO Ring 00 : 1[1] -> 2[2] via direct shared memory\n"
      "CY4:6213:6213 [4] INFO 3 -> 12 via NET/IB/0/GDRDMA\n"
      "h:1:2 [0] NCCL INFO Ring 00 : 0 1 2 3\n");
  ASSERT_EQ(f.transports.count("P2P/IPC"), 1u);
  ASSERT_EQ(f.transports.count("NET/IB"), 1u);
  EXPECT_EQ(f.transports.at("NET/IB").kind, TransportKind::kNetIb);
  ASSERT_EQ(f.transports.count("NET/IB/GDRDMA"), 1u);
  ASSERT_EQ(f.transports.count("SHM"), 1u);
  EXPECT_EQ(f.transports.at("SHM").kind, TransportKind::kShm);
}

}  // namespace
}  // namespace trainready

namespace trainready {
namespace {

// A net transport's message without its "NCCL WARN" head, as an issue title quotes it (a plugin
// named IBP printing NCCL's IB completion-error text, NVIDIA/nccl#1664): classified as NCCL's
// WARN is. Text that only resembles the tag is not.
TEST(NcclLogRead, HeadlessNetTransportLineIsClassified) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 "
      "vendor err 129 (Send)\n",
      "t.log");
  auto it = f.issues.find(NcclProblem::kIbCompletionError);
  ASSERT_NE(it, f.issues.end());
  EXPECT_EQ(it->second.details, (std::set<std::string>{"error 12", "vendor err 129"}));
  EXPECT_EQ(it->second.peers, (std::set<std::string>{"7.6.13.83<36315>"}));
  for (const char* other :
       {"NETWORK/IB Got completion from peer 1.2.3.4<5> with error 12\n",
        "the NET/IB Got completion from peer 1.2.3.4<5> with error 12\n", "NET/\n"})
    EXPECT_TRUE(analyze_nccl_log_text(other, "t.log").issues.empty()) << other;
}

}  // namespace
}  // namespace trainready
