#include "emit/deployment_model.h"
#include "emit/launch_args.h"

#include <cmath>
#include <sstream>

#include "catalog/ib_placement.h"
#include "core/text.h"
#include "core/units.h"
#include "plan/placement_model.h"

namespace trainready {
namespace {

// Azure HPC images (Azure/azhpc-images README, read 2026-12-01): OFED / rdma-core,
// nvidia-peermem (or ROCm + RCCL), the NCCL topology files under /opt/microsoft and
// /etc/nccl.conf per size. The deploy-ib-image-no-driver rule accepts microsoft-dsvm offers
// containing "hpc".
// Grace-Blackwell sizes (ND GB200 v6, ND GB300 v6): arm64 Grace hosts.
bool grace_host(const SkuEntry& sku) { return sku.gpu_model.rfind("GB", 0) == 0; }

MarketplaceImage image_for(const SkuEntry& sku) {
  MarketplaceImage img;
  img.publisher = "microsoft-dsvm";
  img.offer = "ubuntu-hpc";
  const std::string avoids =
      " (avoids deploy-ib-image-no-driver and, on the nodes, ib-driver-not-loaded)";
  if (sku.gpu_vendor == "amd") {
    img.sku = "2204-rocm";
    img.why =
        "Azure's Ubuntu-HPC image with ROCm and RCCL for AMD GPUs, carrying the "
        "InfiniBand stack (OFED)" +
        avoids;
  } else if (grace_host(sku)) {
    // Grace (arm64) hosts: the azhpc-images README lists no arm64 URN the project could
    // verify; 2404 is the newest Ubuntu-HPC line. Said in the notes, to be checked.
    img.sku = "2404";
    img.why = "Azure's Ubuntu-HPC 24.04 image (OFED, nvidia-peermem, NCCL)" + avoids +
              "; Grace (GB200, GB300) hosts are arm64: check that the image SKU has an arm64 build "
              "in the "
              "region (az vm image list --publisher microsoft-dsvm --offer ubuntu-hpc "
              "--architecture Arm64 --all) and override imageSku if not";
  } else {
    img.sku = "2204";
    img.why =
        "Azure's Ubuntu-HPC 22.04 image (Gen2): OFED, nvidia-peermem for GPUDirect RDMA, "
        "NCCL, the size's topology file and /etc/nccl.conf" +
        avoids;
  }
  return img;
}

std::string nvme_script(const DeploymentModel& m) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
       "# Avoids nvme-scratch-not-mounted: the local NVMe disks come up empty after every\n"
       "# deallocation, so they are assembled into one RAID0 array and mounted at each boot.\n"
       "set -eu\n"
       "MNT="
    << m.nvme_mount
    << "\n"
       "EXPECTED="
    << m.nvme_disks
    << "\n"
       "mountpoint -q \"$MNT\" && exit 0\n"
       "# Azure's HPC image may assemble the disks itself (nvme-raid.service: /dev/md128 at\n"
       "# /mnt/resource_nvme, azhpc-images components/customizations/setup_nvme.sh): then that\n"
       "# array is the scratch, shown at $MNT too.\n"
       "if mountpoint -q /mnt/resource_nvme; then\n"
       "  mkdir -p \"$MNT\" && mount --bind /mnt/resource_nvme \"$MNT\" && exit 0\n"
       "fi\n"
       "disks=\"\"\n"
       "for b in /sys/block/nvme*n1; do\n"
       "  [ -e \"$b\" ] || continue\n"
       "  d=/dev/$(basename \"$b\")\n"
       "  # Remote disks shown as NVMe (Azure Boost 'MSFT NVMe Accelerator') are not scratch.\n"
       "  case \"$(cat \"$b/device/model\" 2>/dev/null)\" in *Accelerator*) continue;; esac\n"
       "  # A disk with partitions or in use (the OS disk on NVMe-only sizes) is left alone.\n"
       "  ls \"$b\"/\"$(basename \"$b\")\"p* >/dev/null 2>&1 && continue\n"
       "  [ -n \"$(lsblk -no MOUNTPOINT \"$d\" 2>/dev/null)\" ] && continue\n"
       "  disks=\"$disks $d\"\n"
       "done\n"
       "n=$(echo $disks | wc -w)\n"
       "[ \"$n\" -eq 0 ] && { echo \"trainready: no local NVMe disk found\" >&2; exit 0; }\n"
       "[ \"$n\" -ne \"$EXPECTED\" ] && echo \"trainready: $n local NVMe disks, the catalog "
       "lists $EXPECTED\" >&2\n"
       "if [ \"$n\" -eq 1 ]; then dev=$disks; else\n"
       "  # After a reboot without deallocation the disks keep their RAID superblock and udev\n"
       "  # may already have assembled them (as /dev/md127): assemble by name, create only new.\n"
       "  dev=/dev/md/trainready\n"
       "  [ -e \"$dev\" ] || mdadm --assemble --scan >/dev/null 2>&1 || true\n"
       "  [ -e \"$dev\" ] || mdadm --create \"$dev\" --name=trainready --level=0 "
       "--raid-devices=\"$n\" --force --run $disks\n"
       "fi\n"
       "blkid \"$dev\" >/dev/null 2>&1 || mkfs.xfs -f \"$dev\"\n"
       "mkdir -p \"$MNT\"\n"
       "mount -o noatime \"$dev\" \"$MNT\"\n"
       "chmod 1777 \"$MNT\"\n";
  return s.str();
}

std::string lustre_script(const ManagedLustre& l) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
       "# Mounts the Azure Managed Lustre file system the plan sized ("
    << l.tier.name << ", " << l.capacity_tib
    << " TiB) at every boot, so the GPUs read\n"
       "# the dataset at the planned rate instead of waiting on data.\n"
       "set -u\n"
       "MNT="
    << l.mount
    << "\n"
       "mountpoint -q \"$MNT\" && exit 0\n"
       "# The MGS address exists only once the file system does: the deployment hands it to\n"
       "# the scale set as userData, which a VM reads from the instance metadata service\n"
       "# (learn.microsoft.com/azure/virtual-machines/user-data).\n"
       "mgs() {\n"
       "  curl -sf -H Metadata:true --noproxy '*' "
       "'http://169.254.169.254/metadata/instance/compute/userData?api-version=2021-01-01"
       "&format=text' | base64 -d\n"
       "}\n"
       "# The client: Azure's Ubuntu-HPC image builds the AMLFS Lustre client (DKMS, from\n"
       "# packages.microsoft.com/repos/amlfs-<codename>) into the image (azhpc-images\n"
       "# components/install_lustre_client.sh). Another Ubuntu image needs the package\n"
       "# amlfs-lustre-client-<version>=$(uname -r) (learn.microsoft.com/azure/\n"
       "# azure-managed-lustre/client-install); the VM's security type must be Standard.\n"
       "if ! modprobe lustre 2>/dev/null; then\n"
       "  echo \"trainready: no Lustre client module for kernel $(uname -r): install the AMLFS "
       "client (amlfs-lustre-client-<version>=$(uname -r))\" >&2\n"
       "  exit 1\n"
       "fi\n"
       "mkdir -p \"$MNT\"\n"
       "# The mount command of connect-clients: lustrefs is the name every AMLFS file system has\n"
       "# inside; noatime,flock are the options the portal's sample command carries.\n"
       "# Retried for five minutes: the network and the metadata service may come up late.\n"
       "MGS=\n"
       "for _ in 1 2 3 4 5 6 7 8 9 10; do\n"
       "  MGS=$(mgs) || MGS=\n"
       "  case \"$MGS\" in\n"
       "    ''|*[!0-9.]*) echo \"trainready: no Lustre MGS address in userData yet\" >&2 ;;\n"
       "    *) mount -t lustre -o noatime,flock \"$MGS@tcp:/lustrefs\" \"$MNT\" && exit 0 ;;\n"
       "  esac\n"
       "  sleep 30\n"
       "done\n"
       "echo \"trainready: mount of $MGS@tcp:/lustrefs at $MNT failed\" >&2\n"
       "exit 1\n";
  return s.str();
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  for (std::string_view line : split_lines(text)) {
    out += line.empty() ? "\n" : pad + std::string(line) + "\n";
  }
  return out;
}

