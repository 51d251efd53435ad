// PCI devices from /sys/bus/pci/devices: Mellanox/NVIDIA network adapters, GPUs, NVMe, with
// their negotiated PCIe link.
#include "core/text.h"
#include "parsers/pci_ids.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

Fact<PciFacts> probe_pci(const Root& root) {
  const std::string dir = "/sys/bus/pci/devices";
  Provenance where{root.display(dir), 0};
  DirList list = root.list_dir(dir);
  if (list.status == ReadStatus::kMissing) return Fact<PciFacts>::missing(list.error, where);
  if (list.status == ReadStatus::kUnreadable) return Fact<PciFacts>::unreadable(list.error, where);
  PciFacts facts;
  for (const std::string& addr : list.entries) {
    const std::string base = dir + "/" + addr;
    auto vendor = parse_int(read_attr(root, base + "/vendor").value, 16);
    auto device = parse_int(read_attr(root, base + "/device").value, 16);
    auto cls = parse_int(read_attr(root, base + "/class").value, 16);
    if (!vendor || !device || !cls) continue;
    PciDevice d;
    d.address = addr;
    d.vendor = static_cast<std::uint32_t>(*vendor);
    d.device = static_cast<std::uint32_t>(*device);
    d.class_code = static_cast<std::uint32_t>(*cls);
    d.kind = classify_pci(d.vendor, d.device, d.class_code);
    if (d.kind == PciKind::kOther) continue;
    d.where = {root.display(base), 0};
    if (d.kind == PciKind::kMellanox) {
      NicModel m = mellanox_model(d.device);
      d.model = m.name;
      d.virtual_function = m.virtual_function;
    } else if (d.kind == PciKind::kNvidiaGpu) {
      d.model = nvidia_gpu_model(d.device);
    }
    if (root.read_link(base + "/physfn").ok()) d.virtual_function = true;
    if (auto v = read_attr(root, base + "/current_link_speed"); v.ok()) d.link_speed = v.value;
    if (auto v = read_attr(root, base + "/max_link_speed"); v.ok()) d.max_link_speed = v.value;
    if (auto v = parse_int(read_attr(root, base + "/current_link_width").value))
      d.link_width = static_cast<int>(*v);
    if (auto v = parse_int(read_attr(root, base + "/max_link_width").value))
      d.max_link_width = static_cast<int>(*v);
    if (auto v = parse_int(read_attr(root, base + "/numa_node").value))
      d.numa_node = static_cast<int>(*v);
    if (LinkRead l = root.read_link(base + "/driver"); l.ok()) d.driver = basename_of(l.target);
    facts.devices.push_back(std::move(d));
  }
  return Fact<PciFacts>::present(std::move(facts), where);
}

}  // namespace trainready
