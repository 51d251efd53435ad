// read_unmarked_nccl_lines (issue 30): the lines a predicate accepts, as warnings with their file
// and line; directories, stdin and lines past kUnmarkedLinesRead are not read.
#include "parsers/nccl_unmarked.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

namespace {

std::optional<NcclUnmarkedText> says_nccl(std::string_view t) {
  if (t.find("NET/IB : No device found") == t.npos) return std::nullopt;
  return NcclUnmarkedText{std::string(t), false};
}

TEST(NcclUnmarked, KeepsAcceptedLinesWithFileAndLine) {
  const std::string d = temp_dir("unmarked");
  std::ofstream(d + "/a.log") << "hello\n[1,0]<stdout>:NET/IB : No device found.\r\n"
                              << "NET/IB : No device found.\nbye\n";
  NcclRunFacts f;
  read_unmarked_nccl_lines({d + "/a.log", "-", d}, says_nccl, f);
  ASSERT_EQ(f.warnings.size(), 1u);  // the launcher prefix and CR are taken off: one message
  EXPECT_EQ(f.warnings[0].message, "NET/IB : No device found.");
  EXPECT_EQ(f.warnings[0].count, 2u);
  EXPECT_EQ(f.warnings[0].first.where.str(), d + "/a.log:2");
  EXPECT_EQ(f.nccl_lines, 2u);
  EXPECT_EQ(f.warning_lines, 2u);
}

TEST(NcclUnmarked, ReadsOnlyTheFirstLinesOfALongFile) {
  const std::string d = temp_dir("unmarked-long");
  {
    std::ofstream o(d + "/long.log");
    for (std::uint64_t i = 0; i < kUnmarkedLinesRead; ++i) o << "step " << i << "\n";
    o << "NET/IB : No device found.\n";
  }
  NcclRunFacts f;
  read_unmarked_nccl_lines({d + "/long.log"}, says_nccl, f);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.nccl_lines, 0u);
}

TEST(NcclUnmarked, MissingFileIsAnInputError) {
  NcclRunFacts f;
  EXPECT_ANY_THROW(read_unmarked_nccl_lines({"/nonexistent/x.log"}, says_nccl, f));
}

}  // namespace

namespace {

// Beside a log the line reader read (a framework's error, no NCCL record): only the bare lines
// it passed over are added; a line holding a warning it kept is not counted twice.
TEST(NcclUnmarked, BesideReadAddsOnlyTheLinesNotRead) {
  const std::string d = temp_dir("unmarked-beside");
  std::ofstream(d + "/a.log") << "Last error:\nNET/IB : No device found.\n"
                              << "[rank0]: NET/IB : No device found. again\n"
                              << "NET/IB : No device found on node 2\n";
  NcclRunFacts f;
  NcclWarning kept;
  kept.message = "NET/IB : No device found.";
  kept.count = 1;
  f.warnings.push_back(kept);
  read_unmarked_nccl_lines({d + "/a.log"}, says_nccl, f, true);
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_EQ(f.warnings[0].count, 1u);  // lines 2 and 3 hold it: read already
  EXPECT_EQ(f.warnings[1].message, "NET/IB : No device found on node 2");
  EXPECT_EQ(f.warnings[1].first.where.line, 4);
}

TEST(NcclUnmarked, TextInMemoryIsReadAsTheNamedFile) {
  NcclRunFacts f;
  read_unmarked_nccl_text("x\nNET/IB : No device found.\n", "pasted.log", says_nccl, f);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].first.where.str(), "pasted.log:2");
}

}  // namespace

namespace {

// A line the reader calls an INFO line is kept as a failure INFO line (the level the knowledge
// base reads it at), counted as NCCL's, never as a warning; its text is the reader's spelling.
TEST(NcclUnmarked, InfoLinesAreKeptAsInfoInTheReadersSpelling) {
  auto reader = [](std::string_view t) -> std::optional<NcclUnmarkedText> {
    if (t.rfind("NET/Plugin", 0) != 0) return std::nullopt;
    return NcclUnmarkedText{"NET/Plugin : No plugin found.", true};
  };
  NcclRunFacts f;
  read_unmarked_nccl_text("NET/Plugin: No plugin found\nx\nNET/Plugin:No plugin found\n", "p.log",
                          reader, f);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.warning_lines, 0u);
  EXPECT_EQ(f.nccl_lines, 2u);
  ASSERT_EQ(f.failure_info.size(), 1u);  // distinct
  EXPECT_EQ(f.failure_info[0].text, "NET/Plugin : No plugin found.");
  EXPECT_EQ(f.failure_info[0].where.str(), "p.log:1");
}

