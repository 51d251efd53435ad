#pragma once
// The VM catalog: data in data/catalog.json, compiled in as the default, overridable with
// --catalog FILE. Every entry says where its numbers came from and when.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// The share of the InfiniBand line rate NCCL's all-reduce reaches between VMs: AzNHC's
// ND96isr_H100_v5 floor, 380 Gb/s of 400 per HCA (ib_write_bw GDR), is 0.95. docs/busbw.md.
inline constexpr double kDefaultIbEfficiency = 0.95;

// The share of the front-end NIC NCCL reaches over TCP sockets between VMs (sizes without
// InfiniBand, or NCCL_NET=Socket). Measured on 2 x ND96isr_H100_v5 with NCCL_NET=Socket: 0.64 GB/s
// busbw at 1 GB, ~3.2 GB/s as reported in aggregate, of a 10 GB/s NIC (0.06-0.32; the
// jingchaozhang.github.io IB-vs-Ethernet post, NCCL 2.23.4). 0.25 sits near the top of that range,
// so a run judged below it is short by any reading. The planner and the busbw rule share it.
inline constexpr double kDefaultEthernetEfficiency = 0.25;

struct SkuPrice {
  std::string region;
  std::string kind;  // pay-as-you-go, spot
  std::string os;
  double usd_per_hour = 0;
  std::string source;
  std::string date;
  // True only when the figure was captured from the named source itself; a quote found in
  // someone else's fixture or page is not (data/catalog.json says which).
  bool verified = false;
};

// A level the vendor publishes with two steps (Microsoft's SKU baselines: "Warn" = re-test,
// "GHR" = drain the node and file an Azure Guest Health Report). Values in the metric's unit.
struct PublishedThreshold {
  std::string metric;   // "nccl_allreduce_busbw_gbytes_per_s", "gemm_tflops_per_gpu"
  std::string applies;  // "nvlink_domain" (VMs of one rack), "across_domains", "gpu"
  std::string scope;    // as published: "intra-rack all_reduce over multi-node NVLink, ..."
  std::string message;  // nccl-tests message size it was measured at ("16G"), "" when none
  std::string unit;     // "GB/s", "TFLOP/s": the unit of expected, warn_below and ghr_below
  double expected = 0;
  double warn_below = 0;
  double ghr_below = 0;
  std::string source;  // source key
};

struct SkuEntry {
  std::string name;  // Standard_ND96isr_H100_v5
  std::string family;
  std::string gpu_vendor;  // nvidia, amd
  std::string gpu_model;
  int gpu_count = 0;
  double gpu_memory_gb = 0;
  std::string gpu_link;
  // GPUs of several VMs joined by one NVLink fabric (GB200 NVL72: 72 GPUs, 18 VMs per rack).
  // 1 VM = no NVLink between VMs.
  int nvlink_domain_vms = 1;
  int nvlink_domain_gpus = 0;
  std::string nvlink_domain_source;
  int ib_ports = 0;
  double ib_rate_gbits_per_s = 0;
  std::string ib_generation;
  std::string ib_hca;
  bool gpudirect_rdma = false;
  double frontend_nic_gbits_per_s = 0;
  int nvme_disks = 0;
  double nvme_total_gib = 0;
  std::optional<double> nccl_allreduce_floor_gbytes_per_s;
  // Source key saying why there is no floor ("no published floor: ..."), when there is none.
  std::string no_floor_reason;
  std::vector<PublishedThreshold> published_thresholds;
  std::string nccl_allreduce_message;
  std::optional<double> ib_write_bw_gdr_floor_gbits_per_s;
  // Ring all-reduce busbw inside one VM (NCCL_ALGO=RING, no NVLink SHARP): what a multi-VM ring
  // can carry through NVLink, and what one VM reaches when NVLS is off. Only where the NVLS
  // floor above differs from it (NVSwitch sizes with NVLS); the source key says who measured it.
  std::optional<double> nvlink_ring_allreduce_gbytes_per_s;
  std::string nvlink_ring_source;
  std::string nccl_topo_file;
  // What Azure's HPC image sets up on this size (azhpc-images SKU customizations): /etc/nccl.conf
  // entries, and whether NVIDIA Fabric Manager (NVSwitch) must be active.
  std::map<std::string, std::string> image_nccl_conf;
  bool fabric_manager = false;
  std::string image_source;
  std::string multi_node_alternative;
  std::vector<SkuPrice> prices;
  std::string source;
  std::string date;
  // Planner inputs: dense tensor-core peak per precision ("bf16", "fp16", "fp8", "tf32") and
  // the source key; an all-reduce figure inside the VM where no health-check floor exists.
  std::map<std::string, double> peak_dense_tflops;
  std::string peak_source;
  std::optional<double> planner_intra_vm_allreduce_gbytes_per_s;
  std::string planner_intra_vm_allreduce_source;  // source key: a planner assumption, never a floor

