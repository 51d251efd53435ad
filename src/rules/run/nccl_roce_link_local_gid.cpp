// nccl-roce-link-local-gid: NCCL's RoCE queue pairs use a link-local GID (fe80::/64).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclRoceLinkLocalGid : public Rule {
 public:
  std::string_view id() const override { return "nccl-roce-link-local-gid"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL's RoCE connections use a link-local GID (fe80::), which is not routed";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // One host: queue pairs that stay on it need no route.
    if (!f.multi_node()) return {};
    // No RoCE queue pair printed (InfiniBand, another network, or NCCL_DEBUG_SUBSYS without
    // NET): nothing to judge, and nothing a RoCE-less run should be told it missed.
    if (!f.roce_link_local_gid) return {};
    RuleOutcome o;
    Finding x = finding(std::to_string(f.roce_gid_link_local) +
                        " RoCE queue pair line(s) use a link-local GID (fe80::/64)" +
                        (f.roce_gid_other > 0 ? ", " + std::to_string(f.roce_gid_other) +
                                                    " another GID: the ranks chose differently"
                                              : std::string()));
    x.evidence.push_back(evidence(*f.roce_link_local_gid));
    const auto env = f.env.find("NCCL_IB_GID_INDEX");
    if (env != f.env.end()) x.evidence.push_back(evidence(env->second.line));
    const NcclIssue* failed = nullptr;
    for (NcclProblem p : {NcclProblem::kModifyQpFailed, NcclProblem::kIbCompletionError})
      if (!failed) failed = find_issue(f, p);
    // It works within one layer-2 segment: the run's own IB failures (or ranks on different
    // GIDs) make it the error; without them it is a warning while the run's fate is unknown,
    // and a note once a rank completed init.
    if (failed || f.roce_gid_other > 0)
      x.severity = Severity::kError;
    else if (f.init_complete_line)
      x.severity = Severity::kInfo;
    if (failed && !failed->examples.empty())
      x.evidence.push_back(evidence(failed->examples.front()));
    x.rank = 72;
    const std::string why =
        "A link-local GID (fe80::/64, from the port's MAC address) is not routed: it reaches "
        "only hosts on the same Ethernet segment (where it works at full speed), and on "
        "ConnectX (mlx5) GID index 0 is usually the RoCE v1 one, which is layer 2 only and "
        "cannot be routed at all. NCCL 2.21 and later choose a RoCE v2 GID with an IPv4 address "
        "by default (NCCL_IB_ADDR_FAMILY=AF_INET, NCCL_IB_ROCE_VERSION_NUM=2; ncclIbGetGidIndex, "
        "net_ib.cc v2.21.5-1); before 2.21 "
        "NCCL_IB_GID_INDEX defaulted to 0 (net_ib.cc v2.20.5-1).";
    if (env != f.env.end()) {
      x.cause =
          "NCCL_IB_GID_INDEX=" + env->second.value + " in the job's environment selects it. " + why;
      x.fix =
          "Set NCCL_IB_GID_INDEX to the RoCE v2 GID that carries the interface's IPv4 address "
          "(`show_gids`: the v2 row with an IPv4 address; often 3 on mlx5), the same on every "
          "host, or unset it on NCCL 2.21 or later.";
    } else {
      x.cause =
          "NCCL used it by default: a release before 2.21 (GID index 0), or the RDMA "
          "interface has no IPv4 address, so 2.21+ found no RoCE v2 IPv4 GID to choose. " +
          why;
      x.fix =
          "Give the RDMA NIC's netdev an IPv4 address, and set NCCL_IB_GID_INDEX to its RoCE "
          "v2 GID (`show_gids`) before NCCL 2.21; check `ibv_devinfo -v` (GID table) on every "
          "host.";
    }
    x.fix +=
        " Confirm with `ib_write_bw -x <gid index>` between two hosts: the link-local "
        "index fails across subnets, the RoCE v2 IPv4 one works.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_roce_link_local_gid() {
  return std::make_unique<NcclRoceLinkLocalGid>();
}

}  // namespace trainready
