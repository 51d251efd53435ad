// stage-incomplete, stage-source-changed, stage-verify-mismatch: each fires on its facts and
// stays quiet on a clean stage.
#include <gtest/gtest.h>

#include "rules/registry.h"

namespace trainready {
namespace {

RuleOutcome judge(const std::string& id, const StageFacts& s) {
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.stage = &s;
  return find_rule(id)->evaluate(ctx);
}

StageFacts clean_copy() {
  StageFacts s;
  s.source = "/mnt/blobfuse/train";
  s.destination = "/mnt/nvme/train";
  s.files_listed = s.files_copied = 3;
  return s;
}

TEST(StageIncomplete, FiresNamingEachPath) {
  StageFacts s = clean_copy();
  s.failed.push_back({"a/b.bin", "permission", "cannot open a/b.bin: Permission denied"});
  s.failed.push_back({"c.bin", "vanished", "cannot open c.bin: No such file or directory"});
  RuleOutcome o = judge("stage-incomplete", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message, "2 files of 3 not staged");
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[0].text, "permission: cannot open a/b.bin: Permission denied");
}

TEST(StageIncomplete, FiresOnAFullDestination) {
  StageFacts s = clean_copy();
  s.aborted = true;
  s.abort_reason = "cannot write x.part: No space left on device";
  RuleOutcome o = judge("stage-incomplete", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("No space left on device"), std::string::npos);
}

TEST(StageIncomplete, QuietOnACleanCopy) {
  EXPECT_TRUE(judge("stage-incomplete", clean_copy()).findings.empty());
}

TEST(StageSourceChanged, FiresAndStaysQuiet) {
  StageFacts s = clean_copy();
  EXPECT_TRUE(judge("stage-source-changed", s).findings.empty());
  s.changed.push_back({"x.bin", "changed", "x.bin: changed since the manifest (size 1 -> 2)"});
  RuleOutcome o = judge("stage-source-changed", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].text, "x.bin: changed since the manifest (size 1 -> 2)");
}

TEST(StageVerifyMismatch, FiresOnlyOnVerify) {
  StageFacts s = clean_copy();
  s.failed.push_back({"x.bin", "hash-mismatch", "x.bin: chunk 0 hashes 1, written as 2"});
  EXPECT_FALSE(judge("stage-verify-mismatch", s).not_applicable.empty());
  s.mode = "verify";
  RuleOutcome o = judge("stage-verify-mismatch", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("x.bin: chunk 0"), std::string::npos);
  s.failed.clear();
  EXPECT_TRUE(judge("stage-verify-mismatch", s).findings.empty());
}

}  // namespace
}  // namespace trainready
