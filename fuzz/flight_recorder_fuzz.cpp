// Fuzz target: Flight Recorder dumps, pickle (the bounded unpickler) and JSON.
#include "fuzz/fuzz_target.h"
#include "parsers/flight_recorder.h"

TRAINREADY_FUZZ_TARGET(flight_recorder, text) {
  (void)trainready::looks_like_flight_recorder(text);
  (void)trainready::parse_flight_recorder(text, "fuzz_rank_0");
}
