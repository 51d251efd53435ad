#include "parsers/pci_ids.h"

namespace trainready {

NicModel mellanox_model(std::uint32_t id) {
  switch (id) {
    case 0x1003:
      return {"ConnectX-3", false};
    case 0x1004:
      return {"ConnectX-3", true};
    case 0x1007:
      return {"ConnectX-3 Pro", false};
    case 0x1011:
      return {"Connect-IB", false};
    case 0x1013:
      return {"ConnectX-4", false};
    case 0x1014:
      return {"ConnectX-4", true};
    case 0x1015:
      return {"ConnectX-4 Lx", false};
    case 0x1016:
      return {"ConnectX-4 Lx", true};
    case 0x1017:
      return {"ConnectX-5", false};
    case 0x1018:
      return {"ConnectX-5", true};
    case 0x1019:
      return {"ConnectX-5 Ex", false};
    case 0x101a:
      return {"ConnectX-5 Ex", true};
    case 0x101b:
      return {"ConnectX-6", false};
    case 0x101c:
      return {"ConnectX-6", true};
    case 0x101d:
      return {"ConnectX-6 Dx", false};
    case 0x101e:
      return {"ConnectX VF (mlx5 Gen)", true};
    case 0x101f:
      return {"ConnectX-6 Lx", false};
    case 0x1021:
      return {"ConnectX-7", false};
    case 0x1023:
      return {"ConnectX-8", false};
    case 0xa2d6:
      return {"BlueField-2", false};
    case 0xa2dc:
      return {"BlueField-3", false};
    default:
      return {"", false};
  }
}

std::string nvidia_gpu_model(std::uint32_t id) {
  switch (id) {
    case 0x1db1:
      return "V100 SXM2 16GB";
    case 0x1db5:
      return "V100 SXM2 32GB";
    case 0x20b0:
      return "A100 SXM4 40GB";
    case 0x20b2:
      return "A100 SXM4 80GB";
    case 0x20b5:
      return "A100 PCIe 80GB";
    case 0x20f1:
      return "A100 PCIe 40GB";
    case 0x2321:
      return "H100 NVL";
    case 0x2330:
      return "H100 SXM5 80GB";
    case 0x2331:
      return "H100 PCIe";
    case 0x2335:
      return "H200 SXM 141GB";
    case 0x2941:
      return "GB200";
    default:
      return "";
  }
}

PciKind classify_pci(std::uint32_t vendor, std::uint32_t device, std::uint32_t class_code) {
  const std::uint32_t base = class_code >> 16;
  const std::uint32_t sub = (class_code >> 8) & 0xff;
  if (vendor == kVendorMellanox && base == 0x02) return PciKind::kMellanox;
  if (vendor == kVendorNvidia && base == 0x03) return PciKind::kNvidiaGpu;
  if (vendor == kVendorNvidia && base == 0x06 && device != 0) return PciKind::kNvSwitch;
  if (vendor == kVendorAmd && (base == 0x12 || (base == 0x03 && sub == 0x80)))
    return PciKind::kAmdGpu;
  if (base == 0x01 && sub == 0x08) return PciKind::kNvme;
  return PciKind::kOther;
}

}  // namespace trainready
