// framework-watchdog-hang: PyTorch's heartbeat monitor found the NCCL watchdog thread itself
// stuck: a NCCL or CUDA call blocked, not only a slow collective.
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class FrameworkWatchdogHang : public Rule {
 public:
  std::string_view id() const override { return "framework-watchdog-hang"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "PyTorch's NCCL watchdog hung: a NCCL or CUDA call blocked";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto events = framework_events(f.framework, {FrameworkEventKind::kWatchdogHang});
    if (events.empty()) return {};
    std::string secs;
    for (const FrameworkEvent* e : events)
      if (secs.empty() && !e->detail.empty()) secs = e->detail;
    Finding x =
        finding("PyTorch's heartbeat monitor found the ProcessGroupNCCL watchdog stuck" +
                (secs.empty() ? std::string() : " for " + secs + " s") + " and ended the process");
    for (std::size_t i = 0; i < events.size() && i < 4; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    // ProcessGroupNCCL.cpp's own text: "This typically indicates a NCCL/CUDA API (e.g.,
    // CudaEvent.query/synchronize) hang blocking the watchdog".
    x.cause =
        "The watchdog thread polls each collective's CUDA event; when that call itself does not "
        "return, a NCCL or CUDA API is blocked: a GPU that stopped responding (an Xid in "
        "`dmesg`), a NCCL kernel waiting on a peer that is gone, or a communicator abort that "
        "hangs." +
        std::string(f.timeouts.empty()
                        ? ""
                        : " A collective timed out first (see nccl-collective-timeout).");
    x.fix =
        "Check `dmesg` / `nvidia-smi -q` on the node for Xid errors and a GPU that fell off the "
        "bus; read the Flight Recorder dump PyTorch writes before exiting "
        "(TORCH_NCCL_DUMP_ON_TIMEOUT=1, TORCH_NCCL_DEBUG_INFO_TEMP_FILE) with `trainready nccl` "
        "to see the last collective each rank entered; rerun with NCCL_DEBUG=INFO to see "
        "which peer NCCL waited for.";
    x.rank = 35;
    // The watchdog hangs on a call an earlier failure blocked (a peer gone, a GPU fault).
    x.onset = {events.front()->where, events.front()->time, ""};
    x.consequence = true;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_watchdog_hang() {
  return std::make_unique<FrameworkWatchdogHang>();
}

}  // namespace trainready
