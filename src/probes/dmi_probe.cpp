// Cloud identity from DMI: Azure VMs say "Microsoft Corporation" and carry Azure's fixed chassis
// asset tag (Hyper-V on-premises does not).
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

namespace {
constexpr const char* kAzureAssetTag = "7783-7084-3265-9085-8269-3286-77";
}

Fact<DmiInfo> probe_dmi(const Root& root) {
  const std::string base = "/sys/class/dmi/id/";
  Fact<std::string> vendor = read_attr(root, base + "sys_vendor");
  if (!vendor.ok()) {
    if (vendor.status == FactStatus::kMissing)
      return Fact<DmiInfo>::missing(vendor.where.source + " does not exist", vendor.where);
    return Fact<DmiInfo>::unreadable(vendor.reason, vendor.where);
  }
  DmiInfo d;
  d.sys_vendor = vendor.value;
  if (auto p = read_attr(root, base + "product_name"); p.ok()) d.product_name = p.value;
  // chassis_asset_tag is root-only on some kernels; unreadable then, which is fine.
  if (auto t = read_attr(root, base + "chassis_asset_tag"); t.ok()) d.chassis_asset_tag = t.value;
  d.azure = d.sys_vendor == "Microsoft Corporation" &&
            (d.chassis_asset_tag == kAzureAssetTag || d.chassis_asset_tag.empty());
  return Fact<DmiInfo>::present(d, vendor.where);
}

}  // namespace trainready
