// nccl-known-signature: a decisive line whose reading a thread or NCCL's documentation settled
// (data/nccl-kb/signatures.yaml), or CUDA / libc text NCCL passes through
// (data/nccl-kb/passthrough.yaml): each names its cause, fix and source. Read with the rest of
// the knowledge base (src/knowledge), ranked in the same list as nccl-message.
#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/nccl_kb_finding.h"

namespace trainready {
namespace {

class NcclKnownSignature : public Rule {
 public:
  std::string_view id() const override { return "nccl-known-signature"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A log line with a known cause (NCCL signature table)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto readings = read_nccl_messages(f, NcclKnowledgeBase::builtin());
    RuleOutcome o;
    for (const NcclKbFinding& k : nccl_kb_ranked(readings)) {
      if (!nccl_kb_is_signature(*k.reading->entry)) continue;
      Finding x = finding("");
      fill_nccl_kb_finding(x, k, f);
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_known_signature() { return std::make_unique<NcclKnownSignature>(); }

}  // namespace trainready
