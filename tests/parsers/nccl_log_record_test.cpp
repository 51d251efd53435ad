#include "parsers/nccl_log_record.h"

#include <gtest/gtest.h>

namespace trainready {
namespace {

NcclRecord one(std::string_view line) {
  NcclRecord r[4];
  EXPECT_EQ(split_nccl_records(line, r, 4), 1u) << line;
  return r[0];
}

TEST(NcclLogRecord, BareLine) {
  NcclRecord r = one("r7i4n1:77231:77231 [0] NCCL INFO Using network IB");
  EXPECT_EQ(r.host, "r7i4n1");
  EXPECT_EQ(r.pid, 77231);
  EXPECT_EQ(r.dev, 0);
  EXPECT_EQ(r.level, NcclLevel::kInfo);
  EXPECT_EQ(r.message, "Using network IB");
}

TEST(NcclLogRecord, WarnWithSourceLocation) {
  NcclRecord r =
      one("node-2:5776:5902 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completion");
  EXPECT_EQ(r.host, "node-2");
  EXPECT_EQ(r.level, NcclLevel::kWarn);
  EXPECT_EQ(r.message, "NET/IB : Got completion");
}

TEST(NcclLogRecord, LauncherPrefixes) {
  for (const char* line :
       {"[rank3]: h1:10:11 [3] NCCL INFO x", "0: h1:10:11 [3] NCCL INFO x",
        "h1: h1:10:11 [3] NCCL INFO x", "[1,0]<stdout>:h1:10:11 [3] NCCL INFO x"}) {
    NcclRecord r = one(line);
    EXPECT_EQ(r.host, "h1") << line;
    EXPECT_EQ(r.dev, 3) << line;
    EXPECT_EQ(r.message, "x") << line;
  }
}

// Issue 19: "gpu;rm" was shown as "rm". The host is what the line prints, prefix or not.
TEST(NcclLogRecord, HostWithCharactersDnsDoesNotAllow) {
  for (const char* line :
       {"gpu;rm:7001:7001 [0] NCCL INFO x", "0: gpu;rm:7001:7001 [0] NCCL INFO x",
        "[1,0]<stdout>:gpu;rm:7001:7001 [0] NCCL INFO x"}) {
    NcclRecord r = one(line);
    EXPECT_EQ(r.host, "gpu;rm") << line;
    EXPECT_EQ(r.message, "x") << line;
  }
}

// A host redacted before pasting ("<cluster_name>:...", "[pod-name]:...", vllm#2734) is one host,
// named as written; mpirun's "<stdout>:" or torchrun's "[rank3]:" before a line without a host is
// not a host, nor is "<>", a number or a bracket with junk.
TEST(NcclLogRecord, RedactedHostPlaceholder) {
  for (const char* line : {"<cluster_name>:1234:1250 [0] NCCL INFO x",
                           "[1,0]<stdout>:<cluster_name>:1234:1250 [0] NCCL INFO x",
                           "0: <cluster_name>:1234:1250 [0] NCCL INFO x",
                           "[cluster_name]:1234:1250 [0] NCCL INFO x"}) {
    NcclRecord r = one(line);
    EXPECT_EQ(r.host.substr(1, 12), "cluster_name") << line;
    EXPECT_EQ(r.host.size(), 14u) << line;
    EXPECT_EQ(r.pid, 1234) << line;
    EXPECT_EQ(r.message, "x") << line;
  }
  for (const char* line : {"[1,0]<stdout>:1234:1250 [0] NCCL INFO x",
                           "<>:1234:1250 [0] NCCL INFO x", "<a;b>:1234:1250 [0] NCCL INFO x",
                           "[rank3]:1234:1250 [0] NCCL INFO x", "[12]:1234:1250 [0] NCCL INFO x"}) {
    NcclRecord r[4];
    const std::size_t n = split_nccl_records(line, r, 4);
    EXPECT_TRUE(n == 0 || (r[0].host.rfind('<', 0) != 0 && r[0].host.rfind('[', 0) != 0))
        << line << " -> " << r[0].host;
  }
}

TEST(NcclLogRecord, GluedRecordsAreSplit) {
  NcclRecord r[4];
  std::string_view line =
      "ljm:1:2 [1] NCCL INFO comm 0x9 rank 1 nranks ljm:3:4 [0] NCCL INFO comm 0x8 rank 0";
  ASSERT_EQ(split_nccl_records(line, r, 4), 2u);
  EXPECT_TRUE(r[0].cut);
  EXPECT_EQ(r[0].message, "comm 0x9 rank 1 nranks ");
  EXPECT_EQ(r[1].pid, 3);
  EXPECT_EQ(r[1].message, "comm 0x8 rank 0");
}

TEST(NcclLogRecord, GluedHostPrefix) {
  const std::set<std::string, std::less<>> known{"mew0", "ljm", "node-2"};
  EXPECT_EQ(glued_host_prefix("-1mew0", known), 2u);
  EXPECT_EQ(glued_host_prefix("80356ljm", known), 5u);
  EXPECT_EQ(glued_host_prefix("mew0", known), 0u);
  EXPECT_EQ(glued_host_prefix("x0mew0", known), 0u);  // not a digit tail: a different host
  EXPECT_EQ(glued_host_prefix("12345", known), 0u);
  // A record that cut another short (NcclRecord::after_record): any tail, the longest known host.
  EXPECT_EQ(glued_host_prefix("0x55cd375ljm", known, true), 9u);
  EXPECT_EQ(glued_host_prefix("lnode-2", known, true), 1u);
  EXPECT_EQ(glued_host_prefix("x0mew0", known, true), 2u);
  EXPECT_EQ(glued_host_prefix("ljm", known, true), 0u);
  EXPECT_EQ(glued_host_prefix("other", known, true), 0u);
}

// NCCL records glued by concurrent writers: the one that cut another short is marked.
TEST(NcclLogRecord, ARecordAfterAnotherIsMarked) {
  NcclRecord r[4];
  ASSERT_EQ(split_nccl_records("g183:1:2 [1] NCCL INFO ncclCommSplit comm 0x7f rank 1 parent "
                               "0x55cd375g183:3:4 [5] NCCL INFO threadThresholds 8",
                               r, 4),
            2u);
  EXPECT_FALSE(r[0].after_record);
  EXPECT_TRUE(r[1].after_record);
  EXPECT_EQ(r[1].host, "0x55cd375g183");  // the splitter keeps it; the reader undoes the tail
}

// "[0] NCCL INFO y" and "h:1 [0] NCCL INFO y" were here: since issue 30 a record whose
// host:pid:tid was cut off is read without a host (nccl_line_prefix_test.cpp).
TEST(NcclLogRecord, NotNcclLines) {
  NcclRecord r[2];
  for (const char* line : {"", "NCCL version 2.7.8+cuda10.2", "x NCCL INFO y",
                           "h:1:2 [0] NCCL DEBUG y", " NCCL ", "]] NCCL WARN"}) {
    EXPECT_EQ(split_nccl_records(line, r, 2), 0u) << line;
  }
}

// NCCL 2.0 - 2.2 wrote no "NCCL" tag: the level word is looked for in the first 512 bytes only,
// the first " INFO " / " WARN " there (not a later one, not one without its blanks).
TEST(NcclLogRecord, UntaggedLevelWithinTheFirst512Bytes) {
  NcclRecord r[2];
  const std::string head = " h1:10:11 [3] INFO ready";  // " INFO " at pad + 13
  EXPECT_EQ(split_nccl_records(std::string(498, 'x') + head, r, 2), 1u);
  EXPECT_EQ(r[0].host, "h1");
  EXPECT_EQ(r[0].message, "ready");
  EXPECT_EQ(split_nccl_records(std::string(499, 'x') + head, r, 2), 0u);
  EXPECT_EQ(split_nccl_records("a  INFOx INFO h1:10:11 [3] INFO ready", r, 2), 0u);
  EXPECT_EQ(split_nccl_records("INFO  h1:10:11 [3] INFO ready", r, 2), 1u);
  EXPECT_EQ(r[0].message, "ready");
}

// A connection line quoted without its "NCCL INFO Channel 00/0 : " head (NVIDIA/nccl#897) is an
// INFO record with no head; text that only looks a little like one is not.
TEST(NcclLogRecord, ConnectionLineBodyWithoutItsHead) {
  NcclRecord r = one("9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA");
  EXPECT_EQ(r.level, NcclLevel::kInfo);
  EXPECT_EQ(r.host, "");
  EXPECT_EQ(r.message, "9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA");
  EXPECT_EQ(one("0[0] -> 1[1] via P2P/IPC").message, "0[0] -> 1[1] via P2P/IPC");
  NcclRecord x[2];
  for (const char* garbage :
       {"9[1a000] -> 2[6b000] [send] via ", "9[1a000] -> 2[6b000]", "9[xyz] -> 2[6b000] via NET/IB",
        "9[1a000] => 2[6b000] via NET/IB", "9 -> 2 via NET/IB", "[1a000] -> 2[6b000] via NET/IB",
        "9[1a000] -> 2[6b000] [sent] via NET/IB", "9[] -> 2[6b000] via NET/IB"})
    EXPECT_EQ(split_nccl_records(garbage, x, 2), 0u) << garbage;
}

}  // namespace
}  // namespace trainready
