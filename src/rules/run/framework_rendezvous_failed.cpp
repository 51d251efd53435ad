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
    auto sockets = framework_events(f.framework, {FrameworkEventKind::kStoreUnreachable});
    if (timeouts.empty() && sockets.empty()) return {};
    // PyTorch's Gloo group (the CPU group vLLM, SGLang, DeepSpeed create beside NCCL's) on
    // loopback: a reading of its own. The warning alone is no failure on one host.
    bool gloo_loopback = false, gloo_failed = false, store = !timeouts.empty();
    for (const FrameworkEvent* e : sockets) {
      gloo_loopback = gloo_loopback || e->detail == "gloo on loopback";
      gloo_failed = gloo_failed || e->detail == "gloo connect failed";
      store = store || e->detail.rfind("gloo", 0) != 0;
    }
    if (!store) return gloo(sockets, gloo_loopback, gloo_failed, f);
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
    std::erase_if(sockets, [](const FrameworkEvent* e) { return e->detail.rfind("gloo", 0) == 0; });
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

 private:
  RuleOutcome gloo(const std::vector<const FrameworkEvent*>& events, bool loopback, bool failed,
                   const NcclRunFacts& f) const {
    if (!failed && !(loopback && f.multi_node())) return {};
    Finding x = finding(failed ? "PyTorch's Gloo group could not connect its ranks"
                               : "PyTorch's Gloo group is bound to loopback in a multi-host job");
    for (const FrameworkEvent* e : events)
      if (x.evidence.size() < 4) x.evidence.push_back(framework_evidence(*e));
    if (!failed) x.severity = Severity::kWarning;
    x.cause =
        loopback
            ? "PyTorch's Gloo process group (the CPU group that vLLM, SGLang and DeepSpeed create "
              "beside NCCL's, or a backend='gloo' job) found that the host's name resolves to no "
              "usable local address and bound 127.0.0.1 instead (ProcessGroupGloo.cpp, "
              "createDefaultDevice), so ranks on other hosts cannot connect to it and the group's "
              "full mesh fails. NCCL is not involved: its settings do not reach Gloo."
            : "Gloo's full mesh of the group's ranks failed: a rank could not connect to another "
              "rank's Gloo address - the interface Gloo chose (the address the host's name "
              "resolves to, or GLOO_SOCKET_IFNAME) does not route between the hosts, a firewall "
              "blocks it, or a peer exited.";
    x.fix =
        "Set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) to the interface that routes between the "
        "hosts, on every node and in every process - with Ray, in the environment of `ray start` "
        "on each node or the job's runtime_env, since workers on other nodes do not inherit the "
        "head's shell - or make the host's name resolve to that interface's address (/etc/hosts). "
        "Confirm: `getent hosts $(hostname)` on each node returns a routable address" +
        std::string(loopback ? " and the loopback warning is gone." : ".");
    x.rank = 46;
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
