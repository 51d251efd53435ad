// A function name's part of NCCL (facts/nccl_code_area.h), and the reading of each module.
#include "facts/nccl_code_area.h"

#include <gtest/gtest.h>

#include "knowledge/nccl_code_areas.h"

namespace trainready {
namespace {

TEST(NcclCodeArea, ApiAndItsProfilingAliases) {
  EXPECT_EQ(nccl_code_area("ncclAllReduce"), NcclCodeArea::kApi);
  EXPECT_EQ(nccl_code_area("ncclRecv"), NcclCodeArea::kApi);
  EXPECT_EQ(nccl_code_area("pncclRedOpDestroy"), NcclCodeArea::kApi);
  EXPECT_EQ(nccl_code_area("ncclEnqueueCheck"), NcclCodeArea::kOther);
  EXPECT_EQ(nccl_code_area_reading(NcclCodeArea::kApi), nullptr);
  EXPECT_EQ(nccl_code_area_reading(NcclCodeArea::kOther), nullptr);
}

TEST(NcclCodeArea, ModulesByTheirNames) {
  EXPECT_EQ(nccl_code_area("rasMsgHandlePeersUpdate"), NcclCodeArea::kRas);
  EXPECT_EQ(nccl_code_area("ncclRasCommInit"), NcclCodeArea::kRas);
  EXPECT_EQ(nccl_code_area("ncclNvlsSetup"), NcclCodeArea::kNvls);
  EXPECT_EQ(nccl_code_area("ncclIbConnect"), NcclCodeArea::kIb);
  EXPECT_EQ(nccl_code_area("shmSendSetup"), NcclCodeArea::kShm);
  EXPECT_EQ(nccl_code_area("ncclProxyService"), NcclCodeArea::kProxy);
  EXPECT_EQ(nccl_code_area("ncclTopoCompute"), NcclCodeArea::kTopology);
  EXPECT_EQ(nccl_code_area("bootstrapAllGather"), NcclCodeArea::kBootstrap);
  for (NcclCodeArea a :
       {NcclCodeArea::kRas, NcclCodeArea::kNvls, NcclCodeArea::kCollNet, NcclCodeArea::kIb,
        NcclCodeArea::kShm, NcclCodeArea::kP2p, NcclCodeArea::kProfiler, NcclCodeArea::kBootstrap,
        NcclCodeArea::kProxy, NcclCodeArea::kTopology}) {
    const NcclCodeAreaReading* r = nccl_code_area_reading(a);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->area, a);
    EXPECT_FALSE(r->cause.empty());
    EXPECT_FALSE(r->confirm.empty());
  }
}

// NCCL's names are camelCase after the prefix: other programs' words are not NCCL's.
TEST(NcclCodeArea, OtherNamesAreNotNcclS) {
  EXPECT_EQ(nccl_code_area("rasterize"), NcclCodeArea::kUnknown);
  EXPECT_EQ(nccl_code_area("proxy_pass"), NcclCodeArea::kUnknown);
  EXPECT_EQ(nccl_code_area("ras"), NcclCodeArea::kUnknown);
  EXPECT_EQ(nccl_code_area("PyObject_Call"), NcclCodeArea::kUnknown);
  EXPECT_EQ(nccl_code_area("nccl"), NcclCodeArea::kUnknown);
}

}  // namespace
}  // namespace trainready
