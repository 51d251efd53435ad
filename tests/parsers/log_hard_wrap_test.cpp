// A log cut into lines of one terminal width (log_hard_wrap.h): the width told from the log,
// the pieces joined back, and a log that was never cut left as it is.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// `lines`, each longer than `width` cut as a terminal cuts it (fold -w).
std::vector<std::string> fold(const std::vector<std::string>& lines, std::size_t width) {
  std::vector<std::string> out;
  for (const std::string& l : lines) {
    if (l.size() <= width) {
      out.push_back(l);
      continue;
    }
    for (std::size_t i = 0; i < l.size(); i += width) out.push_back(l.substr(i, width));
  }
  return out;
}

struct Joined {
  std::vector<std::string> lines;
  std::vector<std::uint64_t> numbers;
  std::size_t width = 0;
};

Joined join(const std::vector<std::string>& in) {
  Joined j;
  HardWrapJoiner w;
  auto sink = [&](std::string_view l, std::uint64_t n, bool) {
    j.lines.emplace_back(l);
    j.numbers.push_back(n);
  };
  for (std::size_t i = 0; i < in.size(); ++i) w.line(in[i], i + 1, false, sink);
  w.end(sink);
  j.width = w.width();
  return j;
}

std::vector<std::string> with_newlines(const std::string& s) { return lines_of(s); }

const std::vector<std::string> kLog = with_newlines(
    "node1:1234:1240 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
    "node1:1234:1240 [0] NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB "
    "[2]mlx5_ib2:1/IB "
    "[3]mlx5_ib3:1/IB ; OOB eth0:10.0.0.4<0>\n"
    "node1:1234:1240 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
    "node1:1234:1240 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
    "10.0.0.5<53218> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
    "::ffff:10.0.0.4 remoteGid ::ffff:10.0.0.5\n"
    "node1:1234:1240 [0] NCCL INFO transport/net.cc:1296 -> 6\n");

const std::string kTable = "nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt";

TEST(LogHardWrap, TerminalColumnsCountWhatATerminalShows) {
  EXPECT_EQ(terminal_columns("abc"), 3u);
  EXPECT_EQ(terminal_columns("abc\r"), 3u);
  EXPECT_EQ(terminal_columns("a\tb"), 9u);                   // the tab runs to column 8
  EXPECT_EQ(terminal_columns("\x1b[31mWARN\x1b[0m x"), 6u);  // colour takes no column
  EXPECT_EQ(terminal_columns("caf\xc3\xa9"), 4u);            // one column per code point
}

TEST(LogHardWrap, APieceAfterAHeadIsNoRecordOfItsOwn) {
  EXPECT_TRUE(starts_record(""));
  EXPECT_TRUE(starts_record("   "));
  EXPECT_TRUE(starts_record("node1:1234:1240 [0] NCCL INFO Bootstrap : Using eth0"));
  EXPECT_TRUE(starts_record("[rank3]:node1:1234:1240 [0] NCCL INFO x"));
  EXPECT_TRUE(starts_record("2024-05-01T12:00:00.123Z stderr F x"));
  EXPECT_TRUE(starts_record("node0:24563 NCCL DIAG NCCL diagnostics completed in 245.3 ms"));
  EXPECT_TRUE(starts_record("host:1:xxx [0] NCCL INFO comm 0x1 rank 0"));
  EXPECT_FALSE(starts_record("0] -> 1[1] via P2P/IPC/read"));
  EXPECT_FALSE(starts_record("rted between these two NCCL devices"));
  EXPECT_FALSE(starts_record("INFO for details), NCCL version 2.18.5"));  // cut after "NCCL_DEBUG="
  EXPECT_TRUE(starts_own_line("INFO for details), NCCL version 2.18.5"));  // but no evidence
  EXPECT_TRUE(starts_own_line("Traceback (most recent call last):"));
  EXPECT_TRUE(starts_own_line("#  out-of-place"));
  EXPECT_FALSE(starts_own_line("ection refused"));
}

TEST(LogHardWrap, ALogCutAtEightyColumnsIsJoinedBack) {
  for (std::size_t width : {80u, 100u, 120u}) {
    const Joined j = join(fold(kLog, width));
    EXPECT_EQ(j.width, width);
    EXPECT_EQ(j.lines, kLog) << width;
  }
}

