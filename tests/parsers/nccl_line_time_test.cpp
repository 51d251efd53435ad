// Issue 30 item 5: the time a log line carries, from the prefixes it arrives behind.
#include "parsers/nccl_line_time.h"

#include <gtest/gtest.h>

#include <string>

#include "parsers/nccl_log.h"

namespace trainready {
namespace {

std::string at(std::string_view line) { return nccl_line_time(line).str(); }

TEST(NcclLineTime, EachStampShapeIsRead) {
  // kubectl logs --timestamps / docker logs -t (zone applied: UTC)
  EXPECT_EQ(at("2024-05-01T12:34:56.123456789Z gpu-3:4123:4188 [2] NCCL INFO x"),
            "2024-05-01 12:34:56.123456");
  EXPECT_EQ(at("2024-05-01T14:34:56+02:00 gpu-3:4123:4188 [2] NCCL INFO x"),
            "2024-05-01 12:34:56.000000");
  // NCCL 2.26+ WARN stamp, behind mpirun's tag
  EXPECT_EQ(at("[1,3]<stdout>:[2025-09-09 23:51:24.5] h:1:2 [0] misc/socket.cc:1 NCCL WARN x"),
            "2025-09-09 23:51:24.500000");
  // syslog: no year
  EXPECT_EQ(at("Dec  2 04:00:00 gpu-3 python[4123]: gpu-3:4123:4188 [2] NCCL INFO x"),
            "12-02 04:00:00.000000");
  // PyTorch's glog head behind torchrun's prefix: no year
  EXPECT_EQ(at("[rank0]:[E1202 10:00:00.123456 1234 ProcessGroupNCCL.cpp:1663] [PG 0 Rank 0] "
               "Watchdog caught collective operation timeout"),
            "12-02 10:00:00.123456");
  EXPECT_EQ(at("\x1b[32m2024-02-29T23:59:59Z\x1b[0m h:1:2 [0] NCCL INFO x"),
            "2024-02-29 23:59:59.000000");
}

TEST(NcclLineTime, LinesWithoutAStampHaveNone) {
  for (std::string_view line :
       {"gpu-3:4123:4188 [2] NCCL INFO Using network IB", "", "[", "2024-13-01T12:34:56Z x",
        "2024-05-01T25:00:00Z x", "Foo  2 04:00:00 x", "E1302 10:00:00.1 x", "[rank0]:", "Dec  2"})
    EXPECT_FALSE(nccl_line_time(line).known()) << line;
}

TEST(NcclLineTime, StampsCompareInTime) {
  const LineTime a = nccl_line_time("2024-05-01T12:00:00Z x");
  const LineTime b = nccl_line_time("2024-05-01T13:30:00+02:00 x");  // 11:30 UTC
  EXPECT_EQ(compare_line_time(b, a), -1);
  EXPECT_EQ(compare_line_time(a, b), 1);
  EXPECT_EQ(compare_line_time(a, LineTime{}), 0);
  EXPECT_EQ(compare_line_time(nccl_line_time("2023-12-31T00:00:00Z x"), a), -1);  // years
}

TEST(NcclLineTime, TheAnalyserKeepsTheTimeOfTheLinesItQuotes) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "[2025-09-09 23:51:24] h:1:2 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection "
      "closed by remote peer\n"
      "h:1:2 [0] NCCL INFO misc/socket.cc:100 -> 6\n"
      "[rank0]:[E0909 23:51:40.000001 7 ProcessGroupNCCL.cpp:1] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
      "Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n",
      "t.log");
  ASSERT_FALSE(f.warnings.empty());
  EXPECT_EQ(f.warnings.front().first.time.str(), "2025-09-09 23:51:24.000000");
  ASSERT_TRUE(f.first_error_return.has_value());
  EXPECT_FALSE(f.first_error_return->time.known());
  ASSERT_FALSE(f.timeouts.empty());
  EXPECT_EQ(f.timeouts.front().line.time.str(), "09-09 23:51:40.000001");
}

}  // namespace
}  // namespace trainready
