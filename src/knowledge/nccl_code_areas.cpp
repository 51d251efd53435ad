#include "knowledge/nccl_code_areas.h"

namespace trainready {
namespace {

// Each switch is the NCCL_PARAM or getenv that reads it, at v2.30.7-1.
constexpr NcclCodeAreaReading kReadings[] = {
    {NcclCodeArea::kRas, "NCCL's RAS service",
     "NCCL 2.24 and later start a RAS (reliability, availability, serviceability) thread in "
     "every process (src/ras/): it tracks the peers' state and answers `ncclras` queries, and "
     "it is not on the data path. A crash there is a bug in that code, not a fault of the "
     "job's data or network.",
     "Rerun with NCCL_RAS_ENABLE=0 (src/bootstrap.cc:672, NCCL_PARAM RasEnable): the RAS thread "
     "is not started; if the crash is gone, keep it off, move to a newer NCCL and report the "
     "backtrace to NVIDIA/nccl."},
    {NcclCodeArea::kNvls, "NCCL's NVLS (NVLink SHARP) transport",
     "The crash is in the NVLS setup or buffers (src/transport/nvls.cc), which use the NVSwitch "
     "multicast objects of the CUDA driver and the fabric manager.",
     "Rerun with NCCL_NVLS_ENABLE=0 (src/transport/nvls.cc:159); if the crash is gone, check "
     "the fabric manager (`systemctl status nvidia-fabricmanager`) and the driver, then move to "
     "a newer NCCL."},
    {NcclCodeArea::kCollNet, "NCCL's CollNet (in-network reduction, SHARP) transport",
     "The crash is in the CollNet transport (src/transport/coll_net.cc), which drives the "
     "CollNet plugin (SHARP on InfiniBand).",
     "Rerun with NCCL_COLLNET_ENABLE=0 (src/init.cc:63); if the crash is gone, check the "
     "SHARP / CollNet plugin version against the NCCL version."},
    {NcclCodeArea::kIb, "NCCL's InfiniBand / RoCE transport",
     "The crash is in the IB verbs transport (src/transport/net_ib*, or a plugin's copy of it), "
     "while it set up or drove RDMA connections: a bad device or GID setting, or a bug.",
     "Rerun with NCCL_IB_DISABLE=1 (src/transport/net_ib/init.cc:27; NCCL then uses TCP "
     "sockets, slower): if the crash is gone, read the NCCL_IB_* settings and the HCA's state "
     "(`ibv_devinfo`, `show_gids` on RoCE) and rerun with NCCL_DEBUG=INFO."},
    {NcclCodeArea::kShm, "NCCL's shared-memory transport",
     "The crash is in the shared-memory transport or its /dev/shm segments (src/transport/"
     "shm.cc, src/misc/shmutils.cc): a /dev/shm too small or removed under the job is the "
     "common cause.",
     "Check `df -h /dev/shm` (a container's default is 64 MB: --shm-size or --ipc=host), then "
     "rerun; NCCL_SHM_DISABLE=1 (src/transport/shm.cc:55) only as a test."},
    {NcclCodeArea::kP2p, "NCCL's GPU peer-to-peer transport",
     "The crash is in the P2P transport (src/transport/p2p.cc), which maps the peer GPUs' "
     "buffers through CUDA IPC or cuMem.",
     "Rerun with NCCL_P2P_DISABLE=1 (src/graph/paths.cc:289): if the crash is gone, check the "
     "GPUs' peer access (`nvidia-smi topo -p2p r`) and, on bare metal, PCIe ACS and the IOMMU."},
    {NcclCodeArea::kProfiler, "NCCL's profiler hooks",
     "The crash is in NCCL's profiler hooks (src/plugin/profiler.cc); with a profiler plugin "
     "loaded (NCCL_PROFILER_PLUGIN), the plugin is the first suspect.",
     "Rerun without NCCL_PROFILER_PLUGIN (src/plugin/profiler.cc:58): if the crash is gone, the "
     "plugin does not match this NCCL's profiler interface version."},
    {NcclCodeArea::kBootstrap, "NCCL's bootstrap",
     "The crash is in the bootstrap (src/bootstrap.cc), the TCP exchange of addresses between "
     "the ranks at init.",
     "Rerun with NCCL_DEBUG=INFO and NCCL_SOCKET_IFNAME set to the interface every node can "
     "reach; keep the backtrace for NVIDIA/nccl."},
    {NcclCodeArea::kProxy, "NCCL's proxy thread",
     "The crash is in the proxy thread (src/proxy.cc), which drives the network transfers of "
     "every collective: the network transport or plugin it calls is the usual suspect.",
     "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: the network and plugin lines name "
     "the transport the proxy drove; keep the backtrace for NVIDIA/nccl."},
    {NcclCodeArea::kTopology, "NCCL's topology detection",
     "The crash is in the topology detection or search (src/graph/), which reads /sys, the "
     "NICs and any NCCL_TOPO_FILE: an unusual PCI tree, a VM's virtual topology or a topology "
     "file that does not describe the machine.",
     "Rerun without NCCL_TOPO_FILE, if one is set; NCCL_TOPO_DUMP_FILE=/tmp/topo.xml writes "
     "what NCCL detected once detection completes (src/graph/topo.cc:1927). Keep it and the "
     "backtrace for NVIDIA/nccl."},
};

}  // namespace

const NcclCodeAreaReading* nccl_code_area_reading(NcclCodeArea area) {
  for (const NcclCodeAreaReading& r : kReadings)
    if (r.area == area) return &r;
  return nullptr;
}

}  // namespace trainready
