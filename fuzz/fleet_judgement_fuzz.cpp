// Fuzz target: what rank 0 of `fleet` makes of a group leader's bundle (the two-level gather):
// the bundle and every message in it, folded into the gatherer as rank 0 does; anything but
// rank states or a WireError is a bug.
#include "codec/node_facts_wire.h"
#include "fleet/fleet_bundle.h"
#include "fleet/fleet_gatherer.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(fleet_bundle, text) {
  try {
    (void)trainready::decode_bundle(text);
  } catch (const trainready::WireError&) {
  }
  trainready::FleetGatherer g(8, "0.1.0");
  g.accept_bundle(4, 4, text, 0);
  (void)g.finish(0, 1, "fuzz");
}