std::string cloud_init(const DeploymentModel& m, const SkuEntry& sku) {
  std::ostringstream c;
  c << "#cloud-config\n"
       "# Written by `trainready plan --emit` for "
    << m.vms << " x " << m.vm_size
    << ".\n"
       "# Nothing here disables InfiniBand for NCCL (deploy-nccl-ib-disabled).\n";
  std::string runcmd;
  c << "write_files:\n";
  if (m.nvme_disks > 0) {
    c << "  - path: /usr/local/sbin/trainready-nvme-scratch\n"
         "    permissions: '0755'\n"
         "    content: |\n"
      << indent(nvme_script(m), "      ")
      << "  - path: /etc/systemd/system/trainready-nvme-scratch.service\n"
         "    content: |\n"
         "      [Unit]\n"
         "      Description=RAID0 of the local NVMe disks mounted at "
      << m.nvme_mount
      << " (trainready)\n"
         "      After=local-fs.target nvme-raid.service\n"
         "      [Service]\n"
         "      Type=oneshot\n"
         "      RemainAfterExit=yes\n"
         "      ExecStart=/usr/local/sbin/trainready-nvme-scratch\n"
         "      [Install]\n"
         "      WantedBy=multi-user.target\n";
    runcmd += "  - [systemctl, enable, --now, trainready-nvme-scratch.service]\n";
  }
  if (m.lustre) {
    c << "  - path: /usr/local/sbin/trainready-lustre-mount\n"
         "    permissions: '0755'\n"
         "    content: |\n"
      << indent(lustre_script(*m.lustre), "      ")
      << "  - path: /etc/systemd/system/trainready-lustre-mount.service\n"
         "    content: |\n"
         "      [Unit]\n"
         "      Description=Azure Managed Lustre at "
      << m.lustre->mount
      << " (trainready)\n"
         "      Wants=network-online.target\n"
         "      After=network-online.target\n"
         "      [Service]\n"
         "      Type=oneshot\n"
         "      RemainAfterExit=yes\n"
         "      ExecStart=/usr/local/sbin/trainready-lustre-mount\n"
         "      # connect-clients: unmount a client before it shuts down.\n"
         "      ExecStop=/bin/umount "
      << m.lustre->mount
      << "\n"
         "      [Install]\n"
         "      WantedBy=multi-user.target\n";
    runcmd += "  - [systemctl, enable, --now, trainready-lustre-mount.service]\n";
  }
  // /etc/nccl.conf is read by every NCCL process (shells, Slurm jobs, containers with /etc
  // mounted); the HPC image writes these lines for the size, and the script adds only the ones
  // missing (a custom image built from it may have lost them: nccl-topo-file-unset).
  std::string conf_script =
      "#!/bin/bash\n"
      "# The NCCL settings Azure's HPC image uses on this size (catalog: azure_image.nccl_conf,\n"
      "# nccl_topo_file); a line already in /etc/nccl.conf is kept as it is.\n"
      "set -eu\n"
      "touch /etc/nccl.conf\n";
  for (const auto& [k, v] : m.nccl_env)
    conf_script +=
        "grep -q '^" + k + "=' /etc/nccl.conf || echo '" + k + "=" + v + "' >> /etc/nccl.conf\n";
  if (!m.nccl_env.empty()) {
    c << "  - path: /usr/local/sbin/trainready-nccl-conf\n"
         "    permissions: '0755'\n"
         "    content: |\n"
      << indent(conf_script, "      ");
    runcmd += "  - [/usr/local/sbin/trainready-nccl-conf]\n";
  }
  if (sku.fabric_manager) {
    // fabric-manager-not-ready: NVSwitch sizes need NVIDIA Fabric Manager before CUDA can
    // use the GPUs; the HPC image ships it, this makes sure it is enabled and started.
    runcmd += "  - [systemctl, enable, --now, nvidia-fabricmanager.service]\n";
  }
  if (!m.launch_args.empty()) {
    // The plan's layout, for the training launch: pretrain_gpt.py $(cat /etc/trainready/...).
    c << "  - path: /etc/trainready/megatron-args\n"
         "    permissions: '0644'\n"
         "    content: |\n"
         "      # Megatron-LM arguments of the layout `trainready plan` chose for "
      << m.plan_summary << "\n";
    for (const std::string& a : m.launch_args) c << "      " << a << "\n";
  }
  if (m.nvme_disks == 0 && m.nccl_env.empty() && m.launch_args.empty()) {
    c << "  - path: /etc/trainready-emitted\n"
         "    content: |\n"
         "      no local NVMe disks and no NCCL settings for this size\n";
  }
  if (!runcmd.empty()) c << "runcmd:\n" << runcmd;
  return c.str();
}

