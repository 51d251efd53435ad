// nccl-tests-wrong-results: nccl-tests found wrong values (#wrong > 0, out-of-bounds values).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

constexpr double kMaxErrorLimit = 1e-3;  // old "error" column: max relative error

class NcclTestsWrongResults : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-wrong-results"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "nccl-tests found wrong results"; }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    std::vector<const NcclTestsRow*> bad;
    bool checked = false;
    for (const auto& r : t.rows) {
      for (const auto& w : {r.oop_wrong, r.ip_wrong}) {
        if (!w) continue;
        checked = true;
        const double limit = r.error_is_max_error ? kMaxErrorLimit : 0.0;
        if (*w > limit) {
          bad.push_back(&r);
          break;
        }
      }
    }
    const bool oob = t.out_of_bounds && *t.out_of_bounds > 0;
    if (bad.empty() && !oob) {
      if (!checked && !t.out_of_bounds)
        return RuleOutcome::skip("the run did not check results (validation off: -c 0, N/A)");
      return {};
    }
    RuleOutcome o;
    Finding x = finding(bad.empty() ? "nccl-tests reported out-of-bounds values"
                                    : std::to_string(bad.size()) +
                                          " message size(s) produced wrong results");
    for (std::size_t i = 0; i < bad.size() && i < 5; ++i) {
      const NcclTestsRow& r = *bad[i];
      std::string w = r.oop_wrong ? std::to_string(*r.oop_wrong) : "N/A";
      std::string v = r.ip_wrong ? std::to_string(*r.ip_wrong) : "N/A";
      x.evidence.push_back({std::to_string(r.size_bytes) + " B: " +
                                (r.error_is_max_error ? "error " : "#wrong ") + w + " / " + v,
                            r.where});
    }
    if (oob)
      x.evidence.push_back(
          {"Out of bounds values : " + std::to_string(*t.out_of_bounds), t.out_of_bounds_where});
    x.cause =
        "Data arrived corrupted: a faulty GPU or NVLink (ECC / Xid errors), a bad HCA or "
        "cable, or mismatched NCCL builds between ranks. Bandwidth numbers from this run "
        "mean nothing.";
    x.fix =
        "Run `trainready doctor` on each node (GPU memory errors, link state); bisect the "
        "ranks (single node, then pairs) to find the node that corrupts data and drain it.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_wrong_results() {
  return std::make_unique<NcclTestsWrongResults>();
}

}  // namespace trainready
