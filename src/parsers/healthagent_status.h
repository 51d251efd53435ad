#pragma once
// Azure CycleCloud healthagent's `health -s` JSON (Azure/cyclecloud-healthagent: client.py
// prints the daemon's answer with json.dumps(indent=4); reporter.py HealthReport.view() is each
// check's object): module -> check -> report. Unknown members are kept out, not refused: the
// report carries module-specific fields (interfaces, services, counts).
#include <string>
#include <string_view>

#include "facts/host_health_facts.h"

namespace trainready {

// Throws InputError naming `source` (and the line) when the text is not JSON or not that shape.
HealthagentStatus parse_healthagent_status(std::string_view text, const std::string& source);

bool looks_like_healthagent_status(std::string_view text);

}  // namespace trainready
