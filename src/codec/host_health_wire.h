#pragma once
// The host-health facts on the fleet's wire (issue 32's processes, services, InfiniBand
// character devices, hypervisor, IOMMU / ATS / ACS and healthagent's status), so the rules that
// judge them run on every gathered node as they do in `doctor`. One key, "health", in a node's
// wire map: a rank of an older trainready sends none and its node keeps them not collected.
#include <nlohmann/json.hpp>

#include "codec/wire_in.h"
#include "facts/node_facts.h"

namespace trainready {

nlohmann::json host_health_to_wire(const NodeFacts& n);
// Fills n's host-health facts from the "health" map; throws WireError naming the field.
void host_health_from_wire(const wire::In& health, NodeFacts& n);

}  // namespace trainready
