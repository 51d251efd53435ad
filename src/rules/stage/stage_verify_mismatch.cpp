// stage-verify-mismatch: `stage --verify` re-read the destination past the page cache and a file
// is missing, of another size, or hashes other than when it was written.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class StageVerifyMismatch : public Rule {
 public:
  std::string_view id() const override { return "stage-verify-mismatch"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "The staged copy is not what was written"; }
  RuleScope scope() const override { return RuleScope::kStage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StageFacts& s = *ctx.stage;
    if (s.mode != "verify") return RuleOutcome::does_not_apply("not a --verify run");
    if (s.failed.empty()) return {};
    Finding f = finding(std::to_string(s.failed.size()) + " of " + std::to_string(s.files_listed) +
                        " files in the manifest differ from " + "what was written, or are missing");
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < s.failed.size() && i < kShown; ++i)
      f.evidence.push_back({s.failed[i].kind + ": " + s.failed[i].message, {s.journal, 0}});
    if (s.failed.size() > kShown)
      f.evidence.push_back({"and " + std::to_string(s.failed.size() - kShown) + " more", {}});
    f.cause =
        "Something changed the files at the destination after they were staged (a job writing "
        "into the dataset, a cleanup), the stage did not finish, or the storage returned other "
        "bytes than were written (a failing disk).";
    f.fix =
        "Run the stage again (it copies files whose copy is gone or changed); if a file hashes "
        "differently right after a clean stage, check the device (SMART, dmesg) before training "
        "on it.";
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_stage_verify_mismatch() {
  return std::make_unique<StageVerifyMismatch>();
}

}  // namespace trainready
