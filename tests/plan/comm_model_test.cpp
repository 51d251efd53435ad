// The communication model: ZeRO §7 volumes, the hierarchical bus bandwidth, overlap.
#include "plan/comm_model.h"

#include <gtest/gtest.h>

namespace trainready {
namespace {

const SkuEntry& sku(const char* name) { return *Catalog::builtin().find(name); }

CommInputs base(int zero) {
  CommInputs in;
  in.params = 7.5e9;
  in.zero = zero;
  in.dp = 64;
  in.busbw = 100e9;
  return in;
}

// Rajbhandari et al. 2019 §7: DDP, ZeRO-1 and ZeRO-2 move 2Ψ per step, ZeRO-3 3Ψ (1.5x).
TEST(CommModel, ZeroVolumes) {
  const double f = 63.0 / 64;
  EXPECT_NEAR(estimate_comm(base(0)).volume.value, 2 * 2 * 7.5e9 * f, 1);
  EXPECT_DOUBLE_EQ(estimate_comm(base(1)).volume.value, estimate_comm(base(0)).volume.value);
  EXPECT_DOUBLE_EQ(estimate_comm(base(2)).volume.value, estimate_comm(base(0)).volume.value);
  EXPECT_NEAR(estimate_comm(base(3)).volume.value / estimate_comm(base(0)).volume.value, 1.5,
              1e-12);
  // ZeRO-3 gathers parameters again for every micro-batch: (2k + 1)Ψ.
  CommInputs k4 = base(3);
  k4.accumulation = 4;
  EXPECT_NEAR(estimate_comm(k4).volume.value / estimate_comm(base(0)).volume.value, 9.0 / 2, 1e-12);
  CommInputs single = base(0);
  single.dp = 1;
  EXPECT_EQ(estimate_comm(single).volume.value, 0);
}

TEST(CommModel, TimeIsVolumeOverBusbwAndOverlapHidesPartOfIt) {
  CommInputs in = base(0);
  in.backward_seconds = 0.2;
  in.overlap = 0.5;
  CommEstimate c = estimate_comm(in);
  EXPECT_NEAR(c.seconds.value, c.volume.value / 100e9, 1e-12);
  EXPECT_NEAR(c.exposed_seconds.value, c.seconds.value - 0.1, 1e-12);
  in.backward_seconds = 10;
  EXPECT_EQ(estimate_comm(in).exposed_seconds.value, 0);
}

// One VM: the health-check floor (460 GB/s on ND96isr_H100_v5). Several: min(that, 8 HCAs x
// 400 Gb/s / 8 x 0.95 = 380 GB/s), the figure docs/busbw.md derives for nccl-tests; the
// maintainers' 192 GB/s on 8 x HDR is ND96amsr_A100_v4's 190.
TEST(CommModel, HierarchicalBusbw) {
  BusbwInputs in;
  in.sku = &sku("Standard_ND96isr_H100_v5");
  in.vms = 1;
  in.dp_ranks_per_vm = 8;
  EXPECT_NEAR(data_parallel_busbw(in).value, 460e9, 1);
  in.vms = 4;
  EXPECT_NEAR(data_parallel_busbw(in).value, 380e9, 1);
  in.sku = &sku("Standard_ND96amsr_A100_v4");
  EXPECT_NEAR(data_parallel_busbw(in).value, 190e9, 1);
  // Tensor parallelism 8 leaves one rank of each data-parallel group per VM: the eight groups
  // share the VM's HCAs, one each.
  in.sku = &sku("Standard_ND96isr_H100_v5");
  in.dp_ranks_per_vm = 1;
  EXPECT_NEAR(data_parallel_busbw(in).value, 47.5e9, 1);
}

TEST(CommModel, WithoutInfinibandTheFrontEndNicCarriesIt) {
  BusbwInputs in;
  in.sku = &sku("Standard_NC80adis_H100_v5");
  in.vms = 4;
  in.dp_ranks_per_vm = 2;
  in.ethernet_efficiency = 0.25;
  EXPECT_NEAR(data_parallel_busbw(in).value, 80e9 / 8 * 0.25, 1);
  EXPECT_NEAR(ethernet_bytes_per_s(*in.sku, 0.25).value, 2.5e9, 1);
}

TEST(CommModel, DomainsJoinedOverEthernetAddTime) {
  CommInputs in = base(0);
  in.domains = 2;
  in.vms_per_domain = 200;
  in.ethernet_per_vm = 2.5e9;
  CommEstimate c = estimate_comm(in);
  EXPECT_NEAR(c.cross_domain_seconds.value, 2 * 0.5 * 2 * 7.5e9 / 200 / 2.5e9, 1e-12);
  EXPECT_EQ(estimate_comm(base(0)).cross_domain_seconds.value, 0);
}

}  // namespace
}  // namespace trainready