TEST(NcclUnmarked, FirstErrorLikeLineIsEscapedAndClipped) {
  const std::string d = temp_dir("unmarked-err");
  std::ofstream(d + "/quiet.log") << "epoch 1 loss 2.3\n";
  std::ofstream(d + "/a.log") << "step 1\nRuntimeError: boom\x01\x1b[0m " << std::string(300, 'x')
                              << "\nsecond error\n";
  EXPECT_FALSE(first_error_like_line({d + "/quiet.log", "-", d}));
  auto l = first_error_like_line({d + "/quiet.log", d + "/a.log", "/nonexistent"});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->where.str(), d + "/a.log:2");
  EXPECT_EQ(l->text.rfind("RuntimeError: boom\\x01\\x1b[0m x", 0), 0u) << l->text;
  EXPECT_LT(l->text.size(), 200u);
  EXPECT_EQ(l->text.substr(l->text.size() - 3), "...");
  EXPECT_FALSE(first_error_like_line({"/nonexistent/x.log"}));  // passed over, no throw
}

// A traceback's frames and the source lines they quote are where the error went, not the error
// (hiyouga/LlamaFactory#9506: torchrun's frame in ".../multiprocessing/errors/__init__.py").
TEST(NcclUnmarked, FirstErrorLikeLineIsNotATracebackFrame) {
  const std::string d = temp_dir("unmarked-frame");
  std::ofstream(d + "/t.log")
      << "Traceback (most recent call last):\n"
         "  File \"/x/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line 357, "
         "in wrapper\n"
         "    return f(*args, **kwargs)\n"
         "  File \"/x/torch/distributed/launcher/api.py\", line 293, in launch_agent\n"
         "    raise ChildFailedError(\n"
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n";
  auto l = first_error_like_line({d + "/t.log"});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->where.str(), d + "/t.log:6");
}

// An input with nothing readable but lines that name NCCL (nccl-tests#112's title and command):
// those lines, first few kept, all counted; other text is not a mention.
TEST(NcclUnmarked, MentionsOfNcclAreKeptWithFileAndLine) {
  NcclRunFacts f;
  read_nccl_mentions(
      {std::string(TR_TEST_DATA) + "/nccl-shapes/nccltests112-title-and-command.log"}, f);
  ASSERT_EQ(f.mentions.size(), 2u);
  EXPECT_EQ(f.mention_lines, 2u);
  EXPECT_EQ(f.mentions[0].where.line, 1);
  // The mpirun line names all_reduce_perf past 160 characters: kept clipped.
  EXPECT_EQ(f.mentions[1].text.rfind("mpirun -np 16 -H host1:8,host2:8", 0), 0u);
  EXPECT_EQ(f.mentions[1].text.substr(f.mentions[1].text.size() - 3), "...");
  const std::string d = temp_dir("unmarked-mentions");
  {
    std::ofstream out(d + "/a.log");
    out << "epoch 1 loss 2.3\nusb 1-1: No device found\n\x01\x02\n\n\n"
        << "btl_openib: completion with error status 12 vendor err 129\n"  // Open MPI's
        << "NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n";
    for (int i = 0; i < 6; ++i) out << "NCCL hangs\x1b[0m\n";
  }
  NcclRunFacts g;
  read_nccl_mentions({d + "/a.log", "-", d, "/nonexistent/x.log"}, g);
  EXPECT_EQ(g.mention_lines, 7u);
  ASSERT_EQ(g.mentions.size(), kMentionsKept);
  EXPECT_EQ(g.mentions[0].text, "NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>");
  EXPECT_EQ(g.mentions[0].where.line, 7);
  EXPECT_EQ(g.mentions[1].text, "NCCL hangs\\x1b[0m");  // control bytes escaped
  std::ofstream(d + "/b.log") << "Crash with --tensor-parallel-size in the docker container\n";
  NcclRunFacts none;
  read_nccl_mentions({d + "/b.log"}, none);
  EXPECT_TRUE(none.mentions.empty());
  EXPECT_EQ(none.mention_lines, 0u);
}

}  // namespace
