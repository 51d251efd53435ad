// nccl-version-mismatch: ranks of one job run different NCCL versions.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclVersionMismatch : public Rule {
 public:
  std::string_view id() const override { return "nccl-version-mismatch"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Ranks run different NCCL versions"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const NcclIssue* i = find_issue(f, NcclProblem::kVersionMismatch);
    // RCCL (AMD's fork) prints its own version line; ranks on different RCCL releases, or some
    // on NCCL and some on RCCL, are the same mistake.
    const std::size_t printed = f.versions.size() + f.rccl_versions.size();
    if (printed < 2 && !i) {
      if (printed == 0) return RuleOutcome::skip("the log does not print the NCCL version");
      return {};
    }
    RuleOutcome o;
    std::set<std::string> vs;
    const bool rccl = !f.rccl_versions.empty();
    const std::string nccl_label = rccl ? "NCCL " : "";
    for (const auto& [v, l] : f.versions) vs.insert(nccl_label + v);
    for (const auto& [v, l] : f.rccl_versions) vs.insert("RCCL " + v);
    const std::string lib = f.versions.empty() ? "RCCL" : "NCCL";
    Finding x = finding(vs.size() > 1 ? (rccl ? "The log shows " + join_limited(vs) +
                                                    ": every rank must load the same " + lib
                                              : "The log shows NCCL versions " + join_limited(vs) +
                                                    ": every rank must load the same NCCL")
                                      : "NCCL reports mismatched versions between ranks");
    for (const auto& [v, l] : f.versions) {
      auto h = f.version_hosts.find(v);
      Evidence e = evidence(l);
      if (h != f.version_hosts.end()) e.text += "  [hosts: " + join_limited(h->second) + "]";
      x.evidence.push_back(e);
    }
    for (const auto& [v, l] : f.rccl_versions) x.evidence.push_back(evidence(l));
    if (i) add_issue_evidence(x, *i);
    x.cause =
        "Nodes with different images or containers, or a framework wheel that bundles its "
        "own NCCL on some nodes. Different versions may use different protocols and "
        "hang or corrupt data.";
    x.fix =
        "Use one image / container for every node and check `python -c \"import torch; "
        "print(torch.cuda.nccl.version())\"` (or LD_DEBUG=libs) on each.";
    x.subsumes = {"cluster-version-mismatch"};
    x.rank = 96;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_version_mismatch() {
  return std::make_unique<NcclVersionMismatch>();
}

}  // namespace trainready
