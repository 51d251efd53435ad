#include <gtest/gtest.h>

#include "codec/node_facts_json.h"
#include "core/input_error.h"
#include "parsers/gpu_inventory_json.h"

using namespace trainready;

TEST(GpuInventoryJson, RoundTrip) {
  GpuFacts g;
  g.driver_loaded = true;
  g.driver_version = "535.161.08";
  Gpu x;
  x.index = 0;
  x.name = "NVIDIA H100 80GB HBM3";
  x.remap_pending = true;
  g.gpus.push_back(x);
  GpuFacts back = parse_gpu_inventory_json(gpu_facts_to_json(g).dump(), "nvml.json");
  ASSERT_EQ(back.gpus.size(), 1u);
  EXPECT_EQ(back.gpus[0].name, x.name);
  EXPECT_TRUE(back.gpus[0].remap_pending.value());
  EXPECT_FALSE(back.gpus[0].remap_failure.has_value());
}

TEST(GpuInventoryJson, WrongShapeAndGarbage) {
  EXPECT_THROW(parse_gpu_inventory_json("{\"gpus\": 3}", "x"), InputError);
  EXPECT_THROW(parse_gpu_inventory_json("{\"driver_loaded\": true, \"gpus\": [{}]}", "x"),
               InputError);
  EXPECT_THROW(parse_gpu_inventory_json("\x01\x02", "x"), InputError);
}

// Found by fuzz_gpu_inventory_json: nlohmann throws out_of_range (not parse_error) for a number
// literal beyond double range; it must become an InputError, not terminate the process.
TEST(GpuInventoryJson, NumberOverflowIsAnInputError) {
  EXPECT_THROW(parse_gpu_inventory_json("95555555555e5555", "x"), InputError);
  EXPECT_THROW(
      parse_gpu_inventory_json("{\"driver_loaded\": true, \"gpus\": [], \"x\": 1e99999}", "x"),
      InputError);
}
