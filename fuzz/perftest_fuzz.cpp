// Fuzz target: the perftest ib_write_bw parser.
#include "fuzz/fuzz_target.h"
#include "parsers/perftest.h"

TRAINREADY_FUZZ_TARGET(perftest, text) { (void)trainready::parse_ib_write_bw(text, "fuzz"); }
