// Fuzz target: the streaming NCCL log analyser (record splitting included).
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_log.h"

TRAINREADY_FUZZ_TARGET(nccl_log, text) { (void)trainready::analyze_nccl_log_text(text, "fuzz"); }
