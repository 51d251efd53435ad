// Fuzz target: the ncclras report reader (text and JSON).
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_ras.h"

TRAINREADY_FUZZ_TARGET(nccl_ras, text) {
  (void)trainready::looks_like_ras_output(text);
  (void)trainready::parse_ras_output(text, "fuzz");
}
