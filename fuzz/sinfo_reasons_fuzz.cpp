// Fuzz target: the sinfo -R parser (hostlists expanded).
#include "fuzz/fuzz_target.h"
#include "parsers/sinfo_reasons.h"

TRAINREADY_FUZZ_TARGET(sinfo_reasons, text) { (void)trainready::parse_sinfo_reasons(text, "fuzz"); }
