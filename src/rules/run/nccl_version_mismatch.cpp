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
    if (f.versions.size() < 2 && !i) {
      if (f.versions.empty()) return RuleOutcome::skip("the log does not print the NCCL version");
      return {};
    }
    RuleOutcome o;
    std::set<std::string> vs;
    for (const auto& [v, l] : f.versions) vs.insert(v);
    Finding x = finding(vs.size() > 1 ? "The log shows NCCL versions " + join_limited(vs) +
                                            ": every rank must load the same NCCL"
                                      : "NCCL reports mismatched versions between ranks");
    for (const auto& [v, l] : f.versions) {
      auto h = f.version_hosts.find(v);
      Evidence e = evidence(l);
      if (h != f.version_hosts.end()) e.text += "  [hosts: " + join_limited(h->second) + "]";
      x.evidence.push_back(e);
    }
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
