// Whether the node is a virtual machine, for the checks that apply to bare metal only (PCIe
// ACS: GPUd components/pci skips KVM guests and unknown virtualisation, "Virtual machines
// require ACS to function"). Told apart by what the hardware reports, never assumed:
//  - x86 CPUs: the "hypervisor" flag of /proc/cpuinfo (CPUID leaf 1, ECX bit 31, which every
//    hypervisor sets for its guests); a flags line without it is bare metal;
//  - /sys/hypervisor/type (Xen);
//  - DMI: Hyper-V (Azure) guests report sys_vendor "Microsoft Corporation" and product_name
//    "Virtual Machine"; QEMU/KVM "QEMU" or "KVM"; VMware "VMware, Inc.".
// Arm CPUs (Grace) have no such flag: without a DMI answer the result is "unknown".
#include "core/text.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

Fact<VirtInfo> probe_virtualization(const Root& root, const Fact<DmiInfo>& dmi) {
  VirtInfo v;
  if (dmi.ok()) {
    const std::string& vendor = dmi->sys_vendor;
    const std::string& product = dmi->product_name;
    std::string name;
    if (vendor == "Microsoft Corporation" && product == "Virtual Machine")
      name = "Microsoft Hyper-V";
    else if (icontains(vendor, "QEMU") || icontains(product, "KVM") || icontains(product, "QEMU"))
      name = "KVM";
    else if (icontains(vendor, "VMware"))
      name = "VMware";
    if (!name.empty()) {
      v.known = true;
      v.virtual_machine = true;
      v.hypervisor = name;
      v.evidence = "DMI sys_vendor \"" + vendor + "\", product_name \"" + product + "\"";
      v.where = dmi.where;
      return Fact<VirtInfo>::present(v, v.where);
    }
  }
  if (Fact<std::string> t = read_attr(root, "/sys/hypervisor/type"); t.ok() && !t.value.empty()) {
    v.known = true;
    v.virtual_machine = true;
    v.hypervisor = t.value;
    v.evidence = "/sys/hypervisor/type is " + t.value;
    v.where = t.where;
    return Fact<VirtInfo>::present(v, v.where);
  }
  const std::string cpuinfo = "/proc/cpuinfo";
  const FileRead r = root.read_file(cpuinfo, kLargeFileLimit);
  const Provenance where{root.display(cpuinfo), 0};
  if (!r.ok())
    return r.status == ReadStatus::kMissing ? Fact<VirtInfo>::missing(r.error, where)
                                            : Fact<VirtInfo>::unreadable(r.error, where);
  int line_no = 0;
  for (std::string_view line : split_lines(r.data)) {
    ++line_no;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != "flags") continue;
    v.known = true;
    v.where = {where.source, line_no};
    for (std::string_view flag : split_ws(line.substr(colon + 1)))
      if (flag == "hypervisor") {
        v.virtual_machine = true;
        v.evidence = "the CPU flags of /proc/cpuinfo include \"hypervisor\"";
        return Fact<VirtInfo>::present(v, v.where);
      }
    v.evidence = "the CPU flags of /proc/cpuinfo do not include \"hypervisor\"";
    return Fact<VirtInfo>::present(v, v.where);
  }
  v.evidence = "no x86 CPU flags in /proc/cpuinfo and no hypervisor in DMI";
  return Fact<VirtInfo>::present(v, where);
}

}  // namespace trainready
