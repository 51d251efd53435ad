// stage-source-changed: source files whose size, mtime or ETag differ from the manifest (or
// changed while they were read), and files of the manifest gone from the source. The copy never
// mixes versions: a changed file is copied again whole, under its new version.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class StageSourceChanged : public Rule {
 public:
  std::string_view id() const override { return "stage-source-changed"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The source changed while it was staged"; }
  RuleScope scope() const override { return RuleScope::kStage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StageFacts& s = *ctx.stage;
    if (s.mode != "copy") return RuleOutcome::does_not_apply("not a copy (" + s.mode + ")");
    if (s.changed.empty()) return {};
    Finding f = finding(std::to_string(s.changed.size()) + " source file" +
                        (s.changed.size() == 1 ? "" : "s") +
                        " changed or vanished since the manifest was written");
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < s.changed.size() && i < kShown; ++i)
      f.evidence.push_back({s.changed[i].message, {s.source, 0}});
    if (s.changed.size() > kShown)
      f.evidence.push_back({"and " + std::to_string(s.changed.size() - kShown) + " more", {}});
    f.cause =
        "Something wrote to the dataset while it was being staged (or between a killed run and "
        "its resume). A file changed since the manifest was copied again whole under its new "
        "version; one that changed while it was read was not staged and is also named by "
        "stage-incomplete; one gone from the source was left at DST as it was.";
    f.fix =
        "Stage from a dataset nobody writes to (a snapshot, a finished export), or run the same "
        "command again once the writer is done: it copies the changed files.";
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_stage_source_changed() { return std::make_unique<StageSourceChanged>(); }

}  // namespace trainready
