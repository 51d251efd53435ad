#include "catalog/node_reasons.h"

#include <array>

#include "core/text.h"

namespace trainready {
namespace {

constexpr std::array<NodeReasonMeaning, 24> kReasons{{
    {"gres/gpu count reported lower",
     "slurmd found fewer GPUs than slurm.conf / gres.conf declare for the node, so slurmctld "
     "set it INVAL/DRAIN at registration: a GPU fell off the bus or the NVIDIA driver did not "
     "load, or the configured count is wrong for this node (a MIG layout change also lowers it).",
     "On the node: `nvidia-smi -L` and `dmesg | grep -i -e xid -e 'fallen off'`. If GPUs are "
     "missing, reset or reboot the node (Azure: deallocate/start, then report it); if the "
     "config is wrong, fix the node's Gres= / gres.conf. Then `scontrol update "
     "nodename=NODE state=resume`.",
     "SchedMD slurm src/common/gres.c (\"gres/%s count reported lower than configured\"); "
     "awslabs/awsome-distributed-ai#195; ComputeCanada/puppet-magic_castle#361"},
    {"gres/gpu GRES core s",
     "slurmd's GPU-to-core binding (Cores= of gres.conf or AutoDetect) does not match the socket "
     "boundaries slurmctld expects: a configuration or slurmd version problem, not a GPU fault.",
     "Compare gres.conf Cores= with `slurmd -G` on the node; a known slurmd bug (SchedMD 22498) "
     "needs the fixed release. Resume the node once the config matches.",
     "hpc-community.unige.ch/t/3909 (SchedMD bug 22498)"},
    // Before check_ib_bw and check_nccl_allreduce: the loopback check's name holds both.
    {"check_nccl_allreduce_ib_loopback",
     "AzNHC's NCCL all-reduce over the VM's own InfiniBand HCAs measured a bus bandwidth below "
     "the floor its conf sets for the VM size (FaultCode NHC2003). The check turns NVLink, "
     "peer-to-peer and shared memory off (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1, "
     "NCCL_NET_GDR_LEVEL=5), so every byte leaves through an HCA and comes back: an HCA, its "
     "PCIe link or GPUDirect RDMA on this VM is degraded.",
     "Check `ibstat` and run `ib_write_bw` per HCA (pass both to `trainready doctor --capture`); "
     "report the node with the fault code if an HCA is down or slow.",
     "Azure/azurehpc-health-checks customTests/azure_nccl_allreduce_ib_loopback.nhc (NHC2003) "
     "@0e0a1ac"},
    {"check_nccl_allreduce",
     "AzNHC's NCCL all-reduce across the VM's GPUs (all_reduce_perf, one process per GPU) "
     "measured a bus bandwidth below the floor its conf sets for the VM size, or wrong results "
     "(FaultCode NHC2010; floors at 0e0a1ac: 460 GB/s ND H100 v5, 431-432 GB/s ND H200 v5 by "
     "size, 228 GB/s ND A100 v4). Inside one VM the GPUs talk over NVLink / NVSwitch: a link "
     "down, Fabric Manager not running or a slowed GPU lowers it. azurehpc-health-checks#142 "
     "reports the check failing healthy ND H200 v5 VMs at about 15 GB/s while it passed its "
     "container's topology file (NCCL_TOPO_FILE) to the run: 'an artifact of the image and test "
     "setup'; #143 (commit 67ca751, 2025-06-26) runs it with NCCL_TOPO_FILE empty.",
     "If the check's command sets NCCL_TOPO_FILE, update azurehpc-health-checks (or rerun the "
     "same command with NCCL_TOPO_FILE empty) before reporting the node. Otherwise: "
     "`nvidia-smi nvlink --status`, `systemctl status nvidia-fabricmanager`, `nvidia-smi -q -d "
     "PERFORMANCE`; rerun all_reduce_perf -g 8 with NCCL_DEBUG=INFO and pass its output to "
     "`trainready nccl`.",
     "Azure/azurehpc-health-checks customTests/azure_nccl_allreduce.nhc (NHC2010), conf/*.conf, "
     "commits e7f6f24 and 67ca751, issue #142, PR #143"},
    // AzNHC's check_cuda_bw (customTests/azure_cuda_bandwidth.nhc, 7f48976 until 4c3317b,
    // 2023-12-22, when nvbandwidth's check_gpu_bw replaced it) died without its name.
    {"Bandwidth is low on device",
     "AzNHC's check_cuda_bw (releases of 2023) measured a GPU's host-to-device or "
     "device-to-host copy bandwidth (superbench gpu-copy, 128 MiB, from each NUMA node) below "
     "its floor (24 GB/s unless the conf sets another): the GPU's PCIe link trained down in "
     "width or speed, or the GPU is held at low clocks.",
     "`sudo lspci -vv -s <GPU bus id>` (LnkSta against LnkCap; pass it to `trainready doctor "
     "--capture`) and `nvidia-smi -q -d PCIE,CLOCK`; report the node if the link is degraded.",
     "Azure/azurehpc-health-checks customTests/azure_cuda_bandwidth.nhc @7f48976 (removed in "
     "4c3317b)"},
    // distributed_nhc's own line for a node that sent back nothing (its README, "Interpreting NHC
    // Results" and "Known Issues").
    {"No results reported",
     "AzNHC's distributed_nhc got no health result from the node: it could not reach the node "
     "(ssh), the node could not reach onetouch_nhc.sh (the shared volume not mounted), AzNHC "
     "failed to download or install there, or a transient file-handle error. The node is not "
     "known to be healthy. When every node of one large job reports it (its README: seen at "
     "about 330 nodes in one Slurm job, not at 270), the job was too large, not the nodes.",
     "ssh to the node; check that the shared directory distributed_nhc runs from is mounted "
     "there; read the newest .out / .err under ~/onetouch_nhc/working on the node; rerun "
     "distributed_nhc for those nodes, in jobs of a few hundred nodes or fewer.",
     "Azure/azurehpc-health-checks distributed_nhc/README.md @0e0a1ac"},
    {"check_hw_ib",
     "LBNL NHC's InfiniBand check failed: an HCA port is missing, not ACTIVE/LinkUp or below "
     "the configured rate.",
     "On the node: `ibstat` / `ibv_devinfo` (pass them to `trainready doctor --capture`); a "
     "port that is down needs its link or the node replaced (Azure: report the node, "
     "deallocate/start).",
     "mej/nhc scripts/lbnl_hw.nhc check_hw_ib"},
    {"check_ib_link_flapping",
     "AzNHC saw several InfiniBand link-down events in its time window (FaultCode NHC2005): a "
     "flapping cable, transceiver or switch port.",
     "Report the node to Azure support with the fault code; deallocate/start to move hosts.",
     "Azure/azurehpc-health-checks customTests/azure_ib_link_flapping.nhc (NHC2005)"},
    {"check_ib_bw", "AzNHC's ib_write_bw test measured an HCA below the VM size's floor.",
     "Run `ib_write_bw` per HCA (pass the output to `doctor --capture ib_write_bw=FILE`); "
     "report the node with the AzNHC fault code.",
     "Azure/azurehpc-health-checks customTests/azure_ib_write_bw_gdr.nhc"},
    {"check_gpu_count", "AzNHC counted fewer GPUs than the VM size has (FaultCode NHC2009).",
     "`nvidia-smi -L`, `dmesg | grep -i xid`; deallocate/start the VM, report it if GPUs stay "
     "missing.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_count.nhc (NHC2009)"},
    {"check_gpu_xid", "AzNHC found a recent Xid error in the kernel log (FaultCode NHC2001).",
     "Pass the kernel log to `trainready doctor --capture dmesg=FILE` to decode the Xid; most "
     "need a GPU reset or a node swap.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_xid.nhc (NHC2001)"},
    {"check_gpu_bw",
     "AzNHC's GPU bandwidth test (nvbandwidth) measured a copy below its threshold (FaultCode "
     "NHC2020): a PCIe link trained down or a GPU/NVLink fault. On NC H100 v5 (H100 NVL, 12 of "
     "18 NVLinks wired) its P2P floor of 335 GB/s fails at about 250 GB/s by design "
     "(azurehpc-health-checks#162, filed by its maintainer, open).",
     "On NC H100 v5 a P2P result near 250 GB/s is the SKU, not the node: do not report it. "
     "Elsewhere check `lspci -vv` link width/speed of the GPU (pass it to `doctor --capture`); "
     "report the node if the link is degraded.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_bandwidth.nhc (NHC2020), "
     "conf/nc80adis_h100_v5.conf (check_gpu_bw 48 335), issue #162"},
    {"check_nvlink",
     "AzNHC found NVLink links down or missing. On NC H100 v5 (H100 NVL) 6 of each GPU's 18 "
     "links are inactive by design and check_nvlink_status, which expects all, fails there "
     "(azurehpc-health-checks#162, filed by its maintainer, open).",
     "On NC H100 v5, six inactive links per GPU are the SKU: do not report the node. Elsewhere "
     "`nvidia-smi nvlink --status`; check Fabric Manager; report the node.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_nvlink.nhc, "
     "conf/nc80adis_h100_v5.conf, issue #162"},
    {"check_gpu_ecc",
     "AzNHC found GPU memory errors (uncorrectable ECC, row remap pending or failed).",
     "`nvidia-smi -q -d ECC,ROW_REMAPPER` (pass it to `doctor --capture`); a pending remap "
     "needs a GPU reset, a failed one a node swap.",
     "Azure/azurehpc-health-checks customTests/azure_gpu_ecc.nhc"},
    {"check_ps_service", "LBNL NHC found a required service not running (named in the reason).",
     "Start the service (`systemctl start ...`) and find why it stopped.",
     "mej/nhc scripts/lbnl_ps.nhc check_ps_service"},
    {"check_fs_mount", "LBNL NHC found a required filesystem not mounted.",
     "Mount it (`mount -a`, check the NFS/Lustre server), then let NHC re-run.",
     "mej/nhc scripts/lbnl_fs.nhc check_fs_mount"},
    {"Kill task failed",
     "slurmd could not kill a job step's processes within UnkillableStepTimeout: a process "
     "stuck in the kernel (D state), typically on a hung filesystem, a GPU in error or a "
     "driver call that does not return.",
     "On the node: `ps -eo pid,stat,wchan:32,cmd | awk '$2 ~ /D/'` and `dmesg | tail`. A GPU "
     "in error (Xid) or a hung mount needs a reboot; resume the node after it.",
     "slurm.conf(5) UnkillableStepTimeout; awslabs/awsome-distributed-ai#185"},
    {"Not responding",
     "slurmctld has not heard from slurmd for SlurmdTimeout: the node is down, hung, off the "
     "network, or slurmd is not running.",
     "Reach the node (ssh, the cloud console); `systemctl status slurmd`; check munge and the "
     "clock. Slurm returns it by itself when slurmd answers again (ReturnToService), otherwise "
     "`scontrol update nodename=NODE state=resume`.",
     "slurm.conf(5) SlurmdTimeout, ReturnToService"},
    {"Node unexpectedly rebooted",
     "The node rebooted without Slurm asking it to (a crash, a host event, a watchdog); with "
     "ReturnToService=1 Slurm keeps it DOWN until someone looks.",
     "Read the previous boot's log (`journalctl -b -1 -p err`) for the cause; resume the node "
     "if it is healthy.",
     "slurm.conf(5) ReturnToService"},
    {"Prolog error",
     "The node's Prolog script failed (non-zero exit) before a job: Slurm drains the node so "
     "the next job does not fail the same way.",
     "Run the Prolog by hand on the node and read slurmd.log; fix it, then resume the node.",
     "slurm.conf(5) Prolog"},
    {"Epilog error",
     "The node's Epilog script failed after a job: the node may be left dirty (processes, "
     "mounts, GPU state).",
     "Read slurmd.log for the Epilog's output; clean up, then resume the node.",
     "slurm.conf(5) Epilog"},
    {"Low RealMemory",
     "slurmd reports less memory than RealMemory= in slurm.conf: a DIMM is missing or the "
     "configured value is too high for this node.",
     "Compare `slurmd -C` with the node's line in slurm.conf; fix one of them.",
     "slurm.conf(5) RealMemory"},
    {"Low socket*core*thre",
     "slurmd reports fewer CPUs than configured for the node (CPUs or sockets/cores/threads).",
     "Compare `slurmd -C` with the node's line in slurm.conf; fix one of them.",
     "slurm.conf(5) NodeName CPUs/Sockets/CoresPerSocket/ThreadsPerCore"},
    {"trainready:",
     "Set by `trainready fleet --slurm-health --drain` after a failed check on this node.",
     "Read the check named after 'trainready:' and fix it; `trainready fleet --slurm-health "
     "--drain` resumes a node it drained once the check passes again.",
     "docs/fleet.md"},
}};

}  // namespace

// A reason cut by sinfo's column width matches an entry that starts with what is left of it.
const NodeReasonMeaning* node_reason_meaning(std::string_view reason, bool truncated) {
  for (const auto& m : kReasons) {
    if (icontains(reason, m.match)) return &m;
    if (truncated && reason.size() >= 8 && reason.size() < m.match.size() &&
        iequals(m.match.substr(0, reason.size()), reason))
      return &m;
  }
  return nullptr;
}

}  // namespace trainready
