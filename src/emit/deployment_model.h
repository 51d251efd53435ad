#pragma once
// The one deployment `plan --emit` writes: built once from the plan's recommendation and the
// catalog, then written by three writers (ARM JSON, Bicep, Terraform HCL) that add nothing of
// their own. Every setting carries the reason it has its value (the finding id it avoids), and
// the placement settings come from catalog/ib_placement.h, the source the lint and doctor
// rules read, so an emitted template can never be one the lint rejects.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/plan.h"

namespace trainready {

// The deployment cannot be written (nothing fits, more than one InfiniBand placement group,
// a multi-VM cluster without InfiniBand). The CLI prints the reason and exits 2.
class EmitRefused : public std::runtime_error {
 public:
  explicit EmitRefused(const std::string& why) : std::runtime_error(why) {}
};

// A setting's value and why it is that value ("avoids deploy-ib-spg-off: ...").
struct Why {
  std::string setting;
  std::string reason;
};

struct MarketplaceImage {
  std::string publisher;
  std::string offer;
  std::string sku;
  std::string version = "latest";
  std::string why;
  std::string urn() const { return publisher + ":" + offer + ":" + sku + ":" + version; }
};

// The Azure Managed Lustre file system the plan chose, with its Blob import (HSM) containers.
// Every number is rounded to what the SKU provides (create-file-system-resource-manager, "File
// system type and size options") and the subnet is sized per amlfs-prerequisites.
struct ManagedLustre {
  AmlfsTier tier;              // the catalog's SKU: name, MB/s per TiB, minimum, maximum, step
  double requested_tib = 0;    // what the plan asked for
  long long capacity_tib = 0;  // rounded up to the increment, at least the minimum
  long long throughput_mbytes_per_s = 0;  // capacity x the tier's MB/s per TiB
  std::string subnet_prefix;              // 10.0.16.0/24: a subnet of its own
  int subnet_prefix_length = 24;
  std::string subnet_why;
  std::string zone = "1";  // parameter default; one zone (the API takes a single element)
  std::string maintenance_day = "Sunday";
  std::string maintenance_time_utc = "00:00";
  std::string import_prefix = "/";
  std::string mount = "/mnt/lustre";
  std::string api_version = "2025-07-01";
};

// Storage Account Contributor and Storage Blob Data Contributor (Azure built-in roles): what
// the HPC Cache Resource Provider principal needs on the account before the file system is
// created (amlfs-prerequisites, "Access roles for blob integration").
inline constexpr const char* kStorageAccountContributorRoleId =
    "17d1049b-9a84-46fb-8f53-869881c3d3ab";
inline constexpr const char* kStorageBlobDataContributorRoleId =
    "ba92f5b4-2d11-453d-a403-e96b0029c9fe";

// The file system for `requested_tib` of `tier`: capacity rounded up to the tier's increment
// (at least its minimum). Throws EmitRefused when the tier cannot provide it (above its
// maximum, which only a support request raises) or the tier's figures are not usable.
ManagedLustre plan_managed_lustre(const AmlfsTier& tier, double requested_tib);

// The subnet prefix length the AMLFS docs recommend for `capacity_tib`, and why.
int amlfs_subnet_prefix_length(long long capacity_tib, std::string* why);

struct DeploymentModel {
  std::string vm_size;   // Standard_ND96isr_H100_v5
  std::string location;  // the plan's region: the location parameter's default (empty: none)
  int vms = 1;
  bool infiniband = false;
  // Placement: judged one InfiniBand group by judge_scale_set_ib_group.
  std::string orchestration = "Uniform";
  bool single_placement_group = true;
  int platform_fault_domain_count = 1;
  bool overprovision = false;
  bool support_request = false;  // above the default placement-group size
  MarketplaceImage image;
  std::string vnet_prefix = "10.0.0.0/16";
  std::string subnet_prefix = "10.0.0.0/20";
  std::string cloud_init;                       // #cloud-config text, the same in every writer
  std::map<std::string, std::string> nccl_env;  // what the boot script exports
  int nvme_disks = 0;
  std::string nvme_mount = "/mnt/nvme";
  std::optional<ManagedLustre> lustre;  // when the plan chose Azure Managed Lustre
  std::vector<Why> why;                 // per setting, in the order the writers show them
  // For the user, not the template: the capacity note, the storage step, what was left out.
  std::vector<std::string> notes;
  std::string plan_summary;  // "llama3-70b on 8 x Standard_ND96isr_H100_v5 (64 GPUs)"
  // The winning layout as Megatron-LM arguments (emit/launch_args.h), written by cloud-init to
  // /etc/trainready/megatron-args; empty for a deployment not built from a plan.
  std::vector<std::string> launch_args;

  const std::string& why_of(const std::string& setting) const;
};

// The recommendation of `plan`. Throws EmitRefused when the plan recommends nothing, or a
// layout the model refuses (see build_deployment_for).
DeploymentModel build_deployment(const Plan& plan);

// One scale set of `vms` x `sku`. Throws EmitRefused above the raised placement-group size
// (300 VMs: more than one InfiniBand placement group) and for several VMs of a size without
// InfiniBand (deploy-gpu-size-without-ib).
// With `lustre`, the file system, its storage account, containers, role assignments, subnet
// and the client mount in cloud-init are part of the deployment.
DeploymentModel build_deployment_for(const SkuEntry& sku, int vms,
                                     const std::optional<ManagedLustre>& lustre = std::nullopt);

// The three writers: each returns the file's whole text.
std::string write_arm_template(const DeploymentModel& m);
std::string write_bicep(const DeploymentModel& m);
std::string write_terraform(const DeploymentModel& m);

// "arm", "bicep", "terraform" → file name in the output directory.
std::optional<std::string> emit_file_name(const std::string& format);

// Writes the file for `format` under `dir` (created when missing) through the atomic writer.
// Throws EmitRefused when the file exists and `force` is false. Returns the path written.
std::string emit_deployment(const DeploymentModel& m, const std::string& format,
                            const std::string& dir, bool force);

}  // namespace trainready
