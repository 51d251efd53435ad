// framework-rendezvous-failed: the ranks never all met (PyTorch's store or rendezvous): NCCL was
// never started, so no NCCL line can say why.
#include <cstdlib>

#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class FrameworkRendezvousFailed : public Rule {
 public:
  std::string_view id() const override { return "framework-rendezvous-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "The ranks never all met: the framework's rendezvous failed before NCCL started";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto timeouts = framework_events(f.framework, {FrameworkEventKind::kRendezvousTimeout});
    const auto sockets = framework_events(f.framework, {FrameworkEventKind::kStoreUnreachable});
    if (timeouts.empty() && sockets.empty()) return {};
    std::string joined;
    for (const FrameworkEvent* e : timeouts)
      if (joined.empty() && !e->detail.empty()) joined = e->detail;
    // "M/N joined" with M > N: more processes than the world size reached the store.
    bool extra = false;
    if (const std::size_t slash = joined.find('/'); slash != std::string::npos) {
      const long m = std::strtol(joined.c_str(), nullptr, 10);
      const long w = std::strtol(joined.c_str() + slash + 1, nullptr, 10);
      extra = w > 0 && m > w;
    }
    bool bind = false;
    for (const FrameworkEvent* e : sockets) bind = bind || e->detail.rfind("server", 0) == 0;
    std::string what =
        !sockets.empty()
            ? (bind ? "The rendezvous store could not open its port on the master rank"
                    : "A rank could not reach the rendezvous store (MASTER_ADDR:MASTER_PORT)")
            : "The ranks timed out waiting for each other at rendezvous" +
                  (joined.empty() ? std::string() : " (" + joined + ")");
    Finding x = finding(what);
    for (const FrameworkEvent* e : sockets)
      if (x.evidence.size() < 4) x.evidence.push_back(framework_evidence(*e));
    for (const FrameworkEvent* e : timeouts)
      if (x.evidence.size() < 4) x.evidence.push_back(framework_evidence(*e));
    x.cause =
        bind    ? "The master's TCP store could not bind its port: another job (or a previous run "
                  "that has not exited) holds MASTER_PORT on that host."
        : extra ? "More processes reached the store than the world size says: two jobs share one "
                  "MASTER_ADDR:MASTER_PORT, or the launch starts more processes per node than "
                  "WORLD_SIZE counts (nproc_per_node x nnodes differs from world_size)."
                : "PyTorch's TCP store (on MASTER_ADDR:MASTER_PORT, rank 0) collects every rank "
                  "before NCCL is initialised. Some ranks never arrived: they were not started, "
                  "crashed while starting, were given another MASTER_ADDR / port / world size, or "
                  "cannot reach the master (a firewall, the wrong interface, a name that resolves "
                  "to a local address).";
    x.fix = bind ? "Pick a free MASTER_PORT (or `--rdzv-endpoint host:0` with torchrun) and make "
                   "sure the previous run's processes are gone (`ss -ltnp | grep PORT`)."
                 : "Check every rank was launched with the same MASTER_ADDR, MASTER_PORT and "
                   "WORLD_SIZE; from a worker, `nc -zv $MASTER_ADDR $MASTER_PORT`; read the log of "
                   "the ranks that did not join. NCCL_DEBUG does not help here: NCCL has not run.";
    x.rank = 45;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_rendezvous_failed() {
  return std::make_unique<FrameworkRendezvousFailed>();
}

}  // namespace trainready
