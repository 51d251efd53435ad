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
        "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4", "Standard_ND128isr_GB300_v6"}) {
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

// NC A100 v4 size page (read 2026-12-01): NVLink supported, 1/2/4 NVMe disks of 960 GiB beside
// the temp disk; AzNHC floors 193 GB/s at 16G (NC48ads) and 25 GB/s at 8G (NC96ads). The old
// entries said PCIe only, no NVMe, no floor.
TEST(Catalog, NcA100V4HasNvlinkNvmeAndAzureFloors) {
  const Catalog& c = Catalog::builtin();
  const SkuEntry* nc24 = c.find("Standard_NC24ads_A100_v4");
  const SkuEntry* nc48 = c.find("Standard_NC48ads_A100_v4");
  const SkuEntry* nc96 = c.find("Standard_NC96ads_A100_v4");
  ASSERT_TRUE(nc24 && nc48 && nc96);
  EXPECT_EQ(nc24->nvme_disks, 1);
  EXPECT_EQ(nc48->nvme_disks, 2);
  EXPECT_EQ(nc96->nvme_disks, 4);
  EXPECT_DOUBLE_EQ(nc96->nvme_total_gib, 4 * 960.0);
  EXPECT_NE(nc48->gpu_link.find("NVLink"), std::string::npos);
  EXPECT_NE(nc96->gpu_link.find("NVLink"), std::string::npos);
  EXPECT_DOUBLE_EQ(nc48->nccl_allreduce_floor_gbytes_per_s.value(), 193.0);
  EXPECT_EQ(nc48->nccl_allreduce_message, "16G");
  EXPECT_DOUBLE_EQ(nc96->nccl_allreduce_floor_gbytes_per_s.value(), 25.0);
  EXPECT_EQ(nc96->nccl_allreduce_message, "8G");
  EXPECT_FALSE(nc24->nccl_allreduce_floor_gbytes_per_s.has_value());
  // azhpc-images maps only NC96ads_A100_v4 to ncv4-topo.xml.
  EXPECT_EQ(nc48->nccl_topo_file, "");
  EXPECT_EQ(nc96->nccl_topo_file, "/opt/microsoft/ncv4-topo.xml");
}

TEST(Catalog, Gb200NvlinkDomainIs18VmsOf72Gpus) {
  const SkuEntry* e = Catalog::builtin().find("Standard_ND128isr_NDR_GB200_v6");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->nvlink_domain_vms, 18);
  EXPECT_EQ(e->nvlink_domain_gpus, 72);
  EXPECT_EQ(Catalog::builtin().find("Standard_ND96isr_H100_v5")->nvlink_domain_vms, 1);
}

// Domain review 3, finding 4: AzNHC has no GB200 conf; 432 was ND H200 v5's figure. No floor,
// a reason from a listed source, and a planner figure that names its own (non-floor) source.
TEST(Catalog, Gb200HasNoHealthFloorAndSaysWhy) {
  const Catalog& c = Catalog::builtin();
  const SkuEntry* e = c.find("Standard_ND128isr_NDR_GB200_v6");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->nccl_allreduce_floor_gbytes_per_s.has_value());
  EXPECT_EQ(e->source.find("conf/nd128isr"), std::string::npos) << e->source;
  ASSERT_FALSE(e->no_floor_reason.empty());
  EXPECT_NE(c.source_text(e->no_floor_reason), e->no_floor_reason);
  ASSERT_TRUE(e->planner_intra_vm_allreduce_gbytes_per_s.has_value());
  EXPECT_NE(c.source_text(e->planner_intra_vm_allreduce_source).find("not a health floor"),
            std::string::npos);
}

