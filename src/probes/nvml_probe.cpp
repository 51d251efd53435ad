// GPUs through NVML, loaded at run time so one binary runs on GPU and CPU machines alike.
// No library is a fact ("no NVIDIA driver"), not an error. A snapshot carries nvml.json.
#include <dlfcn.h>

#include "core/input_error.h"
#include "parsers/gpu_inventory_json.h"
#include "probes/nvml_abi.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

using NvmlReturn = nvml::Return;
using NvmlDevice = nvml::Device;
using NvmlMemory = nvml::Memory;
using NvmlPciInfo = nvml::PciInfo;

template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

class Library {
 public:
  explicit Library(const std::string& name) : h_(::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  ~Library() {
    if (h_ != nullptr) ::dlclose(h_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* get() const { return h_; }

 private:
  void* h_;
};

using LinkStateFn = NvmlReturn (*)(NvmlDevice, unsigned, int*);
using LinkErrorFn = NvmlReturn (*)(NvmlDevice, unsigned, int, unsigned long long*);

// Links that answer nvmlDeviceGetNvLinkState are the GPU's links; the others return an error.
void read_nvlinks(NvmlDevice dev, LinkStateFn state_fn, LinkErrorFn err_fn, Gpu& gpu) {
  if (state_fn == nullptr) return;
  int links = 0;
  int active = 0;
  std::uint64_t recovery = 0;
  std::uint64_t crc = 0;
  bool counted = false;
  for (unsigned l = 0; l < nvml::kMaxNvLinks; ++l) {
    int is_active = 0;
    if (state_fn(dev, l, &is_active) != 0) continue;
    ++links;
    if (is_active != 0) ++active;
    if (err_fn == nullptr) continue;
    unsigned long long v = 0;
    if (err_fn(dev, l, nvml::kNvLinkErrorRecovery, &v) == 0) {
      recovery += v;
      counted = true;
    }
    for (int c : {nvml::kNvLinkErrorCrcFlit, nvml::kNvLinkErrorCrcData}) {
      if (err_fn(dev, l, c, &v) == 0) crc += v;
    }
  }
  if (links == 0) return;
  gpu.nvlink_links = links;
  gpu.nvlink_active = active;
  if (counted) {
    gpu.nvlink_recovery_errors = recovery;
    gpu.nvlink_crc_errors = crc;
  }
}

}  // namespace

Fact<GpuFacts> read_nvml(const std::string& library) {
  Provenance where{"nvml:" + library, 0};
  GpuFacts g;
  Library lib(library);
  if (lib.get() == nullptr) {
    const char* err = ::dlerror();
    g.no_driver_reason = "no NVIDIA driver: " + library + " could not be loaded" +
                         (err ? std::string(" (") + err + ")" : "");
    return Fact<GpuFacts>::present(g, where);
  }
  auto init = sym<NvmlReturn (*)()>(lib.get(), "nvmlInit_v2");
  auto shutdown = sym<NvmlReturn (*)()>(lib.get(), "nvmlShutdown");
  auto count_fn = sym<NvmlReturn (*)(unsigned*)>(lib.get(), "nvmlDeviceGetCount_v2");
  auto handle_fn =
      sym<NvmlReturn (*)(unsigned, NvmlDevice*)>(lib.get(), "nvmlDeviceGetHandleByIndex_v2");
  if (init == nullptr || count_fn == nullptr || handle_fn == nullptr) {
    return Fact<GpuFacts>::unreadable(library + " lacks nvmlInit_v2/nvmlDeviceGetCount_v2", where);
  }
  if (NvmlReturn rc = init(); rc != 0) {
    g.no_driver_reason = "NVML could not initialise (nvmlInit_v2 returned " + std::to_string(rc) +
                         "): the NVIDIA kernel driver is not loaded or does not match the library";
    return Fact<GpuFacts>::present(g, where);
  }
  g.driver_loaded = true;
  char buf[96] = {};
  if (auto f = sym<NvmlReturn (*)(char*, unsigned)>(lib.get(), "nvmlSystemGetDriverVersion");
      f && f(buf, sizeof(buf)) == 0)
    g.driver_version = buf;
  if (auto f = sym<NvmlReturn (*)(char*, unsigned)>(lib.get(), "nvmlSystemGetNVMLVersion");
      f && f(buf, sizeof(buf)) == 0)
    g.nvml_version = buf;
  auto name_fn = sym<NvmlReturn (*)(NvmlDevice, char*, unsigned)>(lib.get(), "nvmlDeviceGetName");
  auto uuid_fn = sym<NvmlReturn (*)(NvmlDevice, char*, unsigned)>(lib.get(), "nvmlDeviceGetUUID");
  auto serial_fn =
      sym<NvmlReturn (*)(NvmlDevice, char*, unsigned)>(lib.get(), "nvmlDeviceGetSerial");
  auto mem_fn = sym<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>(lib.get(), "nvmlDeviceGetMemoryInfo");
  auto pci_fn = sym<NvmlReturn (*)(NvmlDevice, NvmlPciInfo*)>(lib.get(), "nvmlDeviceGetPciInfo_v3");
  auto ecc_fn = sym<NvmlReturn (*)(NvmlDevice, int*, int*)>(lib.get(), "nvmlDeviceGetEccMode");
  auto ecc_count_fn = sym<NvmlReturn (*)(NvmlDevice, int, int, unsigned long long*)>(
      lib.get(), "nvmlDeviceGetTotalEccErrors");
  auto remap_fn = sym<NvmlReturn (*)(NvmlDevice, unsigned*, unsigned*, unsigned*, unsigned*)>(
      lib.get(), "nvmlDeviceGetRemappedRows");
  auto link_state_fn =
      sym<NvmlReturn (*)(NvmlDevice, unsigned, int*)>(lib.get(), "nvmlDeviceGetNvLinkState");
  auto link_err_fn = sym<NvmlReturn (*)(NvmlDevice, unsigned, int, unsigned long long*)>(
      lib.get(), "nvmlDeviceGetNvLinkErrorCounter");
  auto fabric_fn = sym<NvmlReturn (*)(NvmlDevice, nvml::GpuFabricInfo*)>(
      lib.get(), "nvmlDeviceGetGpuFabricInfo");
  // Renamed in CUDA 12.2 drivers; the old name stays exported.
  auto reasons_fn = sym<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
      lib.get(), "nvmlDeviceGetCurrentClocksEventReasons");
  if (reasons_fn == nullptr)
    reasons_fn = sym<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
        lib.get(), "nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned count = 0;
  if (count_fn(&count) != 0) {
    if (shutdown) shutdown();
    return Fact<GpuFacts>::unreadable("nvmlDeviceGetCount_v2 failed", where);
  }
  for (unsigned i = 0; i < count && i < 64; ++i) {
    NvmlDevice dev = nullptr;
    Gpu gpu;
    gpu.index = static_cast<int>(i);
    if (handle_fn(i, &dev) != 0) {
      gpu.name = "(NVML could not open this GPU)";
      g.gpus.push_back(gpu);
      continue;
    }
    char s[96] = {};
    if (name_fn && name_fn(dev, s, sizeof(s)) == 0) gpu.name = s;
    if (uuid_fn && uuid_fn(dev, s, sizeof(s)) == 0) gpu.uuid = s;
    if (serial_fn && serial_fn(dev, s, sizeof(s)) == 0) gpu.serial = s;
    NvmlMemory mem{};
    if (mem_fn && mem_fn(dev, &mem) == 0) gpu.memory_total_bytes = mem.total;
    NvmlPciInfo pci{};
    if (pci_fn && pci_fn(dev, &pci) == 0) {
      pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
      gpu.pci_bus_id = pci.bus_id;
    }
    int cur = 0;
    int pending = 0;
    if (ecc_fn && ecc_fn(dev, &cur, &pending) == 0) gpu.ecc_enabled = cur != 0;
    unsigned long long unc = 0;
    if (ecc_count_fn && ecc_count_fn(dev, 1 /*uncorrected*/, 0 /*volatile*/, &unc) == 0)
      gpu.ecc_uncorrected_volatile = unc;
    unsigned corr_rows = 0;
    unsigned unc_rows = 0;
    unsigned is_pending = 0;
    unsigned failure = 0;
    if (remap_fn && remap_fn(dev, &corr_rows, &unc_rows, &is_pending, &failure) == 0) {
      gpu.remap_pending = is_pending != 0;
      gpu.remap_failure = failure != 0;
    }
    read_nvlinks(dev, link_state_fn, link_err_fn, gpu);
    nvml::GpuFabricInfo fabric{};
    if (fabric_fn && fabric_fn(dev, &fabric) == 0) {
      static const char* const kStates[] = {"not-supported", "not-started", "in-progress",
                                            "completed"};
      gpu.fabric_state = fabric.state < 4 ? kStates[fabric.state] : "unknown";
      gpu.fabric_status = fabric.status;
      static const char kHex[] = "0123456789abcdef";
      std::string uuid;
      for (unsigned char b : fabric.cluster_uuid) {
        uuid += kHex[b >> 4];
        uuid += kHex[b & 15];
      }
      gpu.fabric_cluster_uuid = uuid;
      gpu.fabric_clique_id = fabric.clique_id;
    }
    unsigned long long reasons = 0;
    if (reasons_fn && reasons_fn(dev, &reasons) == 0) gpu.clocks_event_reasons = reasons;
    g.gpus.push_back(std::move(gpu));
  }
  if (shutdown) shutdown();
  return Fact<GpuFacts>::present(std::move(g), where);
}

Fact<GpuFacts> probe_gpus(const Root& root, const ProbeOptions& opt) {
  if (root.is_live()) return read_nvml(opt.nvml_library);
  Fact<std::string> text = read_text(root, kSnapNvml, kLargeFileLimit);
  if (text.status == FactStatus::kMissing)
    return Fact<GpuFacts>::missing("the snapshot has no nvml.json", text.where);
  if (!text.ok()) return Fact<GpuFacts>::unreadable(text.reason, text.where);
  try {
    return Fact<GpuFacts>::present(parse_gpu_inventory_json(text.value, text.where.source),
                                   text.where);
  } catch (const InputError& e) {
    return Fact<GpuFacts>::unreadable(e.what(), text.where);
  }
}

}  // namespace trainready
