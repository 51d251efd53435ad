// Fuzz target: the ibstatus parser.
#include "fuzz/fuzz_target.h"
#include "parsers/ib_captures.h"

TRAINREADY_FUZZ_TARGET(ibstatus, text) { (void)trainready::parse_ibstatus(text, "fuzz"); }
