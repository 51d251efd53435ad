#include "watch/nvml_sampler.h"

#include <dlfcn.h>
#include <time.h>

#include "watch/counter_delta.h"
#include "watch/nvml_gpm_abi.h"

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
  Ret (*power_limit)(Dev, unsigned*) = nullptr;
  Ret (*memory)(Dev, nvml::Memory*) = nullptr;
  Ret (*reasons)(Dev, unsigned long long*) = nullptr;
  Ret (*pcie)(Dev, int, unsigned*) = nullptr;
  Ret (*field_values)(Dev, int, nvml::FieldValue*) = nullptr;
  // GPM: two sample buffers per GPU, the previous and the next; metrics need both.
  bool gpm_wanted = true;
  std::string gpm_unavailable;
  Ret (*gpm_sample_get)(Dev, nvml::GpmSample) = nullptr;
  Ret (*gpm_metrics_get)(nvml::GpmMetricsGet*) = nullptr;
  Ret (*gpm_sample_free)(nvml::GpmSample) = nullptr;
  struct PerGpu {
    bool gpm = false;
    nvml::GpmSample buf[2] = {nullptr, nullptr};
    int next = 0;
    bool have_prev = false;
    Counter nvlink_tx_kib, nvlink_rx_kib;  // the previous reading, for the rate
    double nvlink_time = 0;
  };
  std::vector<PerGpu> per_gpu;
  void setup_gpm();
  void read_gpm(std::size_t i, GpuSample& g, std::string& failure);
  void read_nvlink(std::size_t i, GpuSample& g, double now);
};

namespace {
double monotonic_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
}  // namespace

void NvmlSampler::Impl::setup_gpm() {
  per_gpu.resize(devices.size());
  if (!gpm_wanted) {
    gpm_unavailable = "NVML GPM not used: a DCGM host engine owns the profiling counters";
    return;
  }
  auto support = sym<Ret (*)(Dev, nvml::GpmSupport*)>(lib, "nvmlGpmQueryDeviceSupport");
  auto alloc = sym<Ret (*)(nvml::GpmSample*)>(lib, "nvmlGpmSampleAlloc");
  gpm_sample_get = sym<Ret (*)(Dev, nvml::GpmSample)>(lib, "nvmlGpmSampleGet");
  gpm_metrics_get = sym<Ret (*)(nvml::GpmMetricsGet*)>(lib, "nvmlGpmMetricsGet");
  gpm_sample_free = sym<Ret (*)(nvml::GpmSample)>(lib, "nvmlGpmSampleFree");
  if (!support || !alloc || !gpm_sample_get || !gpm_metrics_get || !gpm_sample_free) {
    gpm_unavailable = "this NVML has no GPM (nvmlGpmSampleGet: R520+ drivers)";
    return;
  }
  int supported = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    nvml::GpmSupport sup{nvml::kGpmSupportVersion, 0};
    if (devices[i] == nullptr || support(devices[i], &sup) != 0 || sup.is_supported_device == 0)
      continue;
    PerGpu& p = per_gpu[i];
    if (alloc(&p.buf[0]) != 0 || alloc(&p.buf[1]) != 0) continue;
    p.gpm = true;
    ++supported;
  }
  if (supported == 0)
    gpm_unavailable = "NVML GPM not supported on these GPUs (Hopper and newer; not in vGPU)";
}

void NvmlSampler::Impl::read_gpm(std::size_t i, GpuSample& g, std::string& failure) {
  PerGpu& p = per_gpu[i];
  if (!p.gpm) return;
  nvml::GpmSample cur = p.buf[p.next];
  if (Ret rc = gpm_sample_get(devices[i], cur); rc != 0) {
    // The GPU's performance monitors serve one client: with a DCGM host engine (or Nsight)
    // profiling, GPM fails here; attach to the host engine instead (--dcgm).
    failure = "nvmlGpmSampleGet returned " + std::to_string(rc) +
              " (a DCGM host engine or a profiler holding the GPU's performance monitors makes "
              "GPM fail: give --dcgm HOST:PORT to read them through the host engine)";
    p.have_prev = false;
    return;
  }
  if (p.have_prev) {
    // The previous sample is sample1, this one sample2; NVML wants them > 100 ms apart.
    auto mg = std::make_unique<nvml::GpmMetricsGet>();
    mg->version = nvml::kGpmMetricsGetVersion;
    mg->num_metrics = 3;
    mg->sample1 = p.buf[1 - p.next];
    mg->sample2 = cur;
    mg->metrics[0].metric_id = nvml::kGpmSmUtil;
    mg->metrics[1].metric_id = nvml::kGpmSmOccupancy;
    mg->metrics[2].metric_id = nvml::kGpmAnyTensorUtil;
    if (gpm_metrics_get(mg.get()) == 0) {
      auto ratio = [&](int k) -> std::optional<double> {
        const nvml::GpmMetric& m = mg->metrics[k];
        if (m.nvml_return != 0 || !(m.value >= 0 && m.value <= 100)) return std::nullopt;
        return m.value / 100.0;  // the GPM *_UTIL metrics are percent, 0.0 - 100.0
      };
      g.sm_active_ratio = ratio(0);
      g.sm_occupancy_ratio = ratio(1);
      g.tensor_active_ratio = ratio(2);
    }
  }
  p.have_prev = true;
  p.next = 1 - p.next;
}

