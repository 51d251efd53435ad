#pragma once
// Data demand of a job and what each storage option delivers to its VMs. Everything that
// reaches a VM over the VNet (Blob, blobfuse2, Azure Managed Lustre, NetApp Files) shares the
// VM's front-end NIC; InfiniBand carries only NCCL/MPI traffic. Local NVMe is read after staging.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/quantity.h"

namespace trainready {

struct DataInputs {
  const SkuEntry* sku = nullptr;
  const StorageCatalog* storage = nullptr;
  int vms = 1;
  int gpus = 1;
  double bytes_per_step = 0;  // global batch × bytes per sample
  double step_seconds = 0;    // one step without waiting for data
  double dataset_bytes = 0;
  // A rate each VM reads at that replaces the chosen option's (bytes/s): what `bench storage`
  // measured, for `plan --check`. Unset: the option's own figure.
  std::optional<double> delivered_per_vm;
};

struct StorageOption {
  std::string kind;  // nvme, blob, amlfs, anf
  std::string name;  // "local NVMe (staged)", "AMLFS-Durable-Premium-250, 16 TiB"
  bool feasible = false;
  std::string why_not;
  std::optional<double> size_tib;
  // The catalog tier an Azure Managed Lustre option was sized for: `plan --emit` rounds and
  // checks the file system against the same minimum, maximum and increment.
  std::optional<AmlfsTier> amlfs_tier;
  Quantity per_vm;  // bytes/s this option delivers to each VM of the job
  std::optional<Quantity> staging_seconds;
  bool meets_demand = false;
};

struct DataEstimate {
  Quantity demand_total;  // bytes/s the GPUs consume at the predicted step time
  Quantity demand_per_vm;
  Quantity demand_per_gpu;
  std::vector<StorageOption> options;
  int chosen = -1;
  std::string reason;
  Quantity read_seconds;     // one step's data from the chosen option
  Quantity exposed_seconds;  // what prefetching cannot hide
};

DataEstimate estimate_data(const DataInputs& in);

}  // namespace trainready
