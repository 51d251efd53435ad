// The order the watch rules are asked in, first match wins. Two orders: with GPU counters the
// GPUs' busy share is the question and the paths explain its idle time; without them, the
// watched processes' time is what there is, and the bytes they move decide before their CPU
// time (an MPI rank polls while it waits). docs/watch.md states both.
// With GPUs, hang is asked first: GPUs spinning at full utilization (few SMs active, or near idle
// power without tensor activity: watch/gpu_busy.h) read "busy" in NVML, so compute must not be
// asked before a quiet, spinning node has been judged hung; communication comes before compute
// because NCCL kernels at line rate read busy too.
// Kept beside the registry, not in rules/watch/, where one file is one rule.
#include "rules/registry.h"
#include "watch/attribution.h"

namespace trainready::watch {
namespace {

const LabelRule* label_rule(std::string_view id) {
  const auto* r = dynamic_cast<const LabelRule*>(find_rule(id));
  if (!r) throw std::logic_error("watch rule not registered: " + std::string(id));
  return r;
}

}  // namespace

const Precedence& watch_precedence() {
  static const Precedence p = [] {
    Precedence q;
    q.with_gpus = {label_rule("watch-hang"),          label_rule("watch-communication-bound"),
                   label_rule("watch-compute-bound"), label_rule("watch-input-storage"),
                   label_rule("watch-input-cpu"),     label_rule("watch-idle")};
    q.without_gpus = {label_rule("watch-no-counters"),   label_rule("watch-communication-bound"),
                      label_rule("watch-input-storage"), label_rule("watch-input-cpu"),
                      label_rule("watch-compute-bound"), label_rule("watch-hang"),
                      label_rule("watch-idle")};
    q.straggler = label_rule("watch-straggler");
    return q;
  }();
  return p;
}

}  // namespace trainready::watch
