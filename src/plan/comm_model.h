#pragma once
// Gradient and parameter communication per optimizer step, on a hierarchical all-reduce: NVLink
// (or PCIe) inside a VM, InfiniBand (or the front-end Ethernet for sizes without it) between
// VMs, and Ethernet again between InfiniBand domains when a job outgrows one.
#include <string>

#include "catalog/catalog.h"
#include "plan/quantity.h"

namespace trainready {

struct BusbwInputs {
  const SkuEntry* sku = nullptr;
  int vms = 1;
  int dp_ranks_per_vm = 1;  // ranks of one data-parallel group on each VM
  double ib_efficiency = kDefaultIbEfficiency;
  double ethernet_efficiency = 0.25;
};

// Bus bandwidth one data-parallel group's all-reduce reaches, bytes/s. One VM: the catalog's
// single-VM figure. Several: min(that, VM network / concurrent groups per VM), the VM network
// being HCAs × rate/8 × efficiency, or the front-end NIC/8 × Ethernet efficiency.
Quantity data_parallel_busbw(const BusbwInputs& in);
// The front-end network of one VM that NCCL's TCP transport reaches, bytes/s.
Quantity ethernet_bytes_per_s(const SkuEntry& sku, double ethernet_efficiency);

struct CommInputs {
  double params = 0;
  double weight_bytes = 2;    // b_w
  double gradient_bytes = 2;  // b_g: bytes per gradient element on the wire
  int zero = 0;
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int accumulation = 1;  // micro-batches per optimizer step
  double busbw = 0;      // bytes/s, from data_parallel_busbw
  // Several InfiniBand domains joined over Ethernet: their count, VMs in each, Ethernet per VM.
  int domains = 1;
  int vms_per_domain = 1;
  double ethernet_per_vm = 0;
  double compute_seconds = 0;
  double backward_seconds = 0;
  double overlap = 0.8;
};

struct CommEstimate {
  // Bytes each GPU sends per step: 2Ψ for DDP/ZeRO-1, (k + 1)Ψ for ZeRO-2, 3kΨ for ZeRO-3
  // (ZeRO §7 with k micro-batches per step, DeepSpeed#2252).
  Quantity volume;
  Quantity seconds;  // time of that traffic at busbw
  Quantity cross_domain_seconds;
  Quantity exposed_seconds;  // not hidden behind compute
};

CommEstimate estimate_comm(const CommInputs& in);

// Model-parallel traffic of one optimizer step, counted as exposed (not hidden behind compute).
// Tensor parallelism, inside a VM over NVLink: per layer and micro-batch two all-reduces of
// s·b·h activations forward and two backward (Shoeybi et al. 2019, Megatron-LM §3, Fig. 4), a
// third forward pass's two more with full recomputation; with sequence parallelism each becomes
// an all-gather plus a reduce-scatter of the same bus volume (Korthikanti et al. 2022 §4.2.2).
// Ring time per all-reduce: bytes · 2(t−1)/t / busbw (nccl-tests PERFORMANCE.md). Pipeline
// parallelism, point-to-point across VMs: each stage sends s·b·h activations forward and
// receives their gradient per micro-batch (Narayanan et al. 2021 §3.2), at the VM network's
// share per GPU.
struct ModelParallelInputs {
  int tp = 1;
  int pp = 1;
  int layers = 0;
  int hidden = 0;
  int seq = 0;
  int micro_batch = 1;
  int micro_batches = 1;        // per optimizer step
  int vp = 1;                   // virtual stages: interleaving sends v times as often
  double activation_bytes = 2;  // bf16/fp16 activations
  bool full_recompute = false;
  double tp_busbw = 0;        // single-VM all-reduce busbw, B/s
  double pp_bytes_per_s = 0;  // per GPU across VMs, B/s
};

struct ModelParallelEstimate {
  Quantity tp_seconds;
  Quantity pp_seconds;
  Quantity seconds;  // tp + pp
};

ModelParallelEstimate estimate_model_parallel(const ModelParallelInputs& in);

}  // namespace trainready
