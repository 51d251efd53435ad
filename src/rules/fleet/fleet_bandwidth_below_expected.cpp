// fleet-bandwidth-below-expected: the typical pair of nodes is short of what a rail of this VM
// size should carry: not one node or link, the whole fleet (or its configuration).
#include "rules/fleet/pair_matrix_view.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetBandwidthBelowExpected : public Rule {
 public:
  std::string_view id() const override { return "fleet-bandwidth-below-expected"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Pairs of nodes below what the VM size should reach";
  }
  RuleScope scope() const override { return RuleScope::kPairs; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const PairBandwidthFacts& f = *ctx.pairs;
    if (!f.expected_gbytes_per_s)
      return RuleOutcome::does_not_apply("no expected per-pair figure: " + f.expected_why_unknown);
    const auto judged = judged_matrices(f);
    if (judged.empty()) return RuleOutcome::skip("no pair was measured");
    const double expected = *f.expected_gbytes_per_s;
    const PairOutlierOptions defaults;
    RuleOutcome o;
    for (const JudgedMatrix& j : judged) {
      const double median = j.c.cell_median > 0 ? j.c.cell_median : j.c.node_median;
      if (median >= expected * defaults.expected_fraction) continue;
      Finding x =
          finding("median pair bandwidth" + rail_suffix(f, *j.matrix) + " " + gbps(median) +
                  " is " + ratio_text(median, expected) + " the " + gbps(expected) + " expected");
      x.evidence.push_back({"measured: " + matrix_provenance(f, *j.matrix), {}});
      x.evidence.push_back({"expected: " + f.expected_formula, {}});
      x.cause =
          "Most pairs are slow, not one node or link: the traffic is not on InfiniBand with "
          "GPUDirect RDMA (NCCL_IB_DISABLE, a socket fallback, or no GPUDirect RDMA path: "
          "neither nvidia-peermem nor DMA-BUF; see gpudirect-rdma-disabled), the ranks are not "
          "one per GPU with its own HCA, or the fabric is congested by other jobs.";
      x.fix =
          "Run `trainready doctor` on a node and read a NCCL_DEBUG=INFO log with `trainready "
          "nccl` (NET/IB with GDRDMA on every channel); rerun when the fabric is quiet.";
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_bandwidth_below_expected() {
  return std::make_unique<FleetBandwidthBelowExpected>();
}

}  // namespace trainready
