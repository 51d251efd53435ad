#include "plan/data_model.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace trainready {
namespace {

constexpr double kTiB = 1099511627776.0;
// Streaming from Blob is chosen only with this much room: blobfuse2 falls short of the NIC with
// small files and many requests (20,000 per second per account).
constexpr double kBlobMargin = 4.0;

double nic_bytes_per_s(const SkuEntry& sku) { return sku.frontend_nic_gbits_per_s * 1e9 / 8; }

StorageOption blob_option(const DataInputs& in) {
  StorageOption o;
  o.kind = "blob";
  o.name = "Blob, streamed with blobfuse2 (block cache)";
  const double account = in.storage->blob_egress_gbits_per_s * 1e9 / 8;
  const double nic = nic_bytes_per_s(*in.sku);
  o.per_vm = quantity(std::min(nic, account / in.vms), "B/s",
                      "min(front-end NIC/8, account egress / VMs)", in.storage->blob_source);
  o.per_vm.in("frontend_nic", nic, "B/s").in("account_egress", account, "B/s").in("vms", in.vms);
  o.feasible = true;
  return o;
}

StorageOption nvme_option(const DataInputs& in, const StorageOption& blob) {
  StorageOption o;
  o.kind = "nvme";
  o.name = "local NVMe, staged from Blob before the run";
  const SkuEntry& sku = *in.sku;
  const double capacity = sku.nvme_total_gib * 1073741824.0;
  const int disks = sku.nvme_disks > 0 ? sku.nvme_disks : (capacity > 0 ? 1 : 0);
  const double per_disk = in.storage->nvme_read_gbytes_per_s_per_disk * 1e9;
  o.per_vm =
      quantity(disks * per_disk, "B/s", "disks × read rate per disk", in.storage->nvme_source);
  o.per_vm.in("disks", disks).in("per_disk", per_disk, "B/s");
  if (capacity <= 0) {
    o.why_not = sku.name + " has no local disk";
  } else if (in.dataset_bytes > 0.9 * capacity) {
    o.why_not = "the dataset (" + format_bytes_si(in.dataset_bytes) + ") does not fit in 90% of " +
                format_bytes_si(capacity) + " of local disk";
  } else {
    o.feasible = true;
  }
  Quantity staging = quantity(blob.per_vm.value > 0 ? in.dataset_bytes / blob.per_vm.value : 0, "s",
                              "dataset / Blob rate per VM (every VM holds a full copy)");
  staging.in("dataset", in.dataset_bytes, "B").in("blob_per_vm", blob.per_vm.value, "B/s");
  o.staging_seconds = staging;
  return o;
}

StorageOption amlfs_option(const DataInputs& in, const AmlfsTier& tier, double demand_total) {
  StorageOption o;
  o.kind = "amlfs";
  const double rate_per_tib = tier.mbytes_per_s_per_tib * 1e6;
  const double size =
      tier.round_capacity_tib(std::max(in.dataset_bytes / kTiB, demand_total / rate_per_tib));
  o.size_tib = size;
  o.amlfs_tier = tier;
  o.name = "Azure Managed Lustre " + tier.name + ", " + format_number(size, 4) + " TiB";
  const double total = size * rate_per_tib;
  const double nic = nic_bytes_per_s(*in.sku);
  o.per_vm = quantity(std::min(nic, total / in.vms), "B/s",
                      "min(front-end NIC/8, size_TiB × tier rate / VMs); size = max(tier minimum, "
                      "dataset, demand / tier rate) rounded up to the increment",
                      in.storage->amlfs_source);
  o.per_vm.in("size_tib", size).in("tier_rate_per_tib", rate_per_tib, "B/s");
  o.per_vm.in("frontend_nic", nic, "B/s").in("vms", in.vms);
  if (size > tier.max_tib) {
    o.why_not = format_number(size, 4) + " TiB exceeds the tier's " +
                format_number(tier.max_tib, 4) + " TiB (larger sizes by support request)";
  } else {
    o.feasible = true;
  }
  return o;
}

StorageOption anf_option(const DataInputs& in, const AnfLevel& level, double demand_total) {
  StorageOption o;
  o.kind = "anf";
  const StorageCatalog& st = *in.storage;
  const double rate_per_tib = level.mibytes_per_s_per_tib * 1048576.0;
  const double regular_ceiling = st.anf_regular_volume_max_mibytes_per_s * 1048576.0;
  const double large_ceiling = st.anf_volume_max_mibytes_per_s * 1048576.0;
  const double data_tib = std::ceil(in.dataset_bytes / kTiB);
  const double need = std::min(demand_total, large_ceiling);
  // A regular volume while it can carry the demand and hold the data; a large volume (50 TiB
  // and more, after a regional quota increase) only beyond that.
  double size =
      std::max({1.0, data_tib, std::ceil(std::min(need, regular_ceiling) / rate_per_tib)});
  const bool large = need > regular_ceiling || size > st.anf_regular_volume_max_tib;
  if (large)
    size = std::max({st.anf_large_volume_min_tib, data_tib, std::ceil(need / rate_per_tib)});
  const double ceiling = large ? large_ceiling : regular_ceiling;
  o.size_tib = size;
  o.name = "Azure NetApp Files " + level.name.substr(level.name.find(' ') + 1) + ", " +
           format_number(size, 4) + " TiB" +
           (large ? " large volume (request the regional capacity quota first)" : "");
  const double total = std::min(size * rate_per_tib, ceiling);
  const double nic = nic_bytes_per_s(*in.sku);
  o.per_vm = quantity(std::min(nic, total / in.vms), "B/s",
                      large ? "min(front-end NIC/8, min(size_TiB × level rate, large-volume "
                              "ceiling) / VMs)"
                            : "min(front-end NIC/8, min(size_TiB × level rate, regular-volume "
                              "ceiling) / VMs)",
                      st.anf_source);
  o.per_vm.in("size_tib", size).in("level_rate_per_tib", rate_per_tib, "B/s");
  o.per_vm.in("volume_ceiling", ceiling, "B/s").in("frontend_nic", nic, "B/s");
  o.feasible = true;
  return o;
}

}  // namespace

