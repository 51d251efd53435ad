// nccl-message: the reading of each NCCL message the knowledge base (data/nccl-kb/*.yaml)
// explains, from NCCL's own source: what failed, the cause whose context holds, the fix and the
// experiment that confirms it. The migrated signature table and CUDA / libc text NCCL passes
// through are read by nccl-known-signature from the same data.
#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/nccl_kb_finding.h"

namespace trainready {
namespace {

// A warning printed before the first error trail began (or in another file than the trail): the
// WARN where the failure started, which the trail follows.
bool warn_before_trail(const NcclRunFacts& f) {
  if (!f.first_error_return) return !f.warnings.empty();
  const Provenance& trail = f.first_error_return->where;
  for (const NcclWarning& w : f.warnings)
    if (!(w.first.where.source == trail.source) || w.first.where.line < trail.line) return true;
  return false;
}

class NcclMessage : public Rule {
 public:
  std::string_view id() const override { return "nccl-message"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A NCCL message the knowledge base explains (from NCCL's source)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto readings = read_nccl_messages(f, NcclKnowledgeBase::builtin());
    RuleOutcome o;
    for (const NcclKbFinding& k : nccl_kb_ranked(readings)) {
      const NcclKbEntry& e = *k.reading->entry;
      if (nccl_kb_is_signature(e)) continue;
      if (nccl_kb_reading_unreported(*k.reading, f)) continue;
      // A generic "-> code" trail follows the WARN NCCL printed where the failure started: the
      // WARN (its reading, or the rule that explains it) is the finding, the trail adds nothing.
      // Lines pasted below the trail (a framework's "ncclInternalError: Internal check failed."
      // read as a headless warning, vllm-project/vllm#10453) are no such WARN.
      if (e.kind == NcclKbKind::kTrail && e.file == "trail.yaml" && warn_before_trail(f)) continue;
      if (o.findings.size() == 6) break;  // the rest follow from these, or are listed by them
      Finding x = finding("");
      fill_nccl_kb_finding(x, k, f);
      x.rank = nccl_message_rank(x.rank);
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_message() { return std::make_unique<NcclMessage>(); }

}  // namespace trainready
