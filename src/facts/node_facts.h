#pragma once
// The typed IR for one node: what the probes (live or snapshot) and parsers (captures) found.
// Sources fill it; rules only read it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "facts/capture_facts.h"
#include "facts/host_health_facts.h"

namespace trainready {

struct HostInfo {
  std::string hostname;
  std::string kernel;  // /proc/sys/kernel/osrelease
  std::string os;      // PRETTY_NAME from /etc/os-release
};

struct DmiInfo {
  std::string sys_vendor;
  std::string product_name;
  std::string chassis_asset_tag;
  bool azure = false;  // Microsoft sys_vendor + Azure's chassis asset tag
};

struct ImdsInfo {
  std::string vm_size;
  std::string vmss_name;
  std::string placement_group_id;
  std::string platform_fault_domain;
  std::string location;
  std::string name;
  std::string vm_id;
  std::string zone;
  std::string image_publisher;
  std::string image_offer;
  std::string image_sku;
  std::string image_version;
  std::string image_id;  // gallery / custom image resource id, when there is one
};

struct IbPort {
  int number = 0;
  Fact<std::string> state;       // DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER
  Fact<std::string> phys_state;  // Sleep, Polling, Disabled, PortConfigurationTraining, LinkUp, ...
  Fact<double> rate_gbps;
  std::string rate_text;         // as the source printed it: "400 Gb/sec (4X NDR)"
  int link_width = 0;            // lanes from rate_text ("4X" = 4); 0 when the source omits it
  Fact<std::string> link_layer;  // InfiniBand, Ethernet
  Fact<std::string> pkey0;       // "0x8001"
  Fact<std::string> lid;         // "0x1c"
  Provenance where;
};

struct IbDevice {
  std::string name;      // mlx5_ib0, mlx5_an0, mlx4_0
  std::string hca_type;  // MT4129
  std::string model;     // ConnectX-7
  std::string fw_ver;
  std::string node_guid;
  std::string pci_address;
  std::vector<IbPort> ports;
  Provenance where;
};

struct IbFacts {
  std::vector<IbDevice> devices;  // empty when no RDMA device is registered
  // Set when the source shows only part of the node's devices (`ibstat mlx5_0`, a paste cut in
  // the middle): why. Rules then judge the ports shown and do not count the others as missing.
  std::string excerpt;
};

enum class PciKind { kMellanox, kNvidiaGpu, kAmdGpu, kNvSwitch, kNvme, kOther };

struct PciDevice {
  std::string address;  // 0000:01:00.0
  std::uint32_t vendor = 0;
  std::uint32_t device = 0;
  std::uint32_t class_code = 0;  // 24-bit: 0x030200 for a 3D controller
  PciKind kind = PciKind::kOther;
  std::string model;  // "ConnectX-7", "H100 SXM5"
  bool virtual_function = false;
  std::string link_speed;  // current, e.g. "32.0 GT/s PCIe"
  int link_width = 0;
  std::string max_link_speed;
  int max_link_width = 0;
  bool link_marked_downgraded = false;  // lspci printed "(downgraded)" in LnkSta
  int numa_node = -1;
  std::string driver;
  Provenance where;
};

struct PciFacts {
  std::vector<PciDevice> devices;  // only the kinds above (network, GPU, NVMe), and links of an
                                   // excerpt without its device header (kind kOther, no address)
  std::string excerpt;  // as IbFacts::excerpt: `lspci -s`, `| grep`, LnkSta lines without header
};

struct ModuleInfo {
  bool loaded = false;
  std::string version;  // /sys/module/<m>/version when the module declares one
  Provenance where;
};

struct ModuleFacts {
  std::map<std::string, ModuleInfo> modules;  // every loaded module, plus the watched ones
  // Flavor of the loaded NVIDIA kernel module from /proc/driver/nvidia/version: "open" (the open
  // GPU kernel modules, which DMA-BUF GPUDirect RDMA needs) or "proprietary".
  Fact<std::string> nvidia_flavor;
  bool loaded(const std::string& m) const {
    auto it = modules.find(m);
    return it != modules.end() && it->second.loaded;
  }
};

struct Gpu {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string serial;
  std::uint64_t memory_total_bytes = 0;
  std::string pci_bus_id;
  std::optional<bool> ecc_enabled;
  std::optional<std::uint64_t> ecc_uncorrected_volatile;
  std::optional<bool> remap_pending;  // a row remap waits for a GPU reset
  std::optional<bool> remap_failure;  // a remap failed: the GPU needs service
  // NVLink (nvmlDeviceGetNvLinkState over links 0..17): links NVML reports, and how many are
  // active; error counters summed over the links. Unset when NVML has no NVLink answer.
  std::optional<int> nvlink_links;
  std::optional<int> nvlink_active;
  std::optional<std::uint64_t> nvlink_recovery_errors;
  std::optional<std::uint64_t> nvlink_crc_errors;  // CRC flit + CRC data
  // GPU fabric registration by NVIDIA Fabric Manager (nvmlDeviceGetGpuFabricInfo, Hopper and
  // later with NVSwitch): "not-supported", "not-started", "in-progress", "completed"; and the
  // NVML return code of the registration (0 = success).
  std::optional<std::string> fabric_state;
  std::optional<int> fabric_status;
  // The NVLink fabric the GPU joined (same call): cluster UUID as 32 hex digits (all zeros when
  // there is no multi-node NVLink fabric, which NCCL reads as "no MNNVL") and clique id.
  std::optional<std::string> fabric_cluster_uuid;
  std::optional<std::uint32_t> fabric_clique_id;
  // nvmlDeviceGetCurrentClocksEventReasons (formerly ...ThrottleReasons) bitmask.
  std::optional<std::uint64_t> clocks_event_reasons;
  // From `nvidia-smi` captures: persistence mode, MIG mode ("Enabled"/"Disabled"), retired
  // pages waiting for a reset, and fields the driver could not read ("ERR!", "Unknown Error").
  std::optional<bool> persistence_mode;
  std::optional<std::string> mig_mode;
  std::optional<bool> retired_pages_pending;
  std::vector<std::string> unreadable_fields;
  Provenance where;
};

// A GPU nvidia-smi names but cannot open: "Unable to determine the device handle for GPU
// 0000:61:00.0: Unknown Error" / "GPU is lost" (ERR! fields stay on the Gpu).
struct LostGpu {
  std::string pci;
  std::string message;
  Provenance where;
};

struct GpuFacts {
  bool driver_loaded = false;
  std::string no_driver_reason;  // "libnvidia-ml.so.1 not found" ...
  std::string driver_version;
  std::string nvml_version;
  std::vector<Gpu> gpus;
  std::string cuda_version;   // "CUDA Version" of nvidia-smi captures
  std::vector<LostGpu> lost;  // from nvidia-smi captures
};

struct NcclSettings {
  std::map<std::string, std::string> env;  // NCCL_* and UCX_* from the environment
  Provenance env_source;
  std::map<std::string, std::string> conf;  // /etc/nccl.conf
  Provenance conf_source;
  std::string conf_error;  // set when the conf file could not be parsed
  std::string topo_file;   // effective NCCL_TOPO_FILE, empty when unset
  Provenance topo_file_origin;
  Fact<bool> topo_file_exists;

