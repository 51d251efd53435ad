// Azure CycleCloud healthagent's last background verdict (`health -s`), where a snapshot kept
// it: `collect` runs `health -s` on nodes that have it (/usr/bin/health). A live doctor does not
// run it (probes read files); `doctor --capture healthagent=FILE` reads a saved one.
#include "core/input_error.h"
#include "parsers/healthagent_status.h"
#include "probes/probes.h"

namespace trainready {

Fact<HealthagentStatus> probe_healthagent(const Root& root) {
  const Provenance where{root.display(kSnapHealthagent), 0};
  if (root.is_live())
    return Fact<HealthagentStatus>::missing(
        "not read on a live node: save `health -s > FILE` and pass --capture healthagent=FILE");
  const FileRead r = root.read_file(kSnapHealthagent, kLargeFileLimit);
  if (r.status == ReadStatus::kMissing)
    return Fact<HealthagentStatus>::missing(
        "the snapshot has no `health -s` output (no CycleCloud healthagent on the node)", where);
  if (!r.ok()) return Fact<HealthagentStatus>::unreadable(r.error, where);
  try {
    return Fact<HealthagentStatus>::present(
        parse_healthagent_status(r.data, root.display(kSnapHealthagent)), where);
  } catch (const InputError& e) {
    return Fact<HealthagentStatus>::unreadable(e.what(), where);
  }
}

}  // namespace trainready
