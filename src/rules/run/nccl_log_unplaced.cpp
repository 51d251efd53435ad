// nccl-log-unplaced: the input names NCCL or nccl-tests, but holds nothing this tool can read.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclLogUnplaced : public Rule {
 public:
  std::string_view id() const override { return "nccl-log-unplaced"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override {
    return "The input names NCCL but holds no output of NCCL this tool can read";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // The reader lists mentions only when nothing else in the input could be read: a log it
    // reads passes (a skip would be listed under "Not checked" on every log).
    if (f.mentions.empty()) return {};
    RuleOutcome o;
    std::string only;
    for (const auto& [v, l] : f.versions) only += (only.empty() ? "" : ", ") + v;
    for (const auto& [v, l] : f.rccl_versions) only += (only.empty() ? "RCCL " : ", RCCL ") + v;
    Finding x = finding(
        only.empty()
            ? "No NCCL output here: " + std::to_string(f.mention_lines) +
                  " line(s) name NCCL or nccl-tests, but none is a line NCCL, CUDA, the verbs "
                  "library, nccl-tests or a training framework prints in a form this tool reads, "
                  "so no cause can be named from it"
            : "Nothing of NCCL's here but its version (" + only + "): of the " +
                  std::to_string(f.mention_lines) +
                  " line(s) that name NCCL or nccl-tests, none is an error, a warning or another "
                  "line NCCL prints, so no cause can be named from them");
    for (const LogLine& l : f.mentions) x.evidence.push_back(evidence(l));
    x.cause =
        "The input is a description, a title, a command line, another tool's verdict or a "
        "fragment: it does not hold the run's own output.";
    x.fix =
        "Capture the failing run again with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET for "
        "init and network failures) and NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log (one file per "
        "rank); keep the framework's full traceback and nccl-tests' whole output, and give "
        "those files.";
    x.rank = 1;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_log_unplaced() { return std::make_unique<NcclLogUnplaced>(); }

}  // namespace trainready
