// Fuzz target: the `nvidia-smi -q` reader of `trainready health` (ECC, remapped rows, PCIe
// replays, clocks event reasons).
#include "fuzz/fuzz_target.h"
#include "health/health_smi.h"

TRAINREADY_FUZZ_TARGET(health_smi_query, text) {
  (void)trainready::parse_health_smi_query(text, "fuzz");
}
