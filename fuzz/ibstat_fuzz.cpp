// Fuzz target: the ibstat parser.
#include "fuzz/fuzz_target.h"
#include "parsers/ib_captures.h"

TRAINREADY_FUZZ_TARGET(ibstat, text) { (void)trainready::parse_ibstat(text, "fuzz"); }