// A terminal's copy drops the blanks at the end of each row: where the cut fell on a blank,
// the first piece is one column short and the blank is gone.
std::vector<std::string> fold_trimmed(const std::vector<std::string>& lines, std::size_t width) {
  std::vector<std::string> out = fold(lines, width);
  for (std::string& l : out)
    while (!l.empty() && l.back() == ' ') l.pop_back();
  return out;
}

TEST(LogHardWrap, ACutAtABlankTheCopyDroppedGetsItsBlankBack) {
  std::size_t told = 0;
  for (std::size_t width = 70; width <= 130; ++width) {
    const Joined j = join(fold_trimmed(kLog, width));
    if (j.width == 0) continue;  // too few cuts at this width to tell it
    ++told;
    EXPECT_EQ(j.width, width);
    EXPECT_EQ(j.lines, kLog) << width;
  }
  EXPECT_GE(told, 55u);  // 58 of the 61 widths: the other three leave one cut only
  // At 96 columns the IB line and the WARN are both cut at a blank.
  const std::vector<std::string> in = fold_trimmed(kLog, 96);
  ASSERT_EQ(in[1].size(), 95u);
  ASSERT_EQ(in[5].size(), 95u);
  EXPECT_EQ(join(in).lines, kLog);
}

TEST(LogHardWrap, AJoinedLineKeepsTheNumberOfItsFirstPiece) {
  const std::vector<std::string> cut = fold(kLog, 80);
  const Joined j = join(cut);
  ASSERT_EQ(j.lines.size(), kLog.size());
  std::uint64_t expect = 1;
  for (std::size_t i = 0; i < kLog.size(); ++i) {
    EXPECT_EQ(j.numbers[i], expect);
    expect += (kLog[i].size() + 79) / 80;
  }
}

TEST(LogHardWrap, ALogNeverCutIsLeftAsItIs) {
  const Joined j = join(kLog);
  EXPECT_EQ(j.width, 0u);
  EXPECT_EQ(j.lines, kLog);
}

TEST(LogHardWrap, OneWideLineIsNoEvidenceOfAWidth) {
  // A single line of exactly 80 columns, then a line that is not a record: a natural log can
  // hold that, so the width is not told and nothing is joined.
  std::vector<std::string> in = {std::string(80, 'x'), "and more", "tail"};
  const Joined j = join(in);
  EXPECT_EQ(j.width, 0u);
  EXPECT_EQ(j.lines, in);
}

// The same wide line printed twice (RCCL's iommu=pt WARN of ROCm/rccl#2188, its timestamp and a
// redacted "node [0]" head alike), each followed by a line that is no record NCCL's shape tells:
// one observation, not two cuts, so the RCCL version line after it is not joined into it.
TEST(LogHardWrap, TheSameWideLineTwiceIsNoEvidenceOfAWidth) {
  const std::string warn =
      "[2026-08-23 09:56:58] node [0] /app/rccl/build/release/hipify/src/init.cc:213 NCCL WARN "
      "Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!";
  const std::vector<std::string> in = {warn, "node [0] NCCL INFO ROCr version 1.18", warn,
                                       "node [0] NCCL INFO RCCL version : 2.27.7-HEAD:29e1567"};
  const Joined j = join(in);
  EXPECT_EQ(j.width, 0u);
  EXPECT_EQ(j.lines, in);
  // Two different lines of that width, each followed by a piece: a width.
  const std::vector<std::string> cut = {warn, "piece one", warn.substr(1) + "y", "piece two"};
  EXPECT_EQ(join(cut).width, terminal_columns(warn));
}

