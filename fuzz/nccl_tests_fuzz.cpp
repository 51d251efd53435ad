// Fuzz target: the nccl-tests reader (tables and JSON).
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_tests.h"

TRAINREADY_FUZZ_TARGET(nccl_tests, text) { (void)trainready::parse_nccl_tests(text, "fuzz"); }
