#pragma once
// NodeFacts on the wire: what one `fleet` rank sends rank 0. Unlike the "facts" section of
// `doctor --json` (node_facts_json.h, a view for people and scripts), this is lossless: every
// field and every provenance, so rank 0's rules judge exactly what the rank's probes saw. CBOR
// (RFC 8949): written through nlohmann::json, read straight from the bytes (codec/cbor_tree.h),
// so rank 0 decodes thousands of nodes without building a json document for each.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "codec/cbor_tree.h"
#include "facts/node_facts.h"

namespace trainready {

// Thrown by the decoders: what was wrong, with the JSON path ("ib.devices[2].ports[0]: ...").
struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json node_facts_to_wire(const NodeFacts& n);
// The facts whose map is item `at` of `t`; throws WireError naming the field at fault.
NodeFacts node_facts_from_wire(const CborTree& t, std::uint32_t at);
// The same from a document (tests, tools): encoded to CBOR and read as above.
NodeFacts node_facts_from_wire(const nlohmann::json& j);

}  // namespace trainready