  // NCCL reads the environment first, then /etc/nccl.conf.
  std::optional<std::pair<std::string, Provenance>> lookup(const std::string& key) const {
    if (auto it = env.find(key); it != env.end()) return std::make_pair(it->second, env_source);
    if (auto it = conf.find(key); it != conf.end()) return std::make_pair(it->second, conf_source);
    return std::nullopt;
  }
};

struct NvmeNamespace {
  std::string name;  // nvme0n1
  std::string model;
  std::string serial;
  std::uint64_t size_bytes = 0;
  bool local = true;  // false for remote disks exposed as NVMe (Azure Boost "NVMe Accelerator")
  std::string mountpoint;  // of the namespace or one of its partitions
  std::string md_array;    // md device it is a member of
  Provenance where;
};

struct MdArray {
  std::string name;   // md0
  std::string level;  // raid0
  std::string state;  // active
  std::vector<std::string> members;
  std::string mountpoint;
  Provenance where;
};

struct ScratchFacts {
  std::vector<NvmeNamespace> namespaces;
  std::vector<MdArray> arrays;
};

// `nvidia-smi topo -m` as captured.
struct TopoMatrix {
  std::vector<std::string> columns;  // GPU0.., mlx5_ib (nvidia-smi truncates names), NIC0..
  struct Row {
    std::string name;
    std::vector<std::string> links;  // X, NV12, SYS, NODE, PIX, PXB, PHB
    std::string cpu_affinity;
    std::string numa_affinity;
    Provenance where;
  };
  std::vector<Row> rows;
  int gpu_count() const;
  int nic_count() const;
};

// One Xid event from the kernel log: the NVIDIA driver's report of a GPU error, decoded with
// NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors) by the rule gpu-xid-errors.
struct XidEvent {
  int code = 0;
  std::string pci;           // as the driver prints it: "0000:9b:00"
  std::string timestamp;     // the line's prefix as printed: "[Sun Feb 23 16:24:18 2025]",
                             // "May 18 19:02:39 host kernel:", "[ 3606.832215]"
  std::string process;       // name= when the driver names one
  std::string detail;        // the text after the code, pid/name removed
  bool without_xid = false;  // "fallen off the bus" printed without an Xid line (counted as 79)
  Provenance where;
  std::int64_t time = 0;      // the line's time, seconds since the epoch; 0 = could not be placed
  bool earlier_boot = false;  // the log shows a boot after this line (journal marker, [s] reset)
};

// The NVRM lines of the kernel log (dmesg, journal, /var/log/kern.log or /var/log/messages).
struct KernelLogFacts {
  std::string source;           // the file or capture read
  int lines = 0;                // lines read
  std::string first_timestamp;  // of the first line carrying one: how far back the log goes
  std::string last_timestamp;
  std::vector<XidEvent> xids;
  std::int64_t boot_time =
      0;  // /proc/stat btime: the current boot, seconds since the epoch (0 unknown)
  std::int64_t read_at = 0;  // when the log was read (live: now; snapshot: its collected_at)
  std::string time_note;     // how line times were placed, or why they could not be
};

// One `ib_write_bw` run (perftest): its header and the row at the largest message size.
struct IbWriteBwRun {
  std::string device;       // "Device : mlx5_ib0"
  std::string link_type;    // "IB" or "Ethernet" (RoCE)
  int qps = 0;              // "Number of qps"
  bool gpu_memory = false;  // --use_cuda / --use_rocm: the buffer was in GPU memory (GPUDirect)
  std::string gpu_name;     // "NVIDIA A40" when perftest printed it
  bool bidirectional = false;
  std::uint64_t bytes = 0;  // message size of the judged row (the largest)
  double peak_gbps = 0;     // Gb/s (1e9 bit/s), converted from MB/sec when so reported
  double average_gbps = 0;  // "BW average": what AzNHC's check_ib_bw_gdr judges
  std::string unit_text;    // the header's unit as printed: "Gb/sec", "MB/sec", "MiB/sec"
  Provenance where;         // the judged row
};

struct IbWriteBwFacts {
  std::vector<IbWriteBwRun> runs;
};

// /opt/azurehpc/component_versions.txt of Azure's HPC images (Azure/azhpc-images): component ->
// version, e.g. NCCL -> 2.16.5-1, OFED -> 23.10-..., ImageVersion -> 2024.0521.1 (JSON since
// 2024, KEY=VALUE lines before).
struct ImageComponents {
  std::map<std::string, std::string> versions;
  std::string format;  // "json" or "key=value"
};

// One section of a `doctor --capture` file (a pasted session holds several): what it was read
// as, or why it was not.
struct CaptureSection {
  std::string kind;     // "ibstat", "lspci", ...; empty when not known
  std::string command;  // the command line above it, prompt removed; empty when none
  Provenance where;     // the file and the section's first line
  int last_line = 0;
  bool read = false;
  std::string note;  // not read: why; read: what it does not show, if anything
};

struct NodeFacts {
  std::string label;         // host name, or the snapshot directory name
  std::string root_display;  // "/" or the snapshot path
  bool live = false;
  Fact<HostInfo> host;
  Fact<DmiInfo> dmi;
  Fact<ImdsInfo> imds;
  Fact<IbFacts> ib;
  Fact<PciFacts> pci;
  Fact<ModuleFacts> modules;
  Fact<std::string> ofed_version;
  Fact<GpuFacts> gpus;
  Fact<NcclSettings> nccl;
  Fact<std::string> nccl_version;
  Fact<ScratchFacts> scratch;
  Fact<TopoMatrix> gpu_topology;           // only from a capture
  Fact<KernelLogFacts> kernel_log;         // Xid events, where the kernel log is readable
  Fact<IbWriteBwFacts> ib_write_bw;        // only from a capture (`--capture ib_write_bw=FILE`)
  Fact<ImageComponents> image_components;  // /opt/azurehpc/component_versions.txt
  // Multi-node NVLink (GB200/GB300) prerequisites, probes/imex_probe.cpp: whether the
  // nvidia-imex daemon runs (present true/false; missing when not looked for), and the IMEX
  // channel devices in /dev/nvidia-caps-imex-channels ("channel0", ...; empty when none).
  Fact<bool> imex_daemon;
  Fact<std::vector<std::string>> imex_channels;
  std::vector<CaptureSection> capture_sections;  // `doctor --capture`: what each section was
  // Only from captures (issue 31): scontrol show node / sinfo -R, ibdev2netdev / show_gids /
  // mst status -v, dcgmi diag.
  Fact<SlurmFacts> slurm;
  Fact<RdmaNetFacts> rdma_net;
  Fact<DcgmDiagFacts> dcgm_diag;
  // Issue 32, item 4 (facts/host_health_facts.h): process states, services, InfiniBand
  // character devices, hypervisor, IOMMU / ATS / ACS; and CycleCloud healthagent's `health -s`.
  Fact<ProcessFacts> processes;
  Fact<ServiceFacts> services;
  Fact<IbCharDevFacts> ib_char_devices;
  Fact<VirtInfo> virtualization;
  Fact<PciIsolationFacts> pci_isolation;
  Fact<HealthagentStatus> healthagent;

  // The VM size IMDS reports (`--sku` over it is the rules' query vm_size_of).
  Fact<std::string> vm_size() const {
    if (!imds.ok())
      return Fact<std::string>::missing("VM size unknown: no instance metadata (" + imds.reason +
                                        "); pass --sku");
    if (imds->vm_size.empty())
      return Fact<std::string>::missing("IMDS has no vmSize; pass --sku", imds.where);
    return Fact<std::string>::present(imds->vm_size, imds.where);
  }
};

}  // namespace trainready
