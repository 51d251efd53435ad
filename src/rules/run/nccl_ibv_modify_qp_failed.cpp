// nccl-ibv-modify-qp-failed: NCCL could not bring a queue pair to the ready state.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclIbvModifyQpFailed : public Rule {
 public:
  std::string_view id() const override { return "nccl-ibv-modify-qp-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "ibv_modify_qp failed: an RDMA connection could not be set up";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclIssue* i = find_issue(*ctx.nccl_log, NcclProblem::kModifyQpFailed);
    if (!i) return {};
    RuleOutcome o;
    Finding x = finding("ibv_modify_qp failed (" + join_limited(i->details) +
                        "): queue pairs to a peer could not be connected");
    add_issue_evidence(x, *i);
    x.onset = first_onset(i->examples);
    x.cause =
        "The two HCAs cannot form a connection: on InfiniBand, different partitions "
        "(pkeys) or a port not ACTIVE; on RoCE, a GID index that is not routable "
        "between the nodes (NCCL_IB_GID_INDEX), no route, or an MTU mismatch.";
    x.fix =
        "InfiniBand: same scale set / partition and active ports on both nodes "
        "(`trainready doctor`). RoCE: set NCCL_IB_GID_INDEX to the RoCE v2 IPv4 GID "
        "(`show_gids`), and check routes between the NICs.";
    x.subsumes = {"cluster-pkey-mismatch"};
    x.rank = 70;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ibv_modify_qp_failed() {
  return std::make_unique<NcclIbvModifyQpFailed>();
}

}  // namespace trainready