void add_lustre_reasons(DeploymentModel& m) {
  const ManagedLustre& l = *m.lustre;
  const std::string docs = "learn.microsoft.com/azure/azure-managed-lustre/";
  m.why.push_back(
      {"amlfsSku", l.tier.name + ": the tier the plan chose, " +
                       format_tib(l.tier.mbytes_per_s_per_tib) + " MB/s per TiB of capacity (" +
                       docs +
                       "create-file-system-resource-manager); the smallest shared file system "
                       "that feeds the GPUs at the planned step time"});
  m.why.push_back(
      {"storageCapacityTiB",
       std::to_string(l.capacity_tib) + " TiB: the plan's " + format_tib(l.requested_tib) +
           " TiB rounded up to " + l.tier.name + "'s granularity (at least " +
           format_tib(l.tier.min_tib) + " TiB, then steps of " + format_tib(l.tier.increment_tib) +
           " TiB, at most " + format_tib(l.tier.max_tib) +
           " TiB without a support request), which provisions " +
           std::to_string(l.throughput_mbytes_per_s) + " MB/s; it cannot change after creation"});
  m.why.push_back(
      {"filesystemSubnet",
       l.subnet_prefix + ": a subnet of its own (each file system needs its own, and it cannot " +
           "move later), inside the VNet and outside 172.16.0.0/16 (deploy-vnet-rdma-overlap); " +
           l.subnet_why});
  m.why.push_back(
      {"zones",
       "one zone (parameter, default " + l.zone +
           ") for the file system and the scale set: the API takes a single zone, and clients "
           "reach the advertised throughput only in the file system's zone (" +
           docs +
           "connect-clients); check that the VM size is offered in it (az vm list-skus "
           "--location REGION --size " +
           m.vm_size + " --zone)"});
  m.why.push_back({"maintenanceWindow",
                   l.maintenance_day + " " + l.maintenance_time_utc +
                       " UTC (parameters): a 30-minute weekly window, required by the API, in "
                       "which the service may update the file system; move it outside the "
                       "training run's busiest hours"});
  m.why.push_back(
      {"hsm",
       "Blob import (HSM): a data container the file system imports from at creation "
       "(importPrefix " +
           l.import_prefix +
           ": every blob) and a separate logging container in the same account, as the API "
           "requires; a StorageV2 account with shared-key access enabled (" +
           docs + "amlfs-prerequisites, Blob integration prerequisites)"});
  m.why.push_back(
      {"roleAssignments",
       std::string("Storage Account Contributor (") + kStorageAccountContributorRoleId +
           ") and Storage Blob Data Contributor (" + kStorageBlobDataContributorRoleId +
           ") on the storage account for the HPC Cache Resource Provider service principal, "
           "before the file system is created, or its creation fails (" +
           docs +
           "amlfs-prerequisites, Access roles for blob integration); its object id differs per "
           "tenant: az ad sp list --display-name 'HPC Cache Resource Provider' --query "
           "'[].id' -o tsv, or, where that prints nothing, --display-name 'storagecache "
           "Resource Provider' (its name before general availability, amlfs-prerequisites); an "
           "empty result means neither exists in the tenant: do not deploy with an empty id "
           "(the parameter refuses one: an object id is 36 characters)"});
  m.why.push_back(
      {"userData",
       "the file system's MGS address (known only once it exists), which the boot script reads "
       "to mount it at " +
           l.mount});
}

}  // namespace

