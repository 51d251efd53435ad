// The Xid table (src/catalog/xid_catalog.cpp) against NVIDIA's catalog (domain-review-3
// finding 13): every in-use code is a row, in order, once.
#include <gtest/gtest.h>

#include <set>

#include "catalog/xid_catalog.h"

using namespace trainready;

// The codes of NVIDIA's Xid catalog sheet whose description is not "Unused" (leptonai/gpud
// components/accelerator/nvidia/xid/catalog_generated.go, generated 2025-10-29 from
// docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html).
constexpr int kInUse[] = {
    8,   11,  13,  25,  31,  32,  37,  38,  39,  40,  41,  43,  44,  45,  46,  48,  54,  60,  62,
    63,  64,  66,  67,  68,  69,  70,  71,  72,  74,  75,  76,  77,  78,  79,  80,  82,  83,  84,
    85,  86,  88,  89,  92,  93,  94,  95,  96,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106,
    107, 109, 110, 119, 120, 121, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 139,
    140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158,
    159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172};

TEST(XidCatalog, EveryInUseCodeIsARowOnceInOrder) {
  std::set<int> rows;
  int last = 0;
  for (const XidInfo& x : xid_catalog()) {
    EXPECT_GT(x.code, last) << "rows out of order or repeated at " << x.code;
    last = x.code;
    rows.insert(x.code);
    EXPECT_FALSE(x.mnemonic.empty()) << x.code;
    EXPECT_FALSE(x.description.empty()) << x.code;
    EXPECT_NE(x.description, "Unused") << x.code;
  }
  const std::set<int> want(std::begin(kInUse), std::end(kInUse));
  EXPECT_EQ(rows, want);
  EXPECT_EQ(xid_catalog().size(), 109u);
}

// The rows the review named: 110 resets the GPU; 171/172 detail an Xid 48.
TEST(XidCatalog, RowsTheReviewNamed) {
  ASSERT_TRUE(xid_info(110));
  EXPECT_EQ(xid_info(110)->mnemonic, "SEC_FAULT_ERROR");
  EXPECT_EQ(xid_info(110)->immediate, "RESET_GPU");
  EXPECT_EQ(xid_info(137)->mnemonic, "NVLINK_PRIV_ERR");
  EXPECT_EQ(xid_info(141)->mnemonic, "ROBUST_CHANNEL_FAST_PATH_ERROR");
  EXPECT_EQ(xid_info(159)->immediate, "CHECK_UVM");
  EXPECT_EQ(xid_info(167)->mnemonic, "PCIE_FATAL_TIMEOUT");
  EXPECT_EQ(xid_info(171)->mnemonic, "UNCORRECTABLE_DRAM_ERROR");
  EXPECT_EQ(xid_info(172)->mnemonic, "UNCORRECTABLE_SRAM_ERROR");
  EXPECT_FALSE(xid_info(1));    // Unused
  EXPECT_FALSE(xid_info(108));  // Unused
}
