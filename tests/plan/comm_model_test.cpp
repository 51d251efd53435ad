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
  // DeepSpeed#2252: ZeRO-2 and ZeRO-3 reduce gradients after every backward, once per
  // micro-batch. ZeRO-3 with k = 4: 4·(2 + 1)Ψ = 12Ψ, 6x DDP (the old model said (2k + 1)Ψ,
  // 4.5x); ZeRO-2: (4 + 1)Ψ, 2.5x DDP (the old model said DDP's 2Ψ).
  CommInputs k4 = base(3);
  k4.accumulation = 4;
  EXPECT_NEAR(estimate_comm(k4).volume.value / estimate_comm(base(0)).volume.value, 6.0, 1e-12);
  CommInputs z2 = base(2);
  z2.accumulation = 4;
  EXPECT_NEAR(estimate_comm(z2).volume.value / estimate_comm(base(0)).volume.value, 2.5, 1e-12);
  // DDP and ZeRO-1 accumulate locally and reduce once per step, whatever k.
  CommInputs d4 = base(0);
  d4.accumulation = 4;
  EXPECT_DOUBLE_EQ(estimate_comm(d4).volume.value, estimate_comm(base(0)).volume.value);
  CommInputs single = base(0);
  single.dp = 1;
  EXPECT_EQ(estimate_comm(single).volume.value, 0);
}

// Megatron-LM reduces gradients in fp32 unless --grad-reduce-in-bf16: 4 bytes on the wire
// double DDP's gradient traffic.
TEST(CommModel, GradientReduceDtypeScalesTheGradientTraffic) {
  CommInputs fp32 = base(0);
  fp32.gradient_bytes = 4;
  EXPECT_NEAR(estimate_comm(fp32).volume.value / estimate_comm(base(0)).volume.value, 2.0, 1e-12);
  EXPECT_NE(estimate_comm(fp32).volume.source.find("grad-reduce-in-bf16"), std::string::npos);
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

// One VM: the health-check floor (460 GB/s on ND96isr_H100_v5, with NVLS). Several: min(the
// ring's NVLink figure 370 GB/s (NVIDIA/nccl-tests#212), 8 HCAs x 400 Gb/s / 8 x 0.95 = 380
// GB/s), the figure docs/busbw.md derives for nccl-tests; the maintainers' 192 GB/s on 8 x HDR
// is ND96amsr_A100_v4's 190.
TEST(CommModel, HierarchicalBusbw) {
  BusbwInputs in;
  in.sku = &sku("Standard_ND96isr_H100_v5");
  in.vms = 1;
  in.dp_ranks_per_vm = 8;
  EXPECT_NEAR(data_parallel_busbw(in).value, 460e9, 1);
  in.vms = 4;
  EXPECT_NEAR(data_parallel_busbw(in).value, 370e9, 1);
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

// ND GB200 v6: NVL72 joins 18 VMs (72 GPUs) per rack over NVLink; InfiniBand only between racks
// (Azure ND GB200 v6 summary). The old model bounded 2 VMs of one rack by 4 x 400 Gb/s.
TEST(CommModel, Gb200VmsOfOneRackStayOnNvlink) {
  BusbwInputs in;
  in.sku = &sku("Standard_ND128isr_NDR_GB200_v6");
  in.dp_ranks_per_vm = 4;
  in.vms = 18;
  // No published floor (domain review 3, finding 4): the catalog's labelled planner assumption.
  const Quantity q = data_parallel_busbw(in);
  EXPECT_NEAR(q.value, *in.sku->planner_intra_vm_allreduce_gbytes_per_s * 1e9, 1);
  EXPECT_NE(q.source.find("planner assumption"), std::string::npos) << q.source;
  in.vms = 19;
  EXPECT_NEAR(data_parallel_busbw(in).value, 4 * 400e9 / 8 * 0.95, 1);
}

// NC A100 v4: NVLink (size page) and AzNHC's floors, not the old 20 GB/s PCIe-ring guess.
TEST(CommModel, NcA100V4UsesTheHealthCheckFloors) {
  BusbwInputs in;
  in.sku = &sku("Standard_NC48ads_A100_v4");
  EXPECT_NEAR(data_parallel_busbw(in).value, 193e9, 1);
  in.sku = &sku("Standard_NC96ads_A100_v4");
  EXPECT_NEAR(data_parallel_busbw(in).value, 25e9, 1);
}

}  // namespace
}  // namespace trainready