// A guessed or copied number must never read as an API capture: every price is dated, names a
// listed source, and one not captured from the source itself says so.
TEST(Catalog, EveryPriceIsDatedWithAnHonestSource) {
  const Catalog& c = Catalog::builtin();
  int prices = 0;
  for (const SkuEntry& e : c.skus()) {
    for (const SkuPrice& p : e.prices) {
      ++prices;
      EXPECT_EQ(p.date.size(), 10u) << e.name;
      const std::string text = c.source_text(p.source);
      EXPECT_NE(text, p.source) << e.name << ": source key not listed";
      if (!p.verified) {
        EXPECT_NE(text.find("NOT captured"), std::string::npos) << e.name;
      }
    }
  }
  EXPECT_GT(prices, 0);
  EXPECT_FALSE(c.find("Standard_ND96isr_H100_v5")->prices.front().verified);
  EXPECT_NE(c.source_text("no-price-known").find("ranks by time"), std::string::npos);
}

// Issue 28 item 3: ND GB300 v6 with the size page's facts and Microsoft's two-level levels, each
// from a listed source; what no source gives (single-VM floor, dense peak) stays missing, with
// why.
TEST(Catalog, Gb300HasItsPublishedFactsAndTwoLevelThresholds) {
  const Catalog& c = Catalog::builtin();
  const SkuEntry* e = c.find("Standard_ND128isr_GB300_v6");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->gpu_count, 4);
  EXPECT_DOUBLE_EQ(e->gpu_memory_gb, 288);
  EXPECT_EQ(e->nvlink_domain_vms, 18);
  EXPECT_EQ(e->nvlink_domain_gpus, 72);
  EXPECT_EQ(e->ib_ports, 4);
  EXPECT_DOUBLE_EQ(e->ib_rate_gbits_per_s, 800);
  EXPECT_DOUBLE_EQ(e->frontend_nic_gbits_per_s, 160);
  EXPECT_EQ(e->nvme_disks, 4);
  EXPECT_FALSE(e->nccl_allreduce_floor_gbytes_per_s.has_value());
  EXPECT_NE(c.source_text(e->no_floor_reason), e->no_floor_reason);
  EXPECT_TRUE(e->peak_dense_tflops.empty());
  EXPECT_NE(c.source_text(e->peak_source), e->peak_source);
  ASSERT_EQ(e->published_thresholds.size(), 3u);
  const PublishedThreshold& intra = e->published_thresholds[0];
  EXPECT_EQ(intra.applies, "nvlink_domain");
  EXPECT_DOUBLE_EQ(intra.warn_below, 800);
  EXPECT_DOUBLE_EQ(intra.ghr_below, 600);
  const PublishedThreshold& inter = e->published_thresholds[1];
  EXPECT_EQ(inter.applies, "across_domains");
  EXPECT_DOUBLE_EQ(inter.warn_below, 180);
  EXPECT_DOUBLE_EQ(inter.ghr_below, 150);
  for (const PublishedThreshold& t : e->published_thresholds)
    EXPECT_NE(c.source_text(t.source).find("ai-infrastructure-on-azure"), std::string::npos);
}

// Every source key a size names (nvlink domain, planner figure, no-floor reason, thresholds, GPU
// peak) is listed in "sources": a key with no text is a number without a source.
TEST(Catalog, EverySourceKeyIsListed) {
  const Catalog& c = Catalog::builtin();
  for (const SkuEntry& e : c.skus()) {
    for (const std::string* k : {&e.nvlink_domain_source, &e.no_floor_reason,
                                 &e.planner_intra_vm_allreduce_source, &e.peak_source}) {
      if (!k->empty()) {
        EXPECT_NE(c.source_text(*k), *k) << e.name << ": " << *k;
      }
    }
    for (const PublishedThreshold& t : e.published_thresholds)
      EXPECT_NE(c.source_text(t.source), t.source) << e.name;
  }
}

TEST(Catalog, PublishedThresholdsMustBeOrdered) {
  const std::string bad = R"({"skus": [{"name": "X", "gpu": {"vendor": "nvidia", "model": "M",
    "count": 1, "memory_gb": 1}, "infiniband": {"ports": 0, "rate_gbits_per_s": 0},
    "frontend_nic_gbits_per_s": 1, "source": "s", "date": "d",
    "published_thresholds": [{"metric": "m", "applies": "gpu", "expected": 10,
      "warn_below": 5, "ghr_below": 8, "source": "s"}]}]})";
  EXPECT_THROW(Catalog::parse(bad, "bad.json"), InputError);
}
