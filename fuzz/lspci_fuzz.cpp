// Fuzz target: the lspci parser.
#include "fuzz/fuzz_target.h"
#include "parsers/lspci.h"

TRAINREADY_FUZZ_TARGET(lspci, text) { (void)trainready::parse_lspci(text, "fuzz"); }
