#pragma once
// NodeFacts on the wire: what one `fleet` rank sends rank 0. Unlike the "facts" section of
// `doctor --json` (node_facts_json.h, a view for people and scripts), this is lossless: every
// field and every provenance, so rank 0's rules judge exactly what the rank's probes saw. CBOR
// (RFC 8949) through nlohmann::json: compact and fast to decode at thousands of nodes.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "facts/node_facts.h"

namespace trainready {

// Thrown by the decoders: what was wrong, with the JSON path ("ib.devices[2].ports[0]: ...").
struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json node_facts_to_wire(const NodeFacts& n);
NodeFacts node_facts_from_wire(const nlohmann::json& j);  // throws WireError

}  // namespace trainready
