// Fuzz target: the gpu_inventory_json parser.
#include "fuzz/fuzz_target.h"
#include "parsers/gpu_inventory_json.h"

TRAINREADY_FUZZ_TARGET(gpu_inventory_json, text) {
  (void)trainready::parse_gpu_inventory_json(text, "fuzz");
}
