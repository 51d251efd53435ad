// Fuzz target: the nvidia-smi table parser.
#include "fuzz/fuzz_target.h"
#include "parsers/nvidia_smi_table.h"

TRAINREADY_FUZZ_TARGET(nvidia_smi_table, text) {
  (void)trainready::parse_nvidia_smi_table(text, "fuzz");
}
