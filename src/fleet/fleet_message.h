#pragma once
// What one fleet rank sends rank 0: a hello as soon as it starts (so a rank that then hangs in
// its probes is named by host), then its node's facts, or the reason it has none. One CBOR
// message each (RFC 8949), never one per fact.
#include <optional>
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

// Bumped when a message's shape changes; a rank with another number is reported as running an
// incompatible trainready, not misread.
inline constexpr int kFleetMessageFormat = 1;

enum class RankMessageKind { kHello, kFacts, kFailed };

struct RankMessage {
  RankMessageKind kind = RankMessageKind::kHello;
  int format = kFleetMessageFormat;
  int rank = 0;
  std::string host;
  int pid = 0;
  std::string tool_version;
  std::optional<NodeFacts> facts;  // kFacts
  std::string error;               // kFailed: why this rank has no facts
};

std::string encode_rank_message(const RankMessage& m);

// What rank 0 makes of the bytes: a message, or (format != kFleetMessageFormat) only the
// envelope of another trainready's message. Throws WireError (codec/node_facts_wire.h) with the
// field at fault when the bytes are not a fleet message at all.
RankMessage decode_rank_message(std::string_view bytes);

}  // namespace trainready
