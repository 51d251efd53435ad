// Fuzz target: one line of a `watch --record` file (a header or a sample), as --replay reads it.
#include "fuzz/fuzz_target.h"
#include "watch/sample_json.h"

TRAINREADY_FUZZ_TARGET(watch_recording, text) {
  trainready::watch::Sample s;
  (void)trainready::watch::parse_recording_line(text, "fuzz.jsonl", 1, s);
}
