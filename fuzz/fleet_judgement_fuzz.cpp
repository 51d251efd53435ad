// Fuzz target: what rank 0 of `fleet` makes of a group leader's judgement (the two-level gather,
// fleet/group_judgement.h): decoded, then folded into rank 0's gatherer and finished, as rank 0
// does; anything but rank states or a WireError is a bug.
#include "codec/node_facts_wire.h"
#include "fleet/group_judgement.h"
#include "fleet/judged_gatherer.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(fleet_judgement, text) {
  try {
    (void)trainready::decode_group_judgement(text);
  } catch (const trainready::WireError&) {
  }
  trainready::JudgedGatherer g(8, 4, "0.1.0", trainready::node_rule_ids({}));
  g.accept_judgement(4, text, 0);
  (void)g.finish(0, 1, "fuzz");
}
