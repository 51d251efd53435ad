#include "watch/nvml_sampler.h"

#include <dlfcn.h>

#include "probes/nvml_abi.h"

namespace trainready::watch {
namespace {

using Ret = nvml::Return;
using Dev = nvml::Device;

template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

}  // namespace

struct NvmlSampler::Impl {
  void* lib = nullptr;
  bool initialised = false;
  std::string unavailable;
  std::vector<Dev> devices;
  std::vector<std::string> names;
  std::vector<std::string> uuids;
  Ret (*shutdown)() = nullptr;
  Ret (*util)(Dev, nvml::Utilization*) = nullptr;
  Ret (*clock)(Dev, int, unsigned*) = nullptr;
  Ret (*power)(Dev, unsigned*) = nullptr;
  Ret (*memory)(Dev, nvml::Memory*) = nullptr;
  Ret (*reasons)(Dev, unsigned long long*) = nullptr;
  Ret (*pcie)(Dev, int, unsigned*) = nullptr;
};

NvmlSampler::NvmlSampler(const std::string& library) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (library.empty()) {
    m.unavailable = "no NVML library (reading a --root tree; give --nvml-library to add GPUs)";
    return;
  }
  m.lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m.lib == nullptr) {
    const char* err = ::dlerror();
    m.unavailable = "no NVIDIA driver: " + library + " could not be loaded" +
                    (err ? std::string(" (") + err + ")" : "");
    return;
  }
  auto init = sym<Ret (*)()>(m.lib, "nvmlInit_v2");
  auto count_fn = sym<Ret (*)(unsigned*)>(m.lib, "nvmlDeviceGetCount_v2");
  auto handle_fn = sym<Ret (*)(unsigned, Dev*)>(m.lib, "nvmlDeviceGetHandleByIndex_v2");
  if (init == nullptr || count_fn == nullptr || handle_fn == nullptr) {
    m.unavailable = library + " lacks nvmlInit_v2 / nvmlDeviceGetCount_v2";
    return;
  }
  if (Ret rc = init(); rc != 0) {
    m.unavailable = "NVML could not initialise (nvmlInit_v2 returned " + std::to_string(rc) +
                    "): the NVIDIA kernel driver is not loaded or does not match the library";
    return;
  }
  m.initialised = true;
  m.shutdown = sym<Ret (*)()>(m.lib, "nvmlShutdown");
  m.util = sym<Ret (*)(Dev, nvml::Utilization*)>(m.lib, "nvmlDeviceGetUtilizationRates");
  m.clock = sym<Ret (*)(Dev, int, unsigned*)>(m.lib, "nvmlDeviceGetClockInfo");
  m.power = sym<Ret (*)(Dev, unsigned*)>(m.lib, "nvmlDeviceGetPowerUsage");
  m.memory = sym<Ret (*)(Dev, nvml::Memory*)>(m.lib, "nvmlDeviceGetMemoryInfo");
  // Renamed in CUDA 12.2 drivers; the old name stays exported.
  m.reasons =
      sym<Ret (*)(Dev, unsigned long long*)>(m.lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (m.reasons == nullptr)
    m.reasons =
        sym<Ret (*)(Dev, unsigned long long*)>(m.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  m.pcie = sym<Ret (*)(Dev, int, unsigned*)>(m.lib, "nvmlDeviceGetPcieThroughput");
  auto name_fn = sym<Ret (*)(Dev, char*, unsigned)>(m.lib, "nvmlDeviceGetName");
  auto uuid_fn = sym<Ret (*)(Dev, char*, unsigned)>(m.lib, "nvmlDeviceGetUUID");
  unsigned count = 0;
  if (count_fn(&count) != 0) {
    m.unavailable = "nvmlDeviceGetCount_v2 failed";
    return;
  }
  for (unsigned i = 0; i < count && i < 64; ++i) {
    Dev d = nullptr;
    if (handle_fn(i, &d) != 0) d = nullptr;
    char buf[96] = {};
    m.devices.push_back(d);
    m.names.push_back(d && name_fn && name_fn(d, buf, sizeof buf) == 0 ? buf : "");
    buf[0] = 0;
    m.uuids.push_back(d && uuid_fn && uuid_fn(d, buf, sizeof buf) == 0 ? buf : "");
  }
  if (m.devices.empty()) m.unavailable = "NVML answered but reports no GPU";
}

NvmlSampler::~NvmlSampler() {
  if (impl_->initialised && impl_->shutdown) impl_->shutdown();
  if (impl_->lib != nullptr) ::dlclose(impl_->lib);
}

void NvmlSampler::sample(Sample& s) const {
  const Impl& m = *impl_;
  if (!m.unavailable.empty()) {
    s.gpu_unavailable = m.unavailable;
    return;
  }
  for (std::size_t i = 0; i < m.devices.size(); ++i) {
    GpuSample g;
    g.index = static_cast<int>(i);
    g.name = m.names[i];
    g.uuid = m.uuids[i];
    Dev d = m.devices[i];
    if (d != nullptr) {
      nvml::Utilization u{};
      if (m.util && m.util(d, &u) == 0 && u.gpu <= 100 && u.memory <= 100) {
        g.util_percent = u.gpu;
        g.mem_util_percent = u.memory;
      }
      unsigned v = 0;
      if (m.clock && m.clock(d, nvml::kClockSm, &v) == 0) g.sm_clock_mhz = v;
      if (m.power && m.power(d, &v) == 0) g.power_watts = v / 1000.0;  // NVML reports mW
      nvml::Memory mem{};
      if (m.memory && m.memory(d, &mem) == 0) {
        g.mem_used_bytes = mem.used;
        g.mem_total_bytes = mem.total;
      }
      unsigned long long r = 0;
      if (m.reasons && m.reasons(d, &r) == 0) g.clocks_event_reasons = r;
      // NVML: KB/s over a 20 ms window; KB here is 1024 bytes (nvml.h,
      // nvmlDeviceGetPcieThroughput).
      if (m.pcie && m.pcie(d, nvml::kPcieUtilTxBytes, &v) == 0) g.pcie_tx_bytes_per_s = v * 1024.0;
      if (m.pcie && m.pcie(d, nvml::kPcieUtilRxBytes, &v) == 0) g.pcie_rx_bytes_per_s = v * 1024.0;
    }
    s.gpus.push_back(std::move(g));
  }
}

}  // namespace trainready::watch