int amlfs_subnet_prefix_length(long long capacity_tib, std::string* why) {
  // amlfs-prerequisites, "Network size requirements": the recommended prefix per capacity
  // band. The REST API's filesystemSubnet (2025-07-01) asks for "at least a /24"; a /24 costs
  // nothing in a private /16, so the larger of the two is taken.
  struct Band {
    long long up_to_tib;
    int prefix;
  };
  static constexpr Band kBands[] = {{16, 27}, {40, 26}, {92, 25}, {196, 24}, {400, 23}};
  int docs = 22;
  std::string band = "above 400 TiB the table ends; one bit more than its last row (/23)";
  for (const Band& b : kBands) {
    if (capacity_tib <= b.up_to_tib) {
      docs = b.prefix;
      band = "the AMLFS docs recommend /" + std::to_string(b.prefix) + " or larger up to " +
             std::to_string(b.up_to_tib) + " TiB";
      break;
    }
  }
  const int prefix = std::min(docs, 24);
  if (why != nullptr) {
    *why = "/" + std::to_string(prefix) + " for " + std::to_string(capacity_tib) + " TiB: " + band +
           " (learn.microsoft.com/azure/azure-managed-lustre/amlfs-prerequisites)" +
           (docs > 24 ? "; /24 because the API's filesystemSubnet asks for at least a /24" : "") +
           "; `az amlfs get-subnets-size --sku SKU --storage-capacity TIB` gives the exact "
           "number of addresses";
  }
  return prefix;
}

