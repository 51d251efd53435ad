// Fuzz target: CycleCloud healthagent's `health -s` JSON parser.
#include "fuzz/fuzz_target.h"
#include "parsers/healthagent_status.h"

TRAINREADY_FUZZ_TARGET(healthagent_status, text) {
  (void)trainready::parse_healthagent_status(text, "fuzz");
}