  bool has_infiniband() const { return ib_ports > 0; }
  // The single-VM all-reduce busbw the planner uses: the health floor, else the planner figure.
  std::optional<double> intra_vm_allreduce_gbytes_per_s() const {
    return nccl_allreduce_floor_gbytes_per_s ? nccl_allreduce_floor_gbytes_per_s
                                             : planner_intra_vm_allreduce_gbytes_per_s;
  }
};

// Storage services the planner sizes (Azure first; the figures are the services' documented
// limits, each with its source).
struct AmlfsTier {
  std::string name;
  double mbytes_per_s_per_tib = 0;  // MB/s (1e6) per TiB of capacity
  double min_tib = 0;
  double max_tib = 0;
  double increment_tib = 0;
  // The service's capacities (create-file-system-resource-manager, "File system type and size
  // options"): the minimum plus whole increments, up to the maximum. The smallest capacity it
  // provides that holds `tib` (it may exceed max_tib: capacity_problem says so).
  double round_capacity_tib(double tib) const;
  // Why the service refuses `tib` ("below the minimum of 16 TiB", ...), "" when it provides it.
  // Below the minimum and off the increments first; above the listed maximum last: that one the
  // service provides after an approved support request (create-file-system-resource-manager).
  std::string capacity_problem(double tib) const;
  bool above_listed_max(double tib) const {
    return tib > max_tib && capacity_problem(tib).rfind("above", 0) == 0;
  }
};

struct AnfLevel {
  std::string name;
  double mibytes_per_s_per_tib = 0;
};

struct StorageCatalog {
  std::vector<AmlfsTier> amlfs_tiers;
  std::string amlfs_source;
  double blob_egress_gbits_per_s = 0;
  double blob_requests_per_s = 0;
  std::string blob_source;
  std::vector<AnfLevel> anf_levels;
  double anf_volume_max_mibytes_per_s = 0;  // a large volume's ceiling
  // A regular volume: at most anf_regular_volume_max_mibytes_per_s (manual QoS) and
  // anf_regular_volume_max_tib; beyond either, a large volume of at least
  // anf_large_volume_min_tib (after a regional capacity quota increase).
  double anf_regular_volume_max_mibytes_per_s = 0;
  double anf_regular_volume_max_tib = 0;
  double anf_large_volume_min_tib = 0;
  std::string anf_source;
  double nvme_read_gbytes_per_s_per_disk = 0;
  std::string nvme_source;
  std::string date;
};

class Catalog {
 public:
  // Throws InputError naming `origin` (file and line) when the text is not a valid catalog.
  static Catalog parse(std::string_view json_text, const std::string& origin);
  static const Catalog& builtin();

  // Case-insensitive; accepts the name with or without the "Standard_" prefix.
  const SkuEntry* find(std::string_view vm_size) const;
  const std::vector<SkuEntry>& skus() const { return skus_; }
  const std::string& origin() const { return origin_; }
  const StorageCatalog& storage() const { return storage_; }
  // The text of a source key ("retail-prices"), or the key itself when it is not listed.
  std::string source_text(const std::string& key) const;

 private:
  std::vector<SkuEntry> skus_;
  StorageCatalog storage_;
  std::map<std::string, std::string> sources_;
  std::string origin_;
};

}  // namespace trainready
