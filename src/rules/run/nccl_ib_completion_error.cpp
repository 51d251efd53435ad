// nccl-ib-completion-error: an InfiniBand work completion came back with an error status.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclIbCompletionError : public Rule {
 public:
  std::string_view id() const override { return "nccl-ib-completion-error"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand completion errors: a peer could not be reached over IB";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclIssue* i = find_issue(*ctx.nccl_log, NcclProblem::kIbCompletionError);
    if (!i) return {};
    RuleOutcome o;
    Finding x = finding("NET/IB completion error(s) (" + join_limited(i->details) +
                        ") talking to " + (i->peers.empty() ? "a peer" : join_limited(i->peers)));
    add_issue_evidence(x, *i);
    const bool retry = i->details.count("error 12") > 0;
    const bool rnr = i->details.count("error 13") > 0;
    if (retry) {
      x.cause =
          "Status 12 is IBV_WC_RETRY_EXC_ERR: the HCA retried and the peer never "
          "acknowledged, so the path between the two nodes does not work. On Azure this "
          "is almost always two VMs in different InfiniBand partitions (not in one scale "
          "set or availability set), or a port that is down or flapping.";
      x.fix =
          "Put every VM of the job in one scale set (singlePlacementGroup=true) or one "
          "availability set, check `cat /sys/class/infiniband/*/ports/1/pkeys/0` is the "
          "same on both nodes and the ports are ACTIVE (`trainready doctor` on each).";
    } else if (rnr) {
      x.cause =
          "Status 13 is IBV_WC_RNR_RETRY_EXC_ERR: the receiver had no buffer posted; "
          "the peer process is stuck or gone.";
      x.fix = "Look at the peer's own log for an earlier error; check its host.";
    } else {
      x.cause =
          "The HCA reported a failed work request. Status 5 (WR_FLUSH_ERR) follows an "
          "earlier error on the same queue pair; the first error in time is the one that "
          "matters.";
      x.fix =
          "Find the first completion error across all ranks, then check that link "
          "(`ibstat`, `trainready doctor`) and the peer's log.";
    }
    x.subsumes = {"cluster-pkey-mismatch", "ib-port-not-active"};
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_completion_error() {
  return std::make_unique<NcclIbCompletionError>();
}

}  // namespace trainready
