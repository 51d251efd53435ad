// Fuzz target: the nvidia-smi -q parser.
#include "fuzz/fuzz_target.h"
#include "parsers/nvidia_smi_query.h"

TRAINREADY_FUZZ_TARGET(nvidia_smi_query, text) {
  (void)trainready::parse_nvidia_smi_query(text, "fuzz");
}
