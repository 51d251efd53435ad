// nccl-separate-jobs: a job meant to span hosts whose every communicator stayed inside one host
// (nNodes 1, rings closing locally, the same rank numbers on several hosts): the launcher
// started independent single-node jobs (nccl-tests built without MPI=1, a launcher that does
// not pass ranks, mixed MPI builds).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclSeparateJobs : public Rule {
 public:
  std::string_view id() const override { return "nccl-separate-jobs"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Hosts ran separate single-node jobs instead of one multi-node job";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // Without init lines (an excerpt from the run's end), the Destroy COMPLETE lines say who
    // was in which communicator.
    const bool at_destroy = f.comms.empty();
    const auto& comms = at_destroy ? f.comms_at_destroy : f.comms;
    if (comms.empty()) return {};
    std::set<std::string> comm_hosts, clash;
    for (const auto& [id, c] : comms) {
      std::set<std::string> hs;
      for (const auto& [r, h] : c.rank_hosts) hs.insert(h);
      if (c.nnodes > 1) return {};
      if (hs.size() > 1 && c.rank_clash_hosts.empty()) return {};  // one comm spans hosts
      comm_hosts.insert(hs.begin(), hs.end());
      clash.insert(c.rank_clash_hosts.begin(), c.rank_clash_hosts.end());
      comm_hosts.insert(c.rank_clash_hosts.begin(), c.rank_clash_hosts.end());
    }
    for (const auto& [k, t] : f.transports)
      if (t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetOther ||
          t.kind == TransportKind::kCollNet)
        return {};
    if (comm_hosts.size() < 2) return {};
    RuleOutcome o;
    Finding x =
        finding(std::to_string(comm_hosts.size()) + " hosts (" + join_limited(comm_hosts, 4) +
                ") each ran communicators of their own: no communicator spans two hosts");
    for (const auto& [id, c] : comms) {
      if (x.evidence.size() >= 4) break;
      std::set<std::string> hs;
      for (const auto& [r, h] : c.rank_hosts) hs.insert(h);
      x.evidence.push_back(
          {"communicator " + c.id + ": " + std::to_string(c.nranks) + " rank(s), nNodes " +
               (c.nnodes ? std::to_string(c.nnodes) : std::string("?")) + ", all on " +
               join_limited(hs, 3) + (at_destroy ? " (its Destroy COMPLETE lines)" : ""),
           c.first_seen});
    }
    if (!clash.empty())
      x.evidence.push_back({"the same rank numbers were claimed by " + join_limited(clash), {}});
    x.rank = 93;
    x.cause =
        "Each host initialised NCCL with only its own ranks, so no data crossed hosts: the "
        "launcher started independent jobs. With nccl-tests this is a build without MPI=1 (or "
        "an old build left over: `make clean` first); with MPI, a mismatch between the MPI the "
        "program was built with and the mpirun that launched it; with torchrun, --nnodes 1 on "
        "each host.";
    x.fix =
        "Rebuild nccl-tests with `make clean && make MPI=1 MPI_HOME=...` and launch with that "
        "MPI's mpirun (one rank per GPU); for torchrun give every host the same --nnodes, "
        "--rdzv-endpoint and a distinct --node-rank. The log should then show nNodes equal to "
        "the host count.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_separate_jobs() { return std::make_unique<NcclSeparateJobs>(); }

}  // namespace trainready
