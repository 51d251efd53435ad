#pragma once
// The subset of the NVML ABI trainready calls (layouts as in nvml.h, stable across drivers).
// Declared here so the build needs no CUDA headers; tests/fake_nvml implements the same ABI.

namespace trainready::nvml {

using Return = int;  // nvmlReturn_t: 0 = success
using Device = void*;

struct Memory {  // nvmlMemory_t
  unsigned long long total, free, used;
};

struct PciInfo {  // nvmlPciInfo_t (v3)
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

}  // namespace trainready::nvml
