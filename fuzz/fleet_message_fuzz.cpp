// Fuzz target: what rank 0 of `fleet` makes of the bytes a rank sent (CBOR envelope and the
// node's facts); anything but a message or a WireError is a bug.
#include "codec/node_facts_wire.h"
#include "fleet/fleet_message.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(fleet_message, text) {
  try {
    (void)trainready::decode_rank_message(text);
  } catch (const trainready::WireError&) {
  }
}
