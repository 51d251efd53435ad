// nccl-system-error: "unhandled system error" / ncclSystemError.
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "rules/rule_factories.h"
#include "rules/run/nccl_result_reading.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclSystemError : public Rule {
 public:
  std::string_view id() const override { return "nccl-system-error"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "NCCL failed with an unhandled system error"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const NcclIssue* i = find_issue(f, NcclProblem::kSystemError);
    if (!i) return {};
    RuleOutcome o;
    Finding x = finding(
        "NCCL stopped with an unhandled system error (ncclSystemError): a "
        "system call failed (socket, memory registration, shared memory)");
    add_issue_evidence(x, *i);
    x.cause =
        "NCCL returns ncclSystemError when a system call or an external library call fails "
        "(shared memory, sockets, memory registration, a file it was told to read); the WARN "
        "line NCCL prints just before names the call, and without NCCL_DEBUG=INFO it is not "
        "in the log.";
    x.fix =
        "Rerun with NCCL_DEBUG=INFO to see the WARN line that names the call, then run "
        "`trainready nccl` on that log.";
    x.rank = 40;
    // The call that failed is named by the WARN NCCL printed before returning the error: when
    // the knowledge base reads an error WARN, that reading is the cause and this is its
    // consequence, listed after it; the ranked list of possible causes would only contradict it.
    const NcclMessageReading* named = nullptr;
    const auto readings = read_nccl_messages(f, NcclKnowledgeBase::builtin());
    // A framework's line that quotes NCCL's last WARN (PyTorch's "Last error:", from
    // ncclGetLastError) is read by a WARN entry too and names the call as well; a library's own
    // line (libibverbs, libfabric, UCX) is not NCCL's WARN.
    for (const NcclMessageReading& r : readings)
      if ((r.line.level == NcclKbLevel::kWarn ||
           (r.line.level == NcclKbLevel::kAny && r.line.library.empty() &&
            r.entry->level == NcclKbLevel::kWarn)) &&
          nccl_kb_severity(r) == Severity::kError) {
        named = &r;
        break;
      }
    // A call that failed without a WARN of its own is named by the place its error trail starts
    // (the knowledge base's trail_call): a reading whose cause that call decided is the cause.
    const NcclMessageReading* traced = nullptr;
    if (!named)
      for (const NcclMessageReading& r : readings)
        if (r.call.known() && !r.call.callee.empty() && r.cause_seen && r.cause->when.trail_call &&
            nccl_kb_severity(r) == Severity::kError) {
          traced = &r;
          break;
        }
    if (named) {
      x.cause = "The WARN \"" + named->line.message + "\" names the failing call (" +
                named->entry->id +
                ", its own finding): NCCL returned ncclSystemError after it, so that reading is "
                "the cause and this error its consequence.";
      x.fix = "Act on the reading of that WARN (" + named->entry->id + ").";
      x.rank = 4;
    } else if (traced) {
      x.cause = "The error trail starts where NCCL checks " + traced->call.callee + "() (" +
                traced->call.place +
                "), which failed without a WARN of its own; the reading of that trail (" +
                traced->entry->id +
                ", its own finding) names the cause, and this error is its consequence.";
      x.fix = "Act on the reading of that trail (" + traced->entry->id + ").";
      x.rank = 4;
    } else {
      nccl_result_ranked_reading(x, f, "ncclSystemError");
    }
    if (find_issue(f, NcclProblem::kConnectionFailed))
      x.cause += " This log also shows failed connections (see nccl-connection-failed).";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_system_error() { return std::make_unique<NcclSystemError>(); }

}  // namespace trainready
