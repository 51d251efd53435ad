// Fuzz target: the kernel log parser (Xid lines).
#include "fuzz/fuzz_target.h"
#include "parsers/kernel_log.h"

TRAINREADY_FUZZ_TARGET(kernel_log, text) { (void)trainready::parse_kernel_log(text, "fuzz"); }
