#pragma once
// The few PCI ids trainready cares about: Mellanox/NVIDIA network adapters (0x15b3), NVIDIA and
// AMD accelerators, NVMe. Kept as a table in code because no pci.ids ships on a minimal image.
#include <cstdint>
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

inline constexpr std::uint32_t kVendorMellanox = 0x15b3;
inline constexpr std::uint32_t kVendorNvidia = 0x10de;
inline constexpr std::uint32_t kVendorAmd = 0x1002;

struct NicModel {
  std::string name;  // "ConnectX-7"; empty when unknown
  bool virtual_function = false;
};

NicModel mellanox_model(std::uint32_t device_id);
std::string nvidia_gpu_model(std::uint32_t device_id);  // "H100 SXM5"; empty when unknown
PciKind classify_pci(std::uint32_t vendor, std::uint32_t device, std::uint32_t class_code);

}  // namespace trainready
