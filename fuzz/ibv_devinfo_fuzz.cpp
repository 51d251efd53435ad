// Fuzz target: the ibv_devinfo parser.
#include "fuzz/fuzz_target.h"
#include "parsers/ib_captures.h"

TRAINREADY_FUZZ_TARGET(ibv_devinfo, text) { (void)trainready::parse_ibv_devinfo(text, "fuzz"); }
