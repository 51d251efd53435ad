// nccl-warnings: NCCL WARN lines and CUDA / internal errors no other rule explains.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclWarnings : public Rule {
 public:
  std::string_view id() const override { return "nccl-warnings"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Other NCCL warnings and errors"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    RuleOutcome o;
    struct Kind {
      NcclProblem p;
      const char* what;
      Severity sev;
      const char* cause;
      const char* fix;
    };
    static const Kind kinds[] = {
        {NcclProblem::kCudaError, "CUDA error(s) inside NCCL", Severity::kError,
         "A CUDA call failed inside NCCL: out of memory, an Xid / GPU fault, or a driver and "
         "CUDA runtime that do not match.",
         "Check `dmesg` for Xid errors and `nvidia-smi` on the host; run `trainready doctor`."},
        {NcclProblem::kInternalError, "NCCL internal error / invalid usage", Severity::kError,
         "NCCL rejected a call: mismatched collectives or arguments between ranks, or a bug.",
         "Check that every rank issues the same collectives with the same sizes; update NCCL."},
        {NcclProblem::kOtherWarning, "NCCL warning(s)", Severity::kWarning,
         "NCCL printed WARN lines that no other rule explains; they often precede a failure.",
         "Read the quoted lines; the first WARN in time is usually the cause."},
    };
    for (const Kind& k : kinds) {
      const NcclIssue* i = find_issue(f, k.p);
      if (!i) continue;
      Finding x = finding(std::string(k.what) + ": " + std::to_string(i->count) + " line(s)");
      x.severity = k.sev;
      add_issue_evidence(x, *i);
      x.cause = k.cause;
      x.fix = k.fix;
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_warnings() { return std::make_unique<NcclWarnings>(); }

}  // namespace trainready
