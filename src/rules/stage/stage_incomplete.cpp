// stage-incomplete: files the stage could not put at DST whole (permission denied, vanished,
// unreadable, a name that would leave DST, a content MD5 that differs from the source's), or a
// run that stopped (DST full). Each named with its path.
#include "core/units.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class StageIncomplete : public Rule {
 public:
  std::string_view id() const override { return "stage-incomplete"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Files of the dataset were not staged"; }
  RuleScope scope() const override { return RuleScope::kStage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StageFacts& s = *ctx.stage;
    if (s.mode == "verify") return RuleOutcome::does_not_apply("a --verify run");
    if (s.failed.empty() && !s.aborted) return {};
    Finding f = finding(s.aborted ? "the stage stopped before the end: " + s.abort_reason
                                  : std::to_string(s.failed.size()) + " file" +
                                        (s.failed.size() == 1 ? "" : "s") + " of " +
                                        std::to_string(s.files_listed) + " not staged");
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < s.failed.size() && i < kShown; ++i)
      f.evidence.push_back({s.failed[i].kind + ": " + s.failed[i].message, {s.source, 0}});
    if (s.failed.size() > kShown)
      f.evidence.push_back({"and " + std::to_string(s.failed.size() - kShown) + " more", {}});
    f.cause =
        "A file could not be read (permission denied, removed since it was listed, an I/O "
        "error), its content did not match the MD5 the source publishes, or the destination "
        "could not take it (full, read-only). Nothing is left at a final name that is not whole: "
        "unfinished files are under DST/.trainready-stage/parts and resume from there.";
    f.fix =
        "Fix the cause named for each path (read permission, space on DST), then run the same "
        "command again: it copies only what is missing and re-hashes the chunks already there.";
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_stage_incomplete() { return std::make_unique<StageIncomplete>(); }

}  // namespace trainready
