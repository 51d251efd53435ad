#include "support/node_builder.h"

namespace trainready::test {

IbPort ib_port(int number, const std::string& state, const std::string& phys, double rate,
               const std::string& layer, const std::string& pkey) {
  IbPort p;
  p.number = number;
  Provenance where{"/sys/class/infiniband/x/ports/1", 0};
  p.state = Fact<std::string>::present(state, where);
  p.phys_state = Fact<std::string>::present(phys, where);
  p.rate_gbps = Fact<double>::present(rate, where);
  p.link_layer = Fact<std::string>::present(layer, where);
  p.pkey0 = Fact<std::string>::present(pkey, where);
  p.lid = Fact<std::string>::present("0x10", where);
  p.where = where;
  return p;
}

namespace {

PciDevice pci_device(const std::string& address, std::uint32_t vendor, std::uint32_t device,
                     std::uint32_t class_code, PciKind kind) {
  PciDevice d;
  d.address = address;
  d.vendor = vendor;
  d.device = device;
  d.class_code = class_code;
  d.kind = kind;
  return d;
}

}  // namespace

NodeFacts empty_node(const std::string& label) {
  NodeFacts n;
  n.label = label;
  n.root_display = "test";
  return n;
}

NodeFacts healthy_nd_h100(const std::string& label) {
  NodeFacts n = empty_node(label);
  n.host = Fact<HostInfo>::present({label, "5.15.0-1073-azure", "Ubuntu 22.04.5 LTS"});
  n.dmi = Fact<DmiInfo>::present(
      {"Microsoft Corporation", "Virtual Machine", "7783-7084-3265-9085-8269-3286-77", true});
  ImdsInfo imds;
  imds.vm_size = "Standard_ND96isr_H100_v5";
  imds.vmss_name = "gpu-train";
  imds.placement_group_id = "7c0b3f2e-5d4a-4e8b-9c1d-2a3b4c5d6e7f";
  imds.name = label;
  imds.image_publisher = "microsoft-dsvm";
  imds.image_offer = "ubuntu-hpc";
  imds.image_sku = "2204";
  n.imds = Fact<ImdsInfo>::present(imds, {"imds.json", 0});
  IbFacts ib;
  PciFacts pci;
  for (int i = 0; i < 8; ++i) {
    IbDevice d;
    d.name = "mlx5_ib" + std::to_string(i);
    d.hca_type = "MT4126";
    d.ports.push_back(ib_port(1, "ACTIVE", "LinkUp", 400));
    ib.devices.push_back(d);
    pci.devices.push_back(pci_device("010" + std::to_string(i + 1) + ":00:00.0", 0x15b3, 0x101e,
                                     0x020700, PciKind::kMellanox));
    pci.devices.push_back(pci_device("000" + std::to_string(i + 1) + ":00:00.0", 0x10de, 0x2330,
                                     0x030200, PciKind::kNvidiaGpu));
  }
  IbDevice an;
  an.name = "mlx5_an0";
  an.ports.push_back(ib_port(1, "ACTIVE", "LinkUp", 40, "Ethernet", "0xffff"));
  ib.devices.push_back(an);
  n.ib = Fact<IbFacts>::present(ib, {"/sys/class/infiniband", 0});
  n.pci = Fact<PciFacts>::present(pci, {"/sys/bus/pci/devices", 0});
  ModuleFacts m;
  for (const char* name :
       {"mlx5_core", "mlx5_ib", "ib_uverbs", "ib_core", "nvidia", "nvidia_peermem"}) {
    m.modules[name] = ModuleInfo{true, "", {"/proc/modules", 1}};
  }
  // Azure's HPC images ship the proprietary module with nvidia_peermem loaded.
  m.nvidia_flavor = Fact<std::string>::present("proprietary", {"/proc/driver/nvidia/version", 0});
  n.modules = Fact<ModuleFacts>::present(m, {"/proc/modules", 0});
  n.ofed_version = Fact<std::string>::present("MLNX_OFED_LINUX-23.10-1.1.9.0");
  GpuFacts g;
  g.driver_loaded = true;
  g.driver_version = "535.161.08";
  for (int i = 0; i < 8; ++i) {
    Gpu gpu;
    gpu.index = i;
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.memory_total_bytes = 85520809984ULL;
    gpu.pci_bus_id = "0000000" + std::to_string(i + 1) + ":00:00.0";
    gpu.remap_pending = false;
    gpu.remap_failure = false;
    gpu.ecc_uncorrected_volatile = 0;
    gpu.nvlink_links = 18;  // H100 SXM: 18 NVLink 4 links, all active
    gpu.nvlink_active = 18;
    gpu.nvlink_recovery_errors = 0;
    gpu.nvlink_crc_errors = 0;
    gpu.fabric_state = "completed";  // Fabric Manager registered the GPU
    gpu.fabric_status = 0;
    gpu.clocks_event_reasons = 0x1;  // GpuIdle
    g.gpus.push_back(gpu);
  }
  n.gpus = Fact<GpuFacts>::present(g, {"nvml", 0});
  NcclSettings s;
  s.env_source = {"environ", 0};
  s.conf_source = {"/etc/nccl.conf", 0};
  s.conf["NCCL_TOPO_FILE"] = "/opt/microsoft/ndv5-topo.xml";
  s.conf["NCCL_IB_PCI_RELAXED_ORDERING"] = "1";  // as Azure's ndv5.sh writes it
  s.topo_file = "/opt/microsoft/ndv5-topo.xml";
  s.topo_file_origin = s.conf_source;
  s.topo_file_exists = Fact<bool>::present(true, {"/opt/microsoft/ndv5-topo.xml", 0});
  n.nccl = Fact<NcclSettings>::present(s, {"environ", 0});
  n.nccl_version = Fact<std::string>::present("2.21.5");
  ScratchFacts sc;
  MdArray md;
  md.name = "md0";
  md.level = "raid0";
  md.state = "active";
  md.mountpoint = "/mnt/resource_nvme";
  for (int i = 0; i < 8; ++i) {
    NvmeNamespace ns;
    ns.name = "nvme" + std::to_string(i) + "n1";
    ns.model = "Microsoft NVMe Direct Disk v2";
    ns.size_bytes = 3840000000000ULL;
    ns.md_array = "md0";
    md.members.push_back(ns.name);
    sc.namespaces.push_back(ns);
  }
  sc.arrays.push_back(md);
  n.scratch = Fact<ScratchFacts>::present(sc, {"/sys/block", 0});
  KernelLogFacts log;  // a kernel log without NVIDIA driver errors
  log.source = "/var/log/kern.log";
  log.lines = 1200;
  n.kernel_log = Fact<KernelLogFacts>::present(log, {"/var/log/kern.log", 0});
  // Issue 32, item 4: no zombie or hung process, nothing a Slurm node needs, every uverbs/umad
  // device present, a Hyper-V guest without IOMMU groups, no healthagent.
  ProcessFacts procs;
  procs.scanned = 350;
  procs.names = {"nv-fabricmanage", "nvidia-persiste", "sshd", "systemd"};
  procs.pid_max = 4194304;
  procs.cpus = 96;
  n.processes = Fact<ProcessFacts>::present(procs, {"/proc/*/status", 0});
  ServiceFacts services;
  services.processes_known = true;
  ServiceState fm;
  fm.unit = "nvidia-fabricmanager.service";
  fm.process = "nv-fabricmanage";
  fm.installed = fm.enabled = fm.running = true;
  services.services.push_back(fm);
  n.services = Fact<ServiceFacts>::present(services, {"/etc/systemd/system", 0});
  IbCharDevFacts chardevs;
  chardevs.dev_dir_present = true;
  for (int i = 0; i < 8; ++i) {
    IbCharDev v;
    v.name = "uverbs" + std::to_string(i);
    v.ibdev = "mlx5_ib" + std::to_string(i);
    v.node_present = true;
    chardevs.verbs.push_back(v);
    v.name = "umad" + std::to_string(i);
    v.port = 1;
    chardevs.mads.push_back(v);
  }
  n.ib_char_devices = Fact<IbCharDevFacts>::present(chardevs, {"/dev/infiniband", 0});
  VirtInfo virt;
  virt.known = virt.virtual_machine = true;
  virt.hypervisor = "Microsoft Hyper-V";
  n.virtualization = Fact<VirtInfo>::present(virt, {"/sys/class/dmi/id", 0});
  n.pci_isolation = Fact<PciIsolationFacts>::present({}, {"/sys/bus/pci/devices", 0});
  return n;
}

}  // namespace trainready::test