ManagedLustre plan_managed_lustre(const AmlfsTier& tier, double requested_tib) {
  if (!(tier.increment_tib > 0) || !(tier.min_tib > 0) || !(tier.max_tib >= tier.min_tib))
    throw EmitRefused("the catalog's " + tier.name +
                      " entry has no usable minimum, maximum and increment");
  if (!(requested_tib > 0) || !std::isfinite(requested_tib))
    throw EmitRefused("the plan sized no Azure Managed Lustre capacity (" +
                      format_tib(requested_tib) + " TiB)");
  ManagedLustre l;
  l.tier = tier;
  l.requested_tib = requested_tib;
  const double rounded = tier.round_capacity_tib(requested_tib);
  if (rounded > tier.max_tib) {
    throw EmitRefused(
        tier.name + " provides " + format_tib(tier.min_tib) + " to " + format_tib(tier.max_tib) +
        " TiB in steps of " + format_tib(tier.increment_tib) + " TiB; the plan needs " +
        format_tib(requested_tib) + " TiB (" + format_tib(rounded) +
        " TiB rounded), above what the SKU provides without a support request "
        "(learn.microsoft.com/azure/azure-managed-lustre/create-file-system-resource-manager)");
  }
  l.capacity_tib = std::llround(rounded);
  l.throughput_mbytes_per_s =
      std::llround(static_cast<double>(l.capacity_tib) * tier.mbytes_per_s_per_tib);
  l.subnet_prefix_length = amlfs_subnet_prefix_length(l.capacity_tib, &l.subnet_why);
  // The compute subnet is 10.0.0.0/20; 10.0.16.0 is aligned for every prefix from /22 to /24.
  l.subnet_prefix = "10.0.16.0/" + std::to_string(l.subnet_prefix_length);
  return l;
}

const std::string& DeploymentModel::why_of(const std::string& setting) const {
  for (const Why& w : why) {
    if (w.setting == setting) return w.reason;
  }
  static const std::string none;
  return none;
}

