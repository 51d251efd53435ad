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

struct GpuFabricInfo {  // nvmlGpuFabricInfo_t (R530+; nvmlGpuFabricState_t is an unsigned char)
  unsigned char cluster_uuid[16];
  Return status;
  unsigned int clique_id;
  unsigned char state;  // 0 not supported, 1 not started, 2 in progress, 3 completed
};

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu, memory;
};
inline constexpr int kClockSm = 1;          // nvmlClockType_t NVML_CLOCK_SM
inline constexpr int kPcieUtilTxBytes = 0;  // nvmlPcieUtilCounter_t
inline constexpr int kPcieUtilRxBytes = 1;

inline constexpr unsigned kMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS
// nvmlNvLinkErrorCounter_t
inline constexpr int kNvLinkErrorReplay = 0;
inline constexpr int kNvLinkErrorRecovery = 1;
inline constexpr int kNvLinkErrorCrcFlit = 2;
inline constexpr int kNvLinkErrorCrcData = 3;

}  // namespace trainready::nvml
