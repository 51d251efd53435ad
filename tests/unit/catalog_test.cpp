#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/input_error.h"

using namespace trainready;

TEST(Catalog, BuiltinHasTheRequiredSizesWithSources) {
  const Catalog& c = Catalog::builtin();
  for (const char* s :
       {"Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5", "Standard_ND96isr_MI300X_v5",
        "Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4", "Standard_ND128isr_NDR_GB200_v6",
        "Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5", "Standard_NC24ads_A100_v4",
        "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4"}) {
    const SkuEntry* e = c.find(s);
    ASSERT_NE(e, nullptr) << s;
    EXPECT_FALSE(e->source.empty()) << s;
    EXPECT_FALSE(e->date.empty()) << s;
    EXPECT_GT(e->gpu_count, 0) << s;
  }
}

TEST(Catalog, NdH100FloorsMatchAzureHealthChecks) {
  const SkuEntry* e = Catalog::builtin().find("standard_nd96isr_h100_v5");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->ib_ports, 8);
  EXPECT_DOUBLE_EQ(e->ib_rate_gbits_per_s, 400);
  EXPECT_DOUBLE_EQ(e->nccl_allreduce_floor_gbytes_per_s.value(), 460.0);  // GB/s at 16G
  EXPECT_DOUBLE_EQ(e->ib_write_bw_gdr_floor_gbits_per_s.value(), 380.0);  // Gb/s per HCA
  EXPECT_EQ(e->nccl_allreduce_message, "16G");
  EXPECT_EQ(Catalog::builtin().find("ND96isr_H100_v5"), e);
  EXPECT_EQ(Catalog::builtin().find("Standard_NC40ads_H100_v5")->ib_ports, 0);
}

TEST(Catalog, MalformedCatalogNamesFileAndLine) {
  try {
    Catalog::parse("{\n  \"skus\": [\n    {\"name\": \"X\"}\n  ]\n}\n", "my.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "my.json");
    EXPECT_EQ(e.line(), 3);
  }
  try {
    Catalog::parse("{\n  \"skus\": [,]\n}", "bad.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_THROW(Catalog::parse("[]", "x"), InputError);
}