DeploymentModel build_deployment_for(const SkuEntry& sku, int vms,
                                     const std::optional<ManagedLustre>& lustre) {
  if (vms < 1) throw EmitRefused("a deployment needs at least one VM");
  if (vms > kPlacementGroupRaisedVms) {
    throw EmitRefused(std::to_string(vms) + " VMs need more than one InfiniBand placement group (" +
                      std::to_string(kPlacementGroupRaisedVms) +
                      " VMs at most, after a support request): one scale set cannot hold them, "
                      "and --emit writes one; split the job (deploy-placement-limit)");
  }
  if (vms > 1 && !sku.has_infiniband()) {
    throw EmitRefused(std::to_string(vms) + " x " + sku.name +
                      ": a multi-VM cluster of a size without InfiniBand is what the lint "
                      "rule deploy-gpu-size-without-ib reports; plan an InfiniBand size "
                      "(--sku) or one VM");
  }
  DeploymentModel m;
  m.vm_size = sku.name;
  m.vms = vms;
  m.infiniband = sku.has_infiniband();
  m.image = image_for(sku);
  m.nvme_disks = sku.nvme_disks;
  m.lustre = lustre;
  if (!sku.nccl_topo_file.empty()) m.nccl_env["NCCL_TOPO_FILE"] = sku.nccl_topo_file;
  for (const auto& [k, v] : sku.image_nccl_conf) m.nccl_env[k] = v;

  // One source of truth for the placement: the same judgement the lint (deploy-ib-spg-off)
  // and the doctor (vm-not-in-scale-set) apply to what is deployed.
  const IbGroupJudgement j = judge_scale_set_ib_group(m.orchestration, m.single_placement_group,
                                                      m.platform_fault_domain_count);
  if (j.group != IbGroup::kOne)
    throw EmitRefused("internal: the emitted placement is not one group");
  m.support_request = vms > kPlacementGroupDefaultVms;

  const std::string n = std::to_string(vms);
  m.why.push_back({"vmSize", sku.name + ": the plan's recommended size (" +
                                 std::to_string(sku.gpu_count) + " x " + sku.gpu_model +
                                 (m.infiniband ? ", " + std::to_string(sku.ib_ports) + " x " +
                                                     sku.ib_generation + " InfiniBand"
                                               : ", no InfiniBand") +
                                 ")"});
  m.why.push_back(
      {"capacity",
       n + " VMs, one scale set: InfiniBand reaches only VMs of one placement group" +
           std::string(m.support_request ? "; above " + std::to_string(kPlacementGroupDefaultVms) +
                                               " VMs a support request must raise the "
                                               "placement-group limit to " +
                                               std::to_string(kPlacementGroupRaisedVms) +
                                               " before deploying (deploy-placement-limit)"
                                         : "")});
  m.why.push_back({"orchestrationMode",
                   "Uniform: " + std::string(kIbOneGroupShort) +
                       " (avoids deploy-ib-spg-off, deploy-ib-vms-ungrouped and, on the nodes, "
                       "vm-not-in-scale-set)"});
  m.why.push_back({"singlePlacementGroup",
                   "true: " + j.why +
                       ", one InfiniBand placement group for every VM (avoids deploy-ib-spg-off "
                       "and, once deployed, deploy-nodes-split); VMs cannot be moved into a "
                       "placement group later without deallocating them"});
  m.why.push_back(
      {"platformFaultDomainCount",
       "1: no spreading over fault domains inside the placement group (a training job stops on "
       "the loss of any VM anyway); with Uniform orchestration it does not split the group, "
       "unlike Flexible with 1 (deploy-ib-spg-off)"});
  m.why.push_back({"overprovision",
                   "false: overprovisioning starts extra VMs and deletes them, which a fixed-size "
                   "InfiniBand job does not want (the extra VMs count against quota and the "
                   "placement group while they run)"});
  m.why.push_back({"image", m.image.urn() + ": " + m.image.why});
  m.why.push_back(
      {"addressSpace", m.vnet_prefix +
                           ": outside 172.16.0.0/16, which Azure's InfiniBand (RDMA) network uses "
                           "(avoids deploy-vnet-rdma-overlap); subnet " +
                           m.subnet_prefix + " holds " + std::to_string(kPlacementGroupRaisedVms) +
                           " VMs and more"});
  m.why.push_back(
      {"customData",
       std::string("cloud-init: ") +
           (m.nvme_disks > 0
                ? "RAID0 of the " + std::to_string(m.nvme_disks) + " local NVMe disks at " +
                      m.nvme_mount + " at every boot (avoids nvme-scratch-not-mounted); "
                : "no local NVMe disks to assemble; ") +
           (m.nccl_env.empty() ? "no NCCL settings for this size in the catalog; "
                               : "the NCCL settings the image uses on this size in "
                                 "/etc/nccl.conf (avoids nccl-topo-file-unset); ") +
           (sku.fabric_manager ? "NVIDIA Fabric Manager enabled (fabric-manager-not-ready); "
                               : "") +
           (m.lustre ? "the Azure Managed Lustre file system mounted at " + m.lustre->mount +
                           " at every boot and unmounted before shutdown; "
                     : "") +
           "nothing that disables InfiniBand (deploy-nccl-ib-disabled)"});
  if (m.lustre) add_lustre_reasons(m);
  m.cloud_init = cloud_init(m, sku);

  if (m.support_request) {
    m.notes.push_back("capacity: " + n + " VMs is above the default " +
                      std::to_string(kPlacementGroupDefaultVms) +
                      " per placement group: open a support request (free) to raise the "
                      "single-placement-group limit of this subscription and region to " +
                      std::to_string(kPlacementGroupRaisedVms) +
                      " before deploying; the ARM and Terraform outputs carry an inline "
                      "suppression of deploy-placement-limit saying so (`trainready lint` lists "
                      "it as suppressed); the Bicep output says it in a comment only, so lint "
                      "of its compiled JSON shows the warning");
  }
  m.notes.push_back(
      "placement: these VMs cannot be moved into a placement group later without "
      "deallocating and redeploying them, and the region may not have the capacity "
      "then; deploy the scale set at its full size");
  m.notes.push_back("quota: " + n + " x " + sku.name +
                    ": the subscription needs the vCPU quota of the size's family for " + n +
                    " VMs in the region (az vm list-usage --location REGION)");
  if (grace_host(sku)) {
    m.notes.push_back("image: " + m.image.urn() +
                      " was not verified for arm64 (Grace); check it before deploying (see the "
                      "image comment)");
  }
  if (m.lustre) {
    m.notes.push_back(
        "storage: " + m.lustre->tier.name + ", " + std::to_string(m.lustre->capacity_tib) +
        " TiB (" + std::to_string(m.lustre->throughput_mbytes_per_s) + " MB/s), mounted at " +
        m.lustre->mount +
        " on every VM; the file system imports the data container when it is created: upload "
        "the dataset first (deployed with an empty container, the file system starts empty: "
        "then load it with an import job or copy it in through a client), and give the role "
        "assignments up to five minutes to propagate before the file system is created "
        "(amlfs-prerequisites)");
  }
  m.plan_summary = n + " x " + sku.name;
  return m;
}

