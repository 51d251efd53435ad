// nccl-tests-busbw-drop: bandwidth collapses at the largest sizes after a good plateau.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

constexpr double kDropBelow = 0.70;  // largest-size busbw under 70% of the peak

class NcclTestsBusbwDrop : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-busbw-drop"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "Bus bandwidth drops at the largest message sizes";
  }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    const NcclTestsRow* big = t.largest();
    if (!big) return RuleOutcome::skip("the table has no busbw values");
    const NcclTestsRow* peak = nullptr;
    for (const auto& r : t.rows) {
      if (r.busbw() && (!peak || *r.busbw() > *peak->busbw())) peak = &r;
    }
    if (!peak) return {};
    const double last = *big->busbw();
    if (peak == big || *peak->busbw() <= 0 || last >= kDropBelow * *peak->busbw()) return {};
    RuleOutcome o;
    Finding x = finding("busbw falls from " + gbytes(*peak->busbw()) + " at " +
                        std::to_string(peak->size_bytes) + " B to " + gbytes(last) + " at " +
                        std::to_string(big->size_bytes) + " B");
    x.evidence.push_back({"peak " + gbytes(*peak->busbw()), peak->where});
    x.evidence.push_back({"largest size " + gbytes(last), big->where});
    x.cause =
        "Large messages take a slower path: GPUDirect RDMA given up for big buffers "
        "(NCCL_NET_GDR_LEVEL / NCCL_NET_GDR_READ not the same on every node), host "
        "memory pressure, or registration limits (RLIMIT_MEMLOCK).";
    x.fix =
        "Pass the same NCCL_* variables to every rank (mpirun -x, srun --export), check "
        "`ulimit -l`, and compare the NCCL log at small and large sizes.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_busbw_drop() {
  return std::make_unique<NcclTestsBusbwDrop>();
}

}  // namespace trainready
