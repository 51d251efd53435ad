#include "watch/dcgm_sampler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "watch/dcgm_abi.h"

namespace trainready::watch {
namespace {

template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

struct GpuValues {
  std::string uuid;
  std::optional<double> sm_active, sm_occupancy, tensor_active, nvlink_tx, nvlink_rx;
};

std::optional<double> ratio(const dcgm::FieldValueV1& v) {
  if (v.status != dcgm::kStOk) return std::nullopt;
  double x = 0;
  if (v.field_type == dcgm::kFtDouble) {
    if (!(v.value.dbl < dcgm::kFp64Blank)) return std::nullopt;  // blank, or NaN
    x = v.value.dbl;
  } else if (v.field_type == dcgm::kFtInt64) {
    if (v.value.i64 >= dcgm::kInt64Blank) return std::nullopt;
    x = static_cast<double>(v.value.i64);
  } else {
    return std::nullopt;
  }
  return x >= 0 ? std::optional<double>(x) : std::nullopt;
}

int collect(unsigned int gpu_id, dcgm::FieldValueV1* values, int n, void* user) {
  auto& out = *static_cast<std::map<unsigned, GpuValues>*>(user);
  GpuValues& g = out[gpu_id];
  for (int i = 0; i < n; ++i) {
    const dcgm::FieldValueV1& v = values[i];
    switch (v.field_id) {
      case dcgm::kFiDevUuid:
        if (v.status == dcgm::kStOk && v.field_type == dcgm::kFtString)
          g.uuid.assign(v.value.str, ::strnlen(v.value.str, sizeof v.value.str));
        break;
      case dcgm::kFiProfSmActive:
        g.sm_active = ratio(v);
        break;
      case dcgm::kFiProfSmOccupancy:
        g.sm_occupancy = ratio(v);
        break;
      case dcgm::kFiProfPipeTensorActive:
        g.tensor_active = ratio(v);
        break;
      case dcgm::kFiProfNvLinkTxBytes:
        g.nvlink_tx = ratio(v);
        break;
      case dcgm::kFiProfNvLinkRxBytes:
        g.nvlink_rx = ratio(v);
        break;
      default:
        break;
    }
  }
  return 0;
}

std::optional<double> unit_ratio(std::optional<double> v) {
  return v && *v <= 1.0 ? v : std::nullopt;
}

}  // namespace

DcgmOptions dcgm_options(const std::string& address, const std::string& library, bool live_root,
                         double interval_s) {
  DcgmOptions o;
  o.interval_s = interval_s;
  o.address = address.empty() ? "127.0.0.1:" + std::to_string(dcgm::kHostEnginePort) : address;
  if (address == "off") {
    o.off_reason = "DCGM not used (--dcgm off)";
  } else if (!library.empty()) {
    o.libraries = {library};
  } else if (live_root) {
    // DCGM 4 ships libdcgm.so.4; DCGM 3 libdcgm.so.3. The C API used here is in both.
    o.libraries = {"libdcgm.so.4", "libdcgm.so.3"};
  } else {
    o.off_reason = "no DCGM (reading a --root tree; give --dcgm-library to attach)";
  }
  return o;
}

struct DcgmSampler::Impl {
  void* lib = nullptr;
  bool initialised = false;
  bool attached = false;
  bool watching = false;
  bool have_group = false;
  std::string address;
  std::string unavailable;
  dcgm::Handle handle = 0;
  dcgm::FieldGroup group = 0;
  dcgm::ShutdownFn shutdown = nullptr;
  dcgm::DisconnectFn disconnect = nullptr;
  dcgm::FieldGroupDestroyFn group_destroy = nullptr;
  dcgm::UnwatchFieldsFn unwatch = nullptr;
  dcgm::GetLatestValuesFn latest = nullptr;
};

DcgmSampler::DcgmSampler(const DcgmOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.address = o.address;
  if (o.libraries.empty()) {
    m.unavailable = o.off_reason;
    return;
  }
  std::string tried;
  for (const std::string& l : o.libraries) {
    m.lib = ::dlopen(l.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (m.lib != nullptr) break;
    tried += (tried.empty() ? "" : ", ") + l;
  }
  if (m.lib == nullptr) {
    m.unavailable = "no DCGM: " + tried + " could not be loaded";
    return;
  }
  auto init = sym<dcgm::InitFn>(m.lib, "dcgmInit");
  auto connect = sym<dcgm::ConnectV2Fn>(m.lib, "dcgmConnect_v2");
  auto group_create = sym<dcgm::FieldGroupCreateFn>(m.lib, "dcgmFieldGroupCreate");
  auto watch = sym<dcgm::WatchFieldsFn>(m.lib, "dcgmWatchFields");
  m.shutdown = sym<dcgm::ShutdownFn>(m.lib, "dcgmShutdown");
  m.disconnect = sym<dcgm::DisconnectFn>(m.lib, "dcgmDisconnect");
  m.group_destroy = sym<dcgm::FieldGroupDestroyFn>(m.lib, "dcgmFieldGroupDestroy");
  m.unwatch = sym<dcgm::UnwatchFieldsFn>(m.lib, "dcgmUnwatchFields");
  m.latest = sym<dcgm::GetLatestValuesFn>(m.lib, "dcgmGetLatestValues");
  if (!init || !connect || !group_create || !watch || !m.latest || !m.disconnect) {
    m.unavailable = "the DCGM library lacks dcgmConnect_v2 / dcgmGetLatestValues";
    return;
  }
  if (dcgm::Return rc = init(); rc != dcgm::kStOk) {
    m.unavailable = "dcgmInit returned " + std::to_string(rc);
    return;
  }
  m.initialised = true;
  // persistAfterDisconnect 0: the host engine removes our watches when we disconnect or die.
  dcgm::ConnectV2Params p{dcgm::kConnectV2ParamsVersion2, 0, 1000, 0};
  if (dcgm::Return rc = connect(m.address.c_str(), &p, &m.handle); rc != dcgm::kStOk) {
    m.unavailable = "no DCGM host engine at " + m.address + " (dcgmConnect_v2 returned " +
                    std::to_string(rc) + ")";
    return;
  }
  m.attached = true;
  const unsigned short fields[] = {dcgm::kFiDevUuid,           dcgm::kFiProfSmActive,
                                   dcgm::kFiProfSmOccupancy,   dcgm::kFiProfPipeTensorActive,
                                   dcgm::kFiProfNvLinkTxBytes, dcgm::kFiProfNvLinkRxBytes};
  // Field group names are unique per host engine: several watch processes may attach.
  const std::string name = "trainready-watch-" + std::to_string(::getpid());
  if (dcgm::Return rc = group_create(m.handle, 6, fields, name.c_str(), &m.group);
      rc != dcgm::kStOk) {
    m.unavailable = "DCGM host engine at " + m.address +
                    " refused a field group (dcgmFieldGroupCreate returned " + std::to_string(rc) +
                    ")";
    return;
  }
  m.have_group = true;
  // Refresh at the sampling interval (at least 100 ms, the profiling counters' own floor), keep
  // a few seconds: only the latest value is read.
  const long long every_us = static_cast<long long>(std::max(o.interval_s, 0.1) * 1e6);
  if (dcgm::Return rc = watch(m.handle, dcgm::kGroupAllGpus, m.group, every_us, 10.0, 4);
      rc != dcgm::kStOk) {
    // -29 DCGM_ST_REQUIRES_ROOT (host engine not root), -36 PROFILING_NOT_SUPPORTED, -37/-38.
    m.unavailable = "DCGM host engine at " + m.address +
                    " would not watch the profiling fields (dcgmWatchFields returned " +
                    std::to_string(rc) + ")";
    return;
  }
  m.watching = true;
}

DcgmSampler::~DcgmSampler() {
  Impl& m = *impl_;
  if (m.watching && m.unwatch) m.unwatch(m.handle, dcgm::kGroupAllGpus, m.group);
  if (m.have_group && m.group_destroy) m.group_destroy(m.handle, m.group);
  if (m.attached && m.disconnect) m.disconnect(m.handle);
  if (m.initialised && m.shutdown) m.shutdown();
  if (m.lib != nullptr) ::dlclose(m.lib);
}

bool DcgmSampler::attached() const { return impl_->watching; }
const std::string& DcgmSampler::unavailable() const { return impl_->unavailable; }

void DcgmSampler::sample(Sample& s) {
  Impl& m = *impl_;
  if (!m.watching) {
    s.gpu_profiling_unavailable = m.unavailable;
    return;
  }
  std::map<unsigned, GpuValues> got;
  if (dcgm::Return rc = m.latest(m.handle, dcgm::kGroupAllGpus, m.group, collect, &got);
      rc != dcgm::kStOk) {
    s.gpu_profiling_unavailable =
        "DCGM host engine at " + m.address + ": dcgmGetLatestValues returned " + std::to_string(rc);
    return;
  }
  bool any = false;
  for (GpuSample& g : s.gpus) {
    const GpuValues* v = nullptr;
    for (const auto& [id, vals] : got) {
      if (!g.uuid.empty() && vals.uuid == g.uuid) v = &vals;
    }
    if (v == nullptr) {
      // Without a UUID on one side, take DCGM's gpuId for NVML's index (an assumption, stated in
      // docs/watch.md: nothing better is left to match on).
      auto it = got.find(static_cast<unsigned>(g.index));
      if (it != got.end() && (g.uuid.empty() || it->second.uuid.empty())) v = &it->second;
    }
    if (v == nullptr) continue;
    g.sm_active_ratio = unit_ratio(v->sm_active);
    g.sm_occupancy_ratio = unit_ratio(v->sm_occupancy);
    g.tensor_active_ratio = unit_ratio(v->tensor_active);
    g.nvlink_tx_bytes_per_s = v->nvlink_tx;
    g.nvlink_rx_bytes_per_s = v->nvlink_rx;
    any = any || g.sm_active_ratio || g.tensor_active_ratio;
  }
  s.gpu_profiling_unavailable.clear();
  if (s.gpus.empty()) {
    s.gpu_profiling_unavailable = "DCGM host engine at " + m.address +
                                  " attached, but NVML lists no GPU to put its values on";
  } else if (!any && got.empty()) {
    s.gpu_profiling_unavailable = "DCGM host engine at " + m.address + " returned no GPU";
  } else {
    s.gpu_profiling_source = "DCGM host engine " + m.address;
  }
}

}  // namespace trainready::watch
