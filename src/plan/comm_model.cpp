#include "plan/comm_model.h"

#include <algorithm>

#include "catalog/vm_network.h"

namespace trainready {
namespace {

constexpr const char* kBusbw =
    "nccl-tests doc/PERFORMANCE.md (busbw); hierarchical ring min(NVLink, NICs) calibrated on "
    "NVIDIA/nccl#1576 (192 GB/s on 8 × HDR) and nccl-tests#267 (48-49 GB/s per NDR HCA)";
constexpr const char* kZeroVolume =
    "Rajbhandari et al. 2019, ZeRO (arXiv:1910.02054) §7; per micro-batch reduction of ZeRO-2/3: "
    "deepspeedai/DeepSpeed#2252; b_g = the gradient-reduce dtype (DeepSpeed default: the training "
    "dtype; Megatron-LM: fp32 unless --grad-reduce-in-bf16)";

}  // namespace

Quantity ethernet_bytes_per_s(const SkuEntry& sku, double ethernet_efficiency) {
  Quantity q =
      quantity(sku.frontend_nic_gbits_per_s * 1e9 / 8 * ethernet_efficiency, "B/s",
               "front-end NIC / 8 × Ethernet efficiency",
               "Azure size page (NIC); efficiency: planner assumption, 2 × ND96isr_H100_v5 "
               "over NCCL sockets measured 0.6-3 GB/s of a nominal 10");
  q.in("frontend_nic", sku.frontend_nic_gbits_per_s * 1e9, "bit/s")
      .in("efficiency", ethernet_efficiency);
  return q;
}

Quantity data_parallel_busbw(const BusbwInputs& in) {
  const SkuEntry& sku = *in.sku;
  const double intra = sku.intra_vm_allreduce_gbytes_per_s().value_or(0) * 1e9;
  if (in.vms > 1 && in.vms <= sku.nvlink_domain_vms) {
    // GB200 NVL72: the VMs of one rack share one NVLink fabric; InfiniBand joins racks only.
    std::string source = sku.nvlink_domain_source.empty() ? std::string("catalog nvlink_domain")
                                                          : "catalog " + sku.nvlink_domain_source;
    if (!sku.nccl_allreduce_floor_gbytes_per_s && sku.planner_intra_vm_allreduce_gbytes_per_s)
      source += "; figure: catalog planner assumption " + sku.planner_intra_vm_allreduce_source +
                " (no published floor)";
    Quantity q = quantity(
        intra, "B/s", "single-VM all-reduce busbw: the VMs share one NVLink domain (rack)", source);
    q.in("intra_vm", intra, "B/s").in("vms", in.vms).in("nvlink_domain_vms", sku.nvlink_domain_vms);
    return q;
  }
  if (in.vms <= 1) {
    Quantity q =
        quantity(intra, "B/s", "single-VM all-reduce busbw (catalog)",
                 sku.nccl_allreduce_floor_gbytes_per_s
                     ? "Azure/azurehpc-health-checks conf (the node health floor)"
                     : "catalog planner assumption " + sku.planner_intra_vm_allreduce_source +
                           " (no published floor)");
    q.in("intra_vm", intra, "B/s");
    return q;
  }
  const double network =
      vm_network_gbytes_per_s(sku, in.ib_efficiency, in.ethernet_efficiency) * 1e9;
  Quantity q;
  if (sku.has_infiniband()) {
    q.formula = "min(intra_vm_ring, HCAs × rate/8 × efficiency × ranks_per_vm/gpus_per_vm)";
    if (sku.nvlink_domain_vms > 1)
      q.formula += " (more VMs than one NVLink domain: InfiniBand between racks)";
    q.in("hcas", sku.ib_ports).in("rate", sku.ib_rate_gbits_per_s * 1e9, "bit/s");
    q.in("efficiency", in.ib_efficiency);
  } else {
    q.formula =
        "min(intra_vm_ring, front-end NIC/8 × Ethernet efficiency × ranks_per_vm/gpus_per_vm)";
    q.in("frontend_nic", sku.frontend_nic_gbits_per_s * 1e9, "bit/s");
    q.in("efficiency", in.ethernet_efficiency);
  }
  // Every data-parallel group of a VM syncs at once and they share the VM's network.
  const double share = static_cast<double>(std::max(1, in.dp_ranks_per_vm)) / sku.gpu_count;
  const double inter = network * share;
  // A ring across VMs goes through NVLink without SHARP: the ring figure where NVLS makes the
  // one-VM figure higher (370 vs 460 GB/s on ND H100 v5, NVIDIA/nccl-tests#212).
  const double ring = sku.nvlink_ring_allreduce_gbytes_per_s
                          ? *sku.nvlink_ring_allreduce_gbytes_per_s * 1e9
                          : intra;
  q.value = ring > 0 ? std::min(ring, inter) : inter;
  q.unit = "B/s";
  q.source = kBusbw;
  q.in("intra_vm_ring", ring, "B/s")
      .in("ranks_per_vm", in.dp_ranks_per_vm)
      .in("gpus_per_vm", sku.gpu_count);
  return q;
}

CommEstimate estimate_comm(const CommInputs& in) {
  CommEstimate c;
  const double psi = in.params / (in.tp * in.pp);
  const double n = std::max(1, in.dp);
  const double f = (n - 1) / n;
  double bytes = 0;
  std::string formula;
  const double k = std::max(1, in.accumulation);
  if (in.zero == 3) {
    // Every micro-batch gathers the parameters in forward and backward and reduce-scatters its
    // gradients after backward (DeepSpeed#2252): k·(2·b_w + b_g)·Ψ (ZeRO §7 for k = 1).
    bytes = k * (2.0 * in.weight_bytes + in.gradient_bytes) * psi * f;
    formula = "k·(2·b_w + b_g)·Ψ'·(n−1)/n (gradients reduce-scattered after every backward)";
  } else if (in.zero == 2 && in.dp > 1) {
    // ZeRO-2 reduce-scatters gradients after every backward, i.e. once per micro-batch
    // (DeepSpeed#2252), and all-gathers the updated parameters once per step.
    bytes = (k * in.gradient_bytes + in.weight_bytes) * psi * f;
    formula =
        "(k·b_g + b_w)·Ψ'·(n−1)/n (gradients reduce-scattered after every backward, parameters "
        "all-gathered once per step)";
  } else if (in.dp > 1) {
    bytes = 2 * in.gradient_bytes * psi * f;
    formula =
        "2·b_g·Ψ'·(n−1)/n (all-reduce = reduce-scatter + all-gather, once per step: DDP and "
        "ZeRO-1 accumulate locally)";
  } else {
    formula = "no data parallelism: no gradient traffic";
  }
  if (in.dp <= 1) bytes = 0;
  c.volume = quantity(bytes, "B", formula, kZeroVolume);
  c.volume.in("Ψ'", psi).in("n", n).in("k", in.accumulation).in("b_w", in.weight_bytes, "B");
  c.volume.in("b_g", in.gradient_bytes, "B");
  const double t = bytes > 0 && in.busbw > 0 ? bytes / in.busbw : 0;
  c.seconds = quantity(t, "s", "volume / busbw", kBusbw);
  c.seconds.in("volume", bytes, "B").in("busbw", in.busbw, "B/s");
  // Across InfiniBand domains each VM exchanges its shard of the reduced gradients over Ethernet.
  double cross = 0;
  if (in.domains > 1 && in.ethernet_per_vm > 0) {
    const double d = in.domains;
    const double grads =
        (in.zero == 3 ? in.gradient_bytes + 2.0 * in.weight_bytes : 2 * in.gradient_bytes) / 2;
    cross = 2 * (d - 1) / d * grads * psi / std::max(1, in.vms_per_domain) / in.ethernet_per_vm;
  }
  c.cross_domain_seconds = quantity(cross, "s",
                                    "2·(D−1)/D × shard per VM / Ethernet per VM (domains joined "
                                    "over the front-end network)",
                                    "planner model: hierarchical all-reduce across domains");
  c.cross_domain_seconds.in("domains", in.domains).in("vms_per_domain", in.vms_per_domain);
  c.cross_domain_seconds.in("ethernet_per_vm", in.ethernet_per_vm, "B/s");
  // Bucketed all-reduce overlaps the backward pass; ZeRO-3 prefetches parameters during the
  // forward pass as well.
  const double window = in.zero == 3 ? in.compute_seconds : in.backward_seconds;
  const double exposed = std::max(0.0, t + cross - in.overlap * window);
  c.exposed_seconds = quantity(exposed, "s", "max(0, comm − overlap × window)",
                               "planner assumption: overlap 0.7-0.9 with bucketed all-reduce");
  c.exposed_seconds.in("comm", t + cross, "s").in("overlap", in.overlap).in("window", window, "s");
  return c;
}

ModelParallelEstimate estimate_model_parallel(const ModelParallelInputs& in) {
  ModelParallelEstimate e;
  const double message = static_cast<double>(in.seq) * in.micro_batch * in.hidden *
                         in.activation_bytes;  // s·b·h, bytes
  const double layers_per_gpu =
      in.layers > 0 ? static_cast<double>(in.layers) / std::max(1, in.pp) : 0;
  const int per_layer = in.full_recompute ? 6 : 4;
  double tp = 0;
  if (in.tp > 1 && in.tp_busbw > 0)
    tp = in.micro_batches * layers_per_gpu * per_layer * message * 2.0 * (in.tp - 1) / in.tp /
         in.tp_busbw;
  e.tp_seconds = quantity(tp, "s", "m × (L/pp) × n_ar × s·b·h·bytes × 2(t−1)/t / busbw_NVLink",
                          "Shoeybi et al. 2019 (arXiv:1909.08053) §3 Fig. 4: 2 all-reduces "
                          "forward + 2 backward per layer (n_ar = 4, 6 with full recomputation); "
                          "Korthikanti et al. 2022 (arXiv:2205.05198) §4.2.2: sequence "
                          "parallelism, same volume; ring: nccl-tests PERFORMANCE.md");
  e.tp_seconds.in("m", in.micro_batches).in("layers_per_gpu", layers_per_gpu);
  e.tp_seconds.in("n_ar", per_layer).in("message", message, "B").in("t", in.tp);
  e.tp_seconds.in("busbw", in.tp_busbw, "B/s");
  double pp = 0;
  const int vp = std::max(1, in.vp);
  if (in.pp > 1 && in.pp_bytes_per_s > 0)
    pp = 2.0 * vp * in.micro_batches * message / in.pp_bytes_per_s;
  e.pp_seconds = quantity(pp, "s", "2 × v × m × s·b·h·bytes / network per GPU",
                          "Narayanan et al. 2021 (arXiv:2104.04473) §3.2: point-to-point of "
                          "b·s·h per micro-batch between consecutive stages, forward and "
                          "backward; §2.2.2: interleaving with v virtual stages sends v times "
                          "as much");
  e.pp_seconds.in("v", vp).in("m", in.micro_batches).in("message", message, "B");
  e.pp_seconds.in("network_per_gpu", in.pp_bytes_per_s, "B/s");
  e.seconds = quantity(tp + pp, "s", "tensor-parallel + pipeline-parallel traffic, exposed",
                       "planner assumption: no overlap with compute (an upper bound)");
  e.seconds.in("tp", tp, "s").in("pp", pp, "s");
  return e;
}

}  // namespace trainready