DataEstimate estimate_data(const DataInputs& in) {
  DataEstimate d;
  const double demand = in.step_seconds > 0 ? in.bytes_per_step / in.step_seconds : 0;
  d.demand_total = quantity(demand, "B/s", "bytes_per_step / step_seconds");
  d.demand_total.in("bytes_per_step", in.bytes_per_step, "B")
      .in("step_seconds", in.step_seconds, "s");
  d.demand_per_vm = quantity(demand / in.vms, "B/s", "demand / VMs");
  d.demand_per_vm.in("demand", demand, "B/s").in("vms", in.vms);
  d.demand_per_gpu = quantity(demand / in.gpus, "B/s", "demand / GPUs");
  d.demand_per_gpu.in("demand", demand, "B/s").in("gpus", in.gpus);
  const double per_vm = demand / in.vms;

  d.options.push_back(blob_option(in));
  d.options.push_back(nvme_option(in, d.options.front()));
  for (const AmlfsTier& t : in.storage->amlfs_tiers)
    d.options.push_back(amlfs_option(in, t, demand));
  for (const AnfLevel& l : in.storage->anf_levels) d.options.push_back(anf_option(in, l, demand));
  for (StorageOption& o : d.options) o.meets_demand = o.feasible && o.per_vm.value >= per_vm;

  auto index_of = [&](auto pred) {
    for (std::size_t i = 0; i < d.options.size(); ++i) {
      if (pred(d.options[i])) return static_cast<int>(i);
    }
    return -1;
  };
  const StorageOption& blob = d.options[0];
  if (blob.per_vm.value >= kBlobMargin * per_vm) {
    d.chosen = 0;
    d.reason = "the demand (" + format_rate_si(per_vm) +
               " per VM) is under a quarter of what Blob "
               "delivers to each VM (" +
               format_rate_si(blob.per_vm.value) +
               "): stream it, no "
               "staging or file system needed";
  } else if (d.options[1].meets_demand) {
    d.chosen = 1;
    d.reason = "the dataset fits on each VM's local NVMe, which reads " +
               format_rate_si(d.options[1].per_vm.value) + " against a demand of " +
               format_rate_si(per_vm) + " per VM; stage it once before the run";
  } else {
    // The smallest Managed Lustre file system that feeds the job, then any option that does.
    int best = -1;
    for (std::size_t i = 0; i < d.options.size(); ++i) {
      const StorageOption& o = d.options[i];
      if (o.kind != "amlfs" || !o.meets_demand) continue;
      if (best < 0 || *o.size_tib < *d.options[best].size_tib) best = static_cast<int>(i);
    }
    if (best < 0) best = index_of([](const StorageOption& o) { return o.meets_demand; });
    if (best >= 0) {
      d.chosen = best;
      d.reason = d.options[best].name + " is the smallest shared file system that delivers the " +
                 format_rate_si(per_vm) + " each VM needs" +
                 (d.options[1].feasible ? "" : " (" + d.options[1].why_not + ")");
    } else {
      // Nothing keeps up: take the fastest, and the GPUs will wait on data.
      int fastest = 0;
      for (std::size_t i = 0; i < d.options.size(); ++i) {
        if (d.options[i].feasible && d.options[i].per_vm.value > d.options[fastest].per_vm.value)
          fastest = static_cast<int>(i);
      }
      d.chosen = fastest;
      d.reason = "no option delivers the " + format_rate_si(per_vm) +
                 " each VM needs; the "
                 "fastest is " +
                 d.options[fastest].name + " at " +
                 format_rate_si(d.options[fastest].per_vm.value) +
                 " (remote storage is capped by the front-end NIC)";
    }
  }
  const StorageOption& c = d.options[d.chosen];
  const double bytes_per_vm = in.bytes_per_step / in.vms;
  const double delivered = in.delivered_per_vm.value_or(c.per_vm.value);
  d.read_seconds = quantity(delivered > 0 ? bytes_per_vm / delivered : 0, "s",
                            "bytes_per_step / VMs / delivered per VM");
  d.read_seconds.in("bytes_per_vm", bytes_per_vm, "B").in("delivered_per_vm", delivered, "B/s");
  d.exposed_seconds = quantity(std::max(0.0, d.read_seconds.value - in.step_seconds), "s",
                               "max(0, read − step): the data loader prefetches while GPUs compute",
                               "planner assumption: prefetch hides reads up to one step");
  d.exposed_seconds.in("read", d.read_seconds.value, "s").in("step", in.step_seconds, "s");
  return d;
}

}  // namespace trainready
