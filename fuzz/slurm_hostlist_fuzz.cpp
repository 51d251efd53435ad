// Fuzz target: the Slurm hostlist expander.
#include "fuzz/fuzz_target.h"
#include "parsers/slurm_hostlist.h"

TRAINREADY_FUZZ_TARGET(slurm_hostlist, text) { (void)trainready::expand_hostlist(text, "fuzz", 1); }
