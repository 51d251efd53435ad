// Fuzz target: the dcgmi diag parser.
#include "fuzz/fuzz_target.h"
#include "parsers/dcgmi_diag.h"

TRAINREADY_FUZZ_TARGET(dcgmi_diag, text) { (void)trainready::parse_dcgmi_diag(text, "fuzz"); }
