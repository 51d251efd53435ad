// nccl-separate-jobs: a job meant to span hosts whose every communicator stayed inside one host
// (nNodes 1, rings closing locally, the same rank numbers on several hosts): the launcher
// started independent single-node jobs (nccl-tests built without MPI=1, a launcher that does
// not pass ranks, mixed MPI builds).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

void explain(Finding& x) {
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
}

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
    for (const auto& [k, t] : f.transports)
      if (t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetOther ||
          t.kind == TransportKind::kCollNet)
        return {};
    if (f.comms.empty()) return destroyed(f);
    std::set<std::string> comm_hosts, clash;
    for (const auto& [id, c] : f.comms) {
      std::set<std::string> hs;
      for (const auto& [r, h] : c.rank_hosts) hs.insert(h);
      if (c.nnodes > 1) return {};
      if (hs.size() > 1 && c.rank_clash_hosts.empty()) return {};  // one comm spans hosts
      comm_hosts.insert(hs.begin(), hs.end());
      clash.insert(c.rank_clash_hosts.begin(), c.rank_clash_hosts.end());
      comm_hosts.insert(c.rank_clash_hosts.begin(), c.rank_clash_hosts.end());
    }
    if (comm_hosts.size() < 2) return {};
    RuleOutcome o;
    Finding x =
        finding(std::to_string(comm_hosts.size()) + " hosts (" + join_limited(comm_hosts, 4) +
                ") each ran communicators of their own: no communicator spans two hosts");
    for (const auto& [id, c] : f.comms) {
      if (x.evidence.size() >= 4) break;
      std::set<std::string> hs;
      for (const auto& [r, h] : c.rank_hosts) hs.insert(h);
      x.evidence.push_back({"communicator " + c.id + ": " + std::to_string(c.nranks) +
                                " rank(s), nNodes " +
                                (c.nnodes ? std::to_string(c.nnodes) : std::string("?")) +
                                ", all on " + join_limited(hs, 3),
                            c.first_seen});
    }
    if (!clash.empty())
      x.evidence.push_back({"the same rank numbers were claimed by " + join_limited(clash), {}});
    explain(x);
    o.findings.push_back(std::move(x));
    return o;
  }

 private:
  // A log with no init line (an excerpt from the run's end): its Destroy COMPLETE lines, one
  // entry per process and communicator size (f.comms_at_destroy). Every process on several
  // hosts destroyed ranks 0 to N-1 of N-rank communicators, N >= 2: a single process driving
  // all its GPUs (nccl-tests' -g N) in a world of its own (NVIDIA/nccl-tests#182). One MPI
  // job's process holds ranks g*r to g*r+g-1 and a process per GPU one rank, so neither reads
  // so; nor does a log whose communicators have several sizes (tensor- and data-parallel).
  RuleOutcome destroyed(const NcclRunFacts& f) const {
    const auto& comms = f.comms_at_destroy;
    if (comms.size() < 2) return {};
    const int n = comms.begin()->second.nranks;
    if (n < 2) return {};
    std::set<std::string> hosts;
    for (const auto& [id, c] : comms) {
      if (c.nranks != n || static_cast<int>(c.rank_hosts.size()) != n ||
          c.rank_hosts.begin()->first != 0 || c.rank_hosts.rbegin()->first != n - 1)
        return {};
      hosts.insert(c.rank_hosts.begin()->second);
    }
    if (hosts.size() < 2) return {};
    Finding x = finding(std::to_string(hosts.size()) + " hosts (" + join_limited(hosts, 4) +
                        ") each ran communicators of their own: no communicator spans two hosts");
    for (const auto& [id, c] : comms) {
      if (x.evidence.size() >= 4) break;
      x.evidence.push_back({"one process on " + c.rank_hosts.begin()->second +
                                " destroyed ranks 0 to " + std::to_string(n - 1) + " of " +
                                std::to_string(n) + "-rank communicators (Destroy COMPLETE)",
                            c.first_seen});
    }
    explain(x);
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_separate_jobs() { return std::make_unique<NcclSeparateJobs>(); }

}  // namespace trainready
