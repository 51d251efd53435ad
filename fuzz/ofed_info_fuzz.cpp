// Fuzz target: the ofed_info parser.
#include "fuzz/fuzz_target.h"
#include "parsers/ofed_info.h"

TRAINREADY_FUZZ_TARGET(ofed_info, text) { (void)trainready::parse_ofed_info(text, "fuzz"); }
