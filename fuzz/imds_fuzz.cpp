// Fuzz target: the imds parser.
#include "fuzz/fuzz_target.h"
#include "parsers/imds.h"

TRAINREADY_FUZZ_TARGET(imds, text) { (void)trainready::parse_imds(text, "fuzz"); }
