// stage-source-empty: a copy that listed no file at all. An empty directory, a mistyped Blob
// prefix (the listing of a prefix nothing is under is empty, not an error) or a mount that is not
// mounted yet all end as a "complete" copy of nothing, which a job then trains on.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class StageSourceEmpty : public Rule {
 public:
  std::string_view id() const override { return "stage-source-empty"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The source listed no file"; }
  RuleScope scope() const override { return RuleScope::kStage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StageFacts& s = *ctx.stage;
    if (s.mode != "copy") return RuleOutcome::does_not_apply("not a copy (" + s.mode + ")");
    // A run that stopped (a listing that failed) is stage-incomplete's.
    if (s.aborted) return RuleOutcome::does_not_apply("the run stopped before the end");
    if (s.files_listed != 0) return {};
    Finding f = finding("nothing was listed at " + s.source + ": 0 files, nothing staged");
    f.evidence.push_back({"listed 0 files, 0 bytes", {s.source, 0}});
    f.cause =
        "The source holds no regular file: an empty directory, a Blob prefix nothing is under (a "
        "typo: a prefix is matched as is, and an unknown one lists nothing rather than failing), "
        "a mount point whose file system is not mounted, or only links and special files (named "
        "by stage-incomplete).";
    f.fix =
        "Check SRC: list it (`ls SRC`, `az storage blob list --prefix`), mount it, or correct the "
        "prefix, then run the same command again.";
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_stage_source_empty() { return std::make_unique<StageSourceEmpty>(); }

}  // namespace trainready