void NvmlSampler::Impl::read_nvlink(std::size_t i, GpuSample& g, double now) {
  if (field_values == nullptr) return;
  nvml::FieldValue fv[2] = {};
  fv[0].field_id = nvml::kFiNvLinkThroughputDataTx;
  fv[1].field_id = nvml::kFiNvLinkThroughputDataRx;
  fv[0].scope_id = fv[1].scope_id = nvml::kScopeAllLinks;
  if (field_values(devices[i], 2, fv) != 0) return;
  auto value = [](const nvml::FieldValue& v) -> Counter {
    if (v.nvml_return != 0) return std::nullopt;
    switch (v.value_type) {
      case nvml::kValueTypeUnsignedLongLong:
        return v.value.ull_val;
      case nvml::kValueTypeUnsignedLong:
        return v.value.ul_val;
      case nvml::kValueTypeUnsignedInt:
        return v.value.ui_val;
      default:
        return std::nullopt;
    }
  };
  g.nvlink_tx_kib = value(fv[0]);
  g.nvlink_rx_kib = value(fv[1]);
  PerGpu& p = per_gpu[i];
  const double dt = now - p.nvlink_time;
  if (p.nvlink_time > 0 && dt > 0) {
    if (auto d = counter_delta(p.nvlink_tx_kib, g.nvlink_tx_kib, CounterKind::kWraps64))
      g.nvlink_tx_bytes_per_s = static_cast<double>(*d) * 1024 / dt;
    if (auto d = counter_delta(p.nvlink_rx_kib, g.nvlink_rx_kib, CounterKind::kWraps64))
      g.nvlink_rx_bytes_per_s = static_cast<double>(*d) * 1024 / dt;
  }
  p.nvlink_tx_kib = g.nvlink_tx_kib;
  p.nvlink_rx_kib = g.nvlink_rx_kib;
  p.nvlink_time = now;
}

NvmlSampler::NvmlSampler(const std::string& library, bool use_gpm)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.gpm_wanted = use_gpm;
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
  m.power_limit = sym<Ret (*)(Dev, unsigned*)>(m.lib, "nvmlDeviceGetEnforcedPowerLimit");
  m.memory = sym<Ret (*)(Dev, nvml::Memory*)>(m.lib, "nvmlDeviceGetMemoryInfo");
  // Renamed in CUDA 12.2 drivers; the old name stays exported.
  m.reasons =
      sym<Ret (*)(Dev, unsigned long long*)>(m.lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (m.reasons == nullptr)
    m.reasons =
        sym<Ret (*)(Dev, unsigned long long*)>(m.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  m.pcie = sym<Ret (*)(Dev, int, unsigned*)>(m.lib, "nvmlDeviceGetPcieThroughput");
  m.field_values = sym<Ret (*)(Dev, int, nvml::FieldValue*)>(m.lib, "nvmlDeviceGetFieldValues");
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
  if (m.devices.empty()) {
    m.unavailable = "NVML answered but reports no GPU";
    return;
  }
  m.setup_gpm();
}

NvmlSampler::~NvmlSampler() {
  for (Impl::PerGpu& p : impl_->per_gpu) {
    for (nvml::GpmSample b : p.buf) {
      if (b != nullptr && impl_->gpm_sample_free) impl_->gpm_sample_free(b);
    }
  }
  if (impl_->initialised && impl_->shutdown) impl_->shutdown();
  if (impl_->lib != nullptr) ::dlclose(impl_->lib);
}

void NvmlSampler::sample(Sample& s) {
  Impl& m = *impl_;
  if (!m.unavailable.empty()) {
    s.gpu_unavailable = m.unavailable;
    return;
  }
  const double now = monotonic_now();
  std::string gpm_failure;
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
      // Also mW (nvml.h, nvmlDeviceGetEnforcedPowerLimit); 0 is no limit to compare with.
      if (m.power_limit && m.power_limit(d, &v) == 0 && v > 0) g.power_limit_watts = v / 1000.0;
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
      m.read_gpm(i, g, gpm_failure);
      m.read_nvlink(i, g, now);
    }
    s.gpus.push_back(std::move(g));
  }
  if (!m.gpm_unavailable.empty()) {
    s.gpu_profiling_unavailable = m.gpm_unavailable;
  } else if (!gpm_failure.empty()) {
    s.gpu_profiling_unavailable = gpm_failure;
  } else {
    s.gpu_profiling_source = "NVML GPM";
  }
}

}  // namespace trainready::watch