DeploymentModel build_deployment(const Plan& plan) {
  if (!plan.recommended || plan.candidates.empty() || plan.candidates.front().sku == nullptr) {
    std::string why = "the plan found no VM size that fits this job, so there is nothing to deploy";
    for (const std::string& h : plan.hints) why += "; " + h;
    throw EmitRefused(why);
  }
  const Candidate& c = plan.candidates.front();
  if (c.placement.domains > 1) {
    throw EmitRefused("the recommended layout (" + std::to_string(c.vms) + " x " + c.sku->name +
                      ") needs " + std::to_string(c.placement.domains) +
                      " InfiniBand placement groups; --emit writes one scale set, one group");
  }
  const StorageOption* storage = nullptr;
  if (c.data.chosen >= 0 && c.data.chosen < static_cast<int>(c.data.options.size()))
    storage = &c.data.options[static_cast<std::size_t>(c.data.chosen)];
  std::optional<ManagedLustre> lustre;
  if (storage != nullptr && storage->kind == "amlfs") {
    if (!storage->amlfs_tier || !storage->size_tib)
      throw EmitRefused("the plan chose " + storage->name +
                        " without the tier and size it was planned at");
    lustre = plan_managed_lustre(*storage->amlfs_tier, *storage->size_tib);
  }
  DeploymentModel m = build_deployment_for(*c.sku, c.vms, lustre);
  m.location = plan.job.region;
  m.plan_summary = (plan.job.model.empty() ? std::string("the job") : plan.job.model) + " on " +
                   m.plan_summary + " (" + std::to_string(c.gpus) + " GPUs)";
  const LaunchArgs launch = megatron_launch_args(plan);
  m.launch_args = launch.args;
  if (!m.launch_args.empty()) {
    std::string joined;
    for (const std::string& a : m.launch_args) joined += (joined.empty() ? "" : " ") + a;
    m.why.push_back({"layout",
                     "/etc/trainready/megatron-args (cloud-init): the layout the plan "
                     "chose, as Megatron-LM arguments: " +
                         joined});
    for (const std::string& n : launch.notes) m.notes.push_back("layout: " + n);
    m.cloud_init = cloud_init(m, *c.sku);
  }
  if (storage != nullptr) {
    const StorageOption& s = *storage;
    if (s.kind == "nvme") {
      m.notes.push_back(
          "storage: the plan reads the data from the local NVMe disks: stage the dataset to " +
          m.nvme_mount +
          " on every VM before training, and again after a deallocation, which empties the "
          "disks: azcopy copy 'https://ACCOUNT.blob.core.windows.net/CONTAINER/PATH?SAS' " +
          m.nvme_mount + "/ --recursive");
    } else if (s.kind == "blob") {
      m.notes.push_back("storage: the plan streams the data from Blob storage (" + s.name +
                        "); --emit writes no storage for it: mount the container on the VMs "
                        "with blobfuse2");
    } else if (s.kind != "amlfs") {
      m.notes.push_back("storage: the plan chose " + s.name +
                        "; --emit does not write it: create it and mount it on the VMs");
    }
  }
  return m;
}

}  // namespace trainready
