// IOMMU, ATS and ACS on the PCI functions GPUDirect traffic crosses (issue 32, item 4):
//  - IOMMU mode per function: /sys/kernel/iommu_groups/<N>/type ("identity" = passthrough,
//    "DMA" / "DMA-FQ" = translated), the check NCCL's RAS diagnostics run per GPU/NIC pair;
//  - ATS: the ATS extended capability's control register, bit 15 (Enable);
//  - ACS: the ACS extended capability's control register (offset 6), on the functions and the
//    bridges above them; NVIDIA's disable_acs.sh writes ECAP_ACS+0x6.w=0 on every device that
//    has one, since ACS redirects peer-to-peer traffic to the root complex.
// The extended capabilities live past offset 0x100 of /sys/bus/pci/devices/<bdf>/config, which
// the kernel shows only to root (others read 64 bytes): then they are recorded as not read.
#include <algorithm>

#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

std::uint32_t le32(std::string_view b, std::size_t off) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[off])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[off + 1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[off + 2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[off + 3])) << 24;
}

constexpr std::uint16_t kExtCapAcs = 0x000D;  // PCIe Base Spec: Access Control Services
constexpr std::uint16_t kExtCapAts = 0x000F;  // Address Translation Services
constexpr std::size_t kConfigSpace = 4096;

// "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0" -> the bridge
// addresses between the root and the function.
std::vector<std::string> upstream_bridges(const std::string& link, const std::string& self) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= link.size()) {
    std::size_t slash = link.find('/', start);
    if (slash == std::string::npos) slash = link.size();
    const std::string part = link.substr(start, slash - start);
    // A PCI address: dddd:bb:dd.f (12 characters, colons at 4 and 7, a dot at 10).
    if (part.size() == 12 && part[4] == ':' && part[7] == ':' && part[10] == '.' && part != self)
      out.push_back(part);
    start = slash + 1;
  }
  return out;
}

}  // namespace

PciExtCaps read_pci_ext_caps(std::string_view config) {
  PciExtCaps caps;
  if (config.size() < kConfigSpace) return caps;
  std::size_t off = 0x100;
  for (int guard = 0; guard < 512 && off >= 0x100 && off + 8 <= kConfigSpace; ++guard) {
    const std::uint32_t header = le32(config, off);
    if (header == 0 || header == 0xffffffffu) break;
    const std::uint16_t id = static_cast<std::uint16_t>(header & 0xffff);
    const std::uint32_t control = le32(config, off + 4) >> 16;  // the 16 bits at +6
    if (id == kExtCapAcs) caps.acs_control = static_cast<std::uint16_t>(control);
    if (id == kExtCapAts) caps.ats_enabled = (control & 0x8000) != 0;
    const std::size_t next = (header >> 20) & 0xffc;
    if (next == 0 || next <= off) break;  // the list only goes forward
    off = next;
  }
  return caps;
}

Fact<PciIsolationFacts> probe_pci_isolation(const Root& root, const Fact<PciFacts>& pci) {
  const std::string dir = "/sys/bus/pci/devices";
  const Provenance where{root.display(dir), 0};
  if (!pci.ok()) return Fact<PciIsolationFacts>::missing("PCI devices " + pci.describe(), where);
  PciIsolationFacts f;
  const DirList iommus = root.list_dir("/sys/class/iommu");
  f.iommu_present = iommus.ok() && !iommus.entries.empty();
  std::vector<std::string> bridges;
  auto read_one = [&](const std::string& addr, const char* role) {
    const std::string base = dir + "/" + addr;
    PciIsolation p;
    p.address = addr;
    p.role = role;
    p.where = {root.display(base + "/config"), 0};
    if (LinkRead g = root.read_link(base + "/iommu_group"); g.ok()) {
      p.iommu_group = basename_of(g.target);
      if (Fact<std::string> t =
              read_attr(root, "/sys/kernel/iommu_groups/" + *p.iommu_group + "/type");
          t.ok())
        p.iommu_type = t.value;
    }
    const FileRead cfg = root.read_file(base + "/config", kConfigSpace);
    if (cfg.ok()) {
      p.config_short = cfg.data.size() < kConfigSpace;
      const PciExtCaps caps = read_pci_ext_caps(cfg.data);
      p.acs_control = caps.acs_control;
      p.ats_enabled = caps.ats_enabled;
    } else {
      p.config_short = true;
    }
    f.functions.push_back(std::move(p));
  };
  for (const PciDevice& d : pci->devices) {
    if (d.address.empty()) continue;
    if (d.kind != PciKind::kNvidiaGpu && d.kind != PciKind::kMellanox) continue;
    read_one(d.address, d.kind == PciKind::kNvidiaGpu ? "gpu" : "nic");
    if (LinkRead l = root.read_link(dir + "/" + d.address); l.ok())
      for (const std::string& b : upstream_bridges(l.target, d.address))
        if (std::find(bridges.begin(), bridges.end(), b) == bridges.end()) bridges.push_back(b);
  }
  for (const std::string& b : bridges) read_one(b, "bridge");
  return Fact<PciIsolationFacts>::present(std::move(f), where);
}

}  // namespace trainready
