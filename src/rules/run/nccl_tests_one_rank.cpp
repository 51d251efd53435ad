// nccl-tests-one-rank: the run had one rank, so its bus bandwidth is 0 by definition: busbw =
// algbw x 2(n-1)/n for all_reduce and x (n-1)/n for all_gather, reduce_scatter and alltoall
// (nccl-tests doc/PERFORMANCE.md), and no byte crossed a link. The question behind nccl-tests
// issues titled "Avg bus bandwidth = 0" (NVIDIA/nccl-tests#249: one A10G).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclTestsOneRank : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-one-rank"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override {
    return "One rank: nccl-tests' bus bandwidth is 0 by definition";
  }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    // Several processes that each ran alone are nccl-tests-separate-jobs' reading.
    if (t.devices.empty() || t.ranks() != 1 || t.runs_printed() > 1) return {};
    // The collective's factor at one rank, or, where the output does not name it, what the
    // rows show: busbw 0 beside a non-zero algbw on every row.
    const auto factor = busbw_factor(t.collective, 1);
    if (factor && *factor != 0.0) return {};
    const NcclTestsRow* any_moved = nullptr;
    for (const auto& r : t.rows) {
      const auto busbw = r.busbw();
      if (busbw && *busbw != 0.0) return {};
      if (!any_moved && ((r.oop_algbw && *r.oop_algbw > 0) || (r.ip_algbw && *r.ip_algbw > 0)))
        any_moved = &r;
    }
    if (!factor && !any_moved) return {};
    RuleOutcome o;
    Finding x = finding("The run had one rank (" + t.devices.front().host + " device " +
                        std::to_string(t.devices.front().device) +
                        "), so its bus bandwidth is 0 by definition: nothing crossed a link");
    x.evidence.push_back({"rank " + std::to_string(t.devices.front().rank) + " on " +
                              t.devices.front().host + ", the only rank listed",
                          t.devices.front().where});
    if (any_moved)
      x.evidence.push_back(
          {"algbw above 0 and busbw 0 at " + std::to_string(any_moved->size_bytes) + " bytes",
           any_moved->where});
    x.cause =
        "nccl-tests reports busbw = algbw x 2(n-1)/n for all_reduce and algbw x (n-1)/n for "
        "all_gather, reduce_scatter and alltoall (doc/PERFORMANCE.md), the share of the data that "
        "crosses links between n ranks; with n = 1 that share is 0. The GPU and NCCL may be "
        "fine: a single rank measures neither.";
    x.fix =
        "Measure with at least two ranks: `-g <GPUs>` on one node, or one rank per GPU across "
        "nodes (`mpirun -np <GPUs> ... -g 1` with nccl-tests built with MPI=1). A one-GPU VM has "
        "no link for nccl-tests to measure.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_one_rank() { return std::make_unique<NcclTestsOneRank>(); }

}  // namespace trainready
