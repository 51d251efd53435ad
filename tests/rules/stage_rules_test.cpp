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
  EXPECT_EQ(o.findings[0].message, "2 of 3 listed files not staged");
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[0].text, "permission: cannot open a/b.bin: Permission denied");
}

TEST(StageIncomplete, CountsListedFilesApartFromItemsTheListingLeftOut) {
  // Issue 29 (D27): "13 files of 18 not staged" with 18 listed and 15 copied, "1 file of 0".
  StageFacts s = clean_copy();
  s.files_listed = 18;
  s.files_copied = 15;
  s.failed.push_back({"a.bin", "changed", "a.bin: changed since it was listed"});
  s.failed.push_back({"b.bin", "md5-mismatch", "b.bin: content MD5 differs"});
  s.failed.push_back({"c.bin", "vanished", "c.bin: gone"});
  for (int i = 0; i < 3; ++i)
    s.failed.push_back(
        {"l" + std::to_string(i), "symlink", "a symbolic link, not followed", false});
  s.failed.push_back({"../x", "name", "'../x': not a relative path", false});
  s.failed.push_back({"locked", "permission", "cannot open directory locked", false});
  RuleOutcome o = judge("stage-incomplete", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message,
            "3 of 18 listed files not staged; 5 items left out while listing, not staged (1 name "
            "that cannot be a path below DST, 3 links not followed, 1 entry that could not be "
            "listed)");
  EXPECT_NE(o.findings[0].fix.find("--follow-symlinks"), std::string::npos);
  // Only left-out items, nothing listed: no "1 file of 0".
  StageFacts empty = clean_copy();
  empty.files_listed = empty.files_copied = 0;
  empty.failed.push_back({"model.safetensors", "symlink", "a link into blobs/", false});
  o = judge("stage-incomplete", empty);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message,
            "1 item left out while listing, not staged (1 link not followed)");
}

TEST(StageIncomplete, FiresOnAFileChangedDuringTheCopy) {
  StageFacts s = clean_copy();
  s.failed.push_back({"big", "changed", "big: changed since it was listed (size 1 -> 2)"});
  s.changed.push_back(s.failed.back());
  RuleOutcome o = judge("stage-incomplete", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message, "1 of 3 listed files not staged");
  EXPECT_EQ(o.findings[0].fix.find("--follow-symlinks"), std::string::npos);
}

TEST(StageSourceEmpty, FiresOnNothingListedAndStaysQuiet) {
  StageFacts s = clean_copy();
  EXPECT_TRUE(judge("stage-source-empty", s).findings.empty());
  s.files_listed = s.files_copied = 0;
  RuleOutcome o = judge("stage-source-empty", s);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("nothing was listed at /mnt/blobfuse/train"),
            std::string::npos);
  s.aborted = true;  // a listing that failed is stage-incomplete's
  EXPECT_FALSE(judge("stage-source-empty", s).not_applicable.empty());
  s.aborted = false;
  s.mode = "verify";
  EXPECT_FALSE(judge("stage-source-empty", s).not_applicable.empty());
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
