// process-unkillable: a task in uninterruptible sleep (state D) with SIGKILL or SIGTERM pending
// at the process level: it has been told to die and the kernel cannot deliver it, which a
// reboot alone clears. CycleCloud healthagent's ProcessStateCheck reports exactly this as an
// error, "Node Reboot required" (healthagent/process.py @b8c76db); GPUd's os component counts
// D-state processes. A D-state task without a pending kill is waiting on I/O and is not judged.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ProcessUnkillable final : public Rule {
 public:
  std::string_view id() const override { return "process-unkillable"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Process stuck in uninterruptible sleep with a kill pending";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.processes.ok()) return RuleOutcome::skip("process states " + n.processes.describe());
    RuleOutcome out;
    Finding f = finding("");
    int hung = 0;
    for (const ProcessEntry& p : n.processes->uninterruptible) {
      if (!p.kill_pending) continue;
      ++hung;
      f.evidence.push_back({"pid " + std::to_string(p.pid) + " (" + p.name +
                                "): State D, SIGKILL/SIGTERM pending (ShdPnd)" +
                                (p.wchan.empty() ? std::string() : ", waiting in " + p.wchan),
                            p.where});
    }
    if (hung == 0) return out;
    f.message = std::to_string(hung) + " process" + (hung == 1 ? "" : "es") +
                " in uninterruptible sleep with a kill pending";
    f.cause =
        "The task is blocked inside the kernel (state D) and a SIGKILL or SIGTERM waits for it: "
        "it cannot exit until the call it is in returns, which for a hung driver, a lost GPU "
        "(nvidia, nv_*), a stuck file system (nfs, lustre, fuse) or a dead device never "
        "happens. It holds its GPU memory, files and mounts, so the next job on the node fails "
        "or hangs. CycleCloud healthagent reports the same condition as an error.";
    f.fix =
        "Read the wait channel above and the kernel log (`dmesg -T | tail -200`, hung_task "
        "messages), collect evidence (`trainready collect`), drain the node and reboot it. If "
        "the wait is in the NVIDIA driver and persists across a reboot, report the node.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_process_unkillable() { return std::make_unique<ProcessUnkillable>(); }

}  // namespace trainready
