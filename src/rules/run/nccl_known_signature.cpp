// nccl-known-signature: a decisive line whose reading a thread or NCCL's documentation settled
// (data/nccl-kb/signatures.yaml), or CUDA / libc text NCCL passes through
// (data/nccl-kb/passthrough.yaml): each names its cause, fix and source. Read with the rest of
// the knowledge base (src/knowledge), ranked in the same list as nccl-message.
#include <algorithm>

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
    const std::vector<NcclKbFinding> ranked = nccl_kb_ranked(readings);
    // The WARN where the failure started, read by an entry of nccl-message, its thread's record
    // just before the trail (NcclRunFacts::first_error_after_warn): the trail after it is that
    // failure's path, so a signature of the trail whose own context decided nothing (its
    // fall-through cause) ranks below that WARN's reading (a bootstrap trail after "Message
    // truncated" is the truncated message's, not a network's). One its places decided (the
    // trail passes socketFinalizeAccept's magic receive) keeps its rank: the places say more
    // than the WARN.
    int started = -1;
    for (const NcclKbFinding& k : ranked)
      if (k.reading->starts_failure && !nccl_kb_is_signature(*k.reading->entry) &&
          nccl_kb_severity(*k.reading) == Severity::kError) {
        started = nccl_message_rank(k.rank);
        break;
      }
    for (const NcclKbFinding& k : ranked) {
      if (!nccl_kb_is_signature(*k.reading->entry)) continue;
      if (nccl_kb_reading_unreported(*k.reading, f)) continue;
      Finding x = finding("");
      fill_nccl_kb_finding(x, k, f);
      if (started >= 0 && f.first_error_after_warn &&
          k.reading->entry->kind == NcclKbKind::kTrail && x.general_fix)
        x.rank = std::min(x.rank, std::max(0, started - 1));
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_known_signature() { return std::make_unique<NcclKnownSignature>(); }

}  // namespace trainready
