#pragma once
// The VM catalog: data in data/catalog.json, compiled in as the default, overridable with
// --catalog FILE. Every entry says where its numbers came from and when.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct SkuPrice {
  std::string region;
  std::string kind;  // pay-as-you-go, spot
  std::string os;
  double usd_per_hour = 0;
  std::string source;
  std::string date;
};

struct SkuEntry {
  std::string name;  // Standard_ND96isr_H100_v5
  std::string family;
  std::string gpu_vendor;  // nvidia, amd
  std::string gpu_model;
  int gpu_count = 0;
  double gpu_memory_gb = 0;
  std::string gpu_link;
  int ib_ports = 0;
  double ib_rate_gbits_per_s = 0;
  std::string ib_generation;
  std::string ib_hca;
  bool gpudirect_rdma = false;
  double frontend_nic_gbits_per_s = 0;
  int nvme_disks = 0;
  double nvme_total_gib = 0;
  std::optional<double> nccl_allreduce_floor_gbytes_per_s;
  std::string nccl_allreduce_message;
  std::optional<double> ib_write_bw_gdr_floor_gbits_per_s;
  std::string nccl_topo_file;
  std::string multi_node_alternative;
  std::vector<SkuPrice> prices;
  std::string source;
  std::string date;

  bool has_infiniband() const { return ib_ports > 0; }
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

 private:
  std::vector<SkuEntry> skus_;
  std::string origin_;
};

}  // namespace trainready
