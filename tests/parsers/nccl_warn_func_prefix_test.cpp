// NCCL 2.30.7 names the function in its WARN prefix (src/debug.cc: "[%d] %s:%d (%s) NCCL WARN"):
// the record is still NCCL's, with its host, process and device.
#include <gtest/gtest.h>

#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

TEST(NcclWarnFuncPrefix, A2307WarnKeepsItsHost) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "[2026-01-02 10:11:12] gpu-node-1:4242:4250 [3] misc/socket.cc:710 (ncclSocketInit) NCCL "
      "WARN Bootstrap : no socket interface found\n",
      "w.log");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Bootstrap : no socket interface found");
  EXPECT_EQ(f.warnings[0].hosts.count("gpu-node-1"), 1u);
  EXPECT_EQ(f.streams.size(), 1u);
}

}  // namespace
}  // namespace trainready::test
