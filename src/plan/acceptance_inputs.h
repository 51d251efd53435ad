#pragma once
// The files `plan --check` reads: the plan's own JSON report and the measured reports of `fleet
// --bandwidth`, `bench <collective>` and `bench storage` (all JSON schema `schema_version`).
// Sources only: they read and classify, the acceptance check (acceptance.cpp) computes, the rules
// judge. Every error is an InputError naming the file and, where the value has one, its line.
#include <string>
#include <string_view>

#include "plan/acceptance.h"

namespace trainready {

// The recommended candidate of `trainready plan --format json`. Refuses another command's
// report, another schema version, a plan that recommends nothing, a missing or mistyped field.
PlannedRun read_planned_run(std::string_view text, const std::string& file, int schema_version);

// One measured report into `out`, classified by its `command`: an all-reduce sweep over more GPUs
// than one VM holds (`gpus_per_vm`) measures the network between VMs, one inside a VM the
// intra-VM figure; a pair matrix gives the slowest link; `bench storage` the storage feed.
void read_measurement(std::string_view text, const std::string& file, int schema_version,
                      int gpus_per_vm, Measurements& out);

}  // namespace trainready
