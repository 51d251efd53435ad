// Fuzz target: the nvidia_smi_topo parser.
#include "fuzz/fuzz_target.h"
#include "parsers/nvidia_smi_topo.h"

TRAINREADY_FUZZ_TARGET(nvidia_smi_topo, text) {
  (void)trainready::parse_nvidia_smi_topo(text, "fuzz");
}