// One long line cut once tells no width, but the text may still show the cut: inside NCCL's
// record head (aws/aws-ofi-nccl#1020's line at 80 columns), or inside a word of NCCL's texts.
TEST(LogHardWrap, ASingleCutTheTextShowsIsJoined) {
  const std::string head =
      "[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 ";
  const std::string warn = "NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available";
  for (std::size_t k = 0; k <= 10; ++k) {
    // Cut k bytes into "NCCL WARN ", the blank at the cut dropped or kept.
    for (bool drop : {false, true}) {
      std::string a = head + warn.substr(0, k), b = warn.substr(k);
      if (drop) {
        while (!a.empty() && a.back() == ' ') a.pop_back();
      }
      const Joined j = join({a, b, "after"});
      ASSERT_EQ(j.lines.size(), 2u) << k << " " << drop;
      EXPECT_EQ(j.lines[0], head + warn) << k << " " << drop;
      EXPECT_EQ(j.numbers[1], 3u);
    }
  }
  EXPECT_EQ(single_cut(head + "N", 82, "CCL WARN NET/OFI x"), SingleCut::kTight);
  EXPECT_EQ(single_cut(head + "N", 82, "CCL said so"), SingleCut::kNo);
  // A line that already holds its tag, or a prose line before a headless WARN, is no cut.
  EXPECT_EQ(single_cut("host:1:2 [0] NCCL INFO comm 0x1 rank 0 N", 41, "CCL WARN x"),
            SingleCut::kNo);
  EXPECT_EQ(single_cut("The log shows this, as printed by rank zero of the job:", 56,
                       "NCCL WARN Cuda failure 'out of memory'"),
            SingleCut::kNo);
  // Inside a word of NCCL's texts, on a line 70 columns or wider.
  const std::string framework =
      "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
      "remote proc";
  EXPECT_EQ(single_cut(framework, framework.size(), "ess exited or there was a network error"),
            SingleCut::kTight);
  EXPECT_EQ(single_cut(framework, framework.size(), "exited or there was a network error"),
            SingleCut::kNo);
  EXPECT_EQ(single_cut("remote proc", 11, "ess exited"), SingleCut::kNo);
  EXPECT_EQ(single_cut(framework, framework.size(), "Traceback (most recent call last):"),
            SingleCut::kNo);
}

TEST(LogHardWrap, AFixedWidthTableIsNotReadAsCut) {
  const std::string table = test::read_fixture(kTable);
  const std::vector<std::string> in = lines_of(table);
  const Joined j = join(in);
  EXPECT_EQ(j.width, 0u);
  EXPECT_EQ(j.lines, in);
}

TEST(LogHardWrap, AFixedWidthTableCutNarrowerIsJoinedBack) {
  const std::vector<std::string> in = lines_of(test::read_fixture(kTable));
  std::string cut;
  for (const std::string& l : fold(in, 80)) cut += l + "\n";
  const NcclTestsFacts whole = parse_nccl_tests(test::read_fixture(kTable), "whole");
  const NcclTestsFacts folded = parse_nccl_tests(cut, "folded");
  ASSERT_FALSE(whole.rows.empty());
  ASSERT_EQ(folded.rows.size(), whole.rows.size());
  for (std::size_t i = 0; i < whole.rows.size(); ++i)
    EXPECT_EQ(folded.rows[i].size_bytes, whole.rows[i].size_bytes);
  EXPECT_EQ(folded.avg_busbw, whole.avg_busbw);
}

TEST(LogHardWrap, TheNcclReaderReadsACutWarnWhole) {
  std::string cut;
  for (const std::string& l : fold(kLog, 80)) cut += l + "\n";
  std::string whole;
  for (const std::string& l : kLog) whole += l + "\n";
  for (bool line_reader : {false, true}) {
    NcclReadOptions o;
    o.line_reader = line_reader;
    const NcclRunFacts a = analyze_nccl_log_text(whole, "whole", o);
    const NcclRunFacts b = analyze_nccl_log_text(cut, "cut", o);
    ASSERT_EQ(a.warnings.size(), 1u);
    ASSERT_EQ(b.warnings.size(), 1u);
    EXPECT_EQ(b.warnings[0].message, a.warnings[0].message);
    EXPECT_EQ(b.warnings[0].first.where.line, 1 + 2 + 1 + 1);  // the WARN's first piece
    EXPECT_EQ(b.lines, kLog.size());
    EXPECT_EQ(b.wrap_columns, 80u);
    EXPECT_EQ(b.wrap_joined, fold(kLog, 80).size() - kLog.size());
    EXPECT_EQ(a.wrap_joined, 0u);
  }
}

TEST(LogHardWrap, CrlfPiecesJoinWithoutACarriageReturnInside) {
  std::vector<std::string> in = fold(kLog, 80);
  for (std::string& l : in) l += "\r";
  const Joined j = join(in);
  ASSERT_EQ(j.lines.size(), kLog.size());
  for (std::size_t i = 0; i < kLog.size(); ++i) EXPECT_EQ(j.lines[i], kLog[i] + "\r");
}

}  // namespace
}  // namespace trainready
