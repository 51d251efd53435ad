// A stand-in for libnvidia-ml.so.1: exports the NVML entry points trainready calls and answers
// from the JSON file named by TRAINREADY_FAKE_NVML (the nvml.json format of a snapshot).
// FAKE_NVML_INIT_FAILS=1 makes nvmlInit_v2 fail as it does when the kernel driver is missing.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/nvml_abi.h"
#include "watch/nvml_gpm_abi.h"

namespace {

nlohmann::json g_doc;
bool g_loaded = false;

using trainready::nvml::GpuFabricInfo;
using trainready::nvml::Memory;
using trainready::nvml::PciInfo;
using trainready::nvml::Utilization;

const nlohmann::json* gpu(void* handle) {
  auto idx = reinterpret_cast<std::size_t>(handle) - 1;
  if (!g_loaded || idx >= g_doc["gpus"].size()) return nullptr;
  return &g_doc["gpus"][idx];
}

// A GPU's field, or null when the recorded GPU lacks it (older nvml.json files).
const nlohmann::json& field(void* handle, const char* key) {
  static const nlohmann::json kNull;
  const nlohmann::json* g = gpu(handle);
  if (g == nullptr || !g->contains(key)) return kNull;
  return (*g)[key];
}

// A GPM sample buffer: which GPU filled it and how many nvmlGpmSampleGet calls that GPU had seen.
struct FakeGpmSample {
  std::size_t gpu = 0;
  std::size_t seq = 0;
  bool filled = false;
};
std::size_t g_gpm_calls[64] = {};
std::size_t g_field_calls[64] = {};

int copy(const std::string& s, char* out, unsigned n) {
  if (s.size() + 1 > n) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(out, s.c_str(), s.size() + 1);
  return 0;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  if (const char* f = std::getenv("FAKE_NVML_INIT_FAILS"); f && std::string(f) == "1")
    return 9;  // DRIVER_NOT_LOADED
  const char* path = std::getenv("TRAINREADY_FAKE_NVML");
  if (path == nullptr) return 999;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  g_doc = nlohmann::json::parse(ss.str(), nullptr, false);
  g_loaded = !g_doc.is_discarded();
  return g_loaded ? 0 : 999;
}
int nvmlShutdown() { return 0; }
int nvmlSystemGetDriverVersion(char* out, unsigned n) {
  return copy(g_doc.value("driver_version", ""), out, n);
}
int nvmlSystemGetNVMLVersion(char* out, unsigned n) {
  return copy(g_doc.value("nvml_version", ""), out, n);
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = static_cast<unsigned>(g_doc["gpus"].size());
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** handle) {
  if (i >= g_doc["gpus"].size()) return 2;
  *handle = reinterpret_cast<void*>(static_cast<std::size_t>(i) + 1);
  return 0;
}
int nvmlDeviceGetName(void* h, char* out, unsigned n) {
  return gpu(h) ? copy(gpu(h)->value("name", ""), out, n) : 2;
}
int nvmlDeviceGetUUID(void* h, char* out, unsigned n) {
  return gpu(h) ? copy(gpu(h)->value("uuid", ""), out, n) : 2;
}
int nvmlDeviceGetSerial(void* h, char* out, unsigned n) {
  return gpu(h) ? copy(gpu(h)->value("serial", ""), out, n) : 2;
}
int nvmlDeviceGetMemoryInfo(void* h, Memory* m) {
  if (!gpu(h)) return 2;
  m->total = gpu(h)->value("memory_total_bytes", 0ULL);
  m->free = m->total;
  m->used = 0;
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* h, PciInfo* p) {
  if (!gpu(h)) return 2;
  std::memset(p, 0, sizeof(*p));
  std::string id = gpu(h)->value("pci_bus_id", "");
  std::strncpy(p->bus_id, id.c_str(), sizeof(p->bus_id) - 1);
  return 0;
}
int nvmlDeviceGetEccMode(void* h, int* cur, int* pending) {
  if (!gpu(h) || !(*gpu(h))["ecc_enabled"].is_boolean()) return 3;  // NOT_SUPPORTED
  *cur = *pending = (*gpu(h))["ecc_enabled"].get<bool>() ? 1 : 0;
  return 0;
}
int nvmlDeviceGetTotalEccErrors(void* h, int, int, unsigned long long* count) {
  if (!gpu(h) || !(*gpu(h))["ecc_uncorrected_volatile"].is_number()) return 3;
  *count = (*gpu(h))["ecc_uncorrected_volatile"].get<unsigned long long>();
  return 0;
}
int nvmlDeviceGetRemappedRows(void* h, unsigned* corr, unsigned* unc, unsigned* pending,
                              unsigned* failure) {
  if (!gpu(h) || !(*gpu(h))["remap_pending"].is_boolean()) return 3;
  *corr = *unc = 0;
  *pending = (*gpu(h))["remap_pending"].get<bool>() ? 1 : 0;
  *failure = (*gpu(h))["remap_failure"].get<bool>() ? 1 : 0;
  return 0;
}
// NVLink: links [0, nvlink_links) answer, the first nvlink_active of them active; the error
// counts sit on link 0. Absent fields: NOT_SUPPORTED, as on GPUs without NVLink.
int nvmlDeviceGetNvLinkState(void* h, unsigned link, int* active) {
  if (!field(h, "nvlink_links").is_number()) return 3;
  if (link >= field(h, "nvlink_links").get<unsigned>()) return 2;  // INVALID_ARGUMENT
  const auto& a = field(h, "nvlink_active");
  *active = a.is_number() && link < a.get<unsigned>() ? 1 : 0;
  return 0;
}
int nvmlDeviceGetNvLinkErrorCounter(void* h, unsigned link, int counter, unsigned long long* v) {
  if (!field(h, "nvlink_links").is_number()) return 3;
  if (link >= field(h, "nvlink_links").get<unsigned>()) return 2;
  *v = 0;
  const char* key = counter == 1   ? "nvlink_recovery_errors"
                    : counter == 2 ? "nvlink_crc_errors"
                                   : nullptr;
  if (link == 0 && key != nullptr && field(h, key).is_number())
    *v = field(h, key).get<unsigned long long>();
  return 0;
}
int nvmlDeviceGetGpuFabricInfo(void* h, GpuFabricInfo* info) {
  if (!field(h, "fabric_state").is_string()) return 3;
  static const char* const kStates[] = {"not-supported", "not-started", "in-progress", "completed"};
  std::memset(info, 0, sizeof(*info));
  const std::string s = field(h, "fabric_state").get<std::string>();
  for (unsigned char i = 0; i < 4; ++i) {
    if (s == kStates[i]) info->state = i;
  }
  info->status = field(h, "fabric_status").is_number() ? field(h, "fabric_status").get<int>() : 0;
  // "fabric_cluster_uuid": 32 hex digits (zeros when absent); "fabric_clique_id": a number.
  if (field(h, "fabric_clique_id").is_number())
    info->clique_id = field(h, "fabric_clique_id").get<unsigned>();
  if (field(h, "fabric_cluster_uuid").is_string()) {
    const std::string u = field(h, "fabric_cluster_uuid").get<std::string>();
    for (std::size_t i = 0; i < 16 && 2 * i + 1 < u.size(); ++i)
      info->cluster_uuid[i] =
          static_cast<unsigned char>(std::strtol(u.substr(2 * i, 2).c_str(), nullptr, 16));
  }
  return 0;
}
// Utilization that changes between samples: "utilization_sequence": [90, 10, ...] is answered one
// value per call, cycling (each GPU keeps its own place); "utilization_percent" is fixed. The
// memory share is "mem_util_percent" (0 when absent).
int nvmlDeviceGetUtilizationRates(void* h, Utilization* u) {
  static std::size_t calls[64] = {};
  const auto idx = reinterpret_cast<std::size_t>(h) - 1;
  if (!gpu(h) || idx >= 64) return 2;
  const auto& seq = field(h, "utilization_sequence");
  const auto& fixed = field(h, "utilization_percent");
  if (seq.is_array() && !seq.empty()) {
    u->gpu = seq[calls[idx]++ % seq.size()].get<unsigned>();
  } else if (fixed.is_number()) {
    u->gpu = fixed.get<unsigned>();
  } else {
    return 3;
  }
  u->memory =
      field(h, "mem_util_percent").is_number() ? field(h, "mem_util_percent").get<unsigned>() : 0;
  return 0;
}
int nvmlDeviceGetClockInfo(void* h, int type, unsigned* mhz) {
  if (type != 1 || !field(h, "sm_clock_mhz").is_number()) return 3;
  *mhz = field(h, "sm_clock_mhz").get<unsigned>();
  return 0;
}
// Power draw that changes between samples: "power_mw_sequence": [650000, 90000, ...] is answered
// one value per call, cycling (each GPU keeps its own place); "power_mw" is fixed. The limit is
// "power_limit_mw" (nvmlDeviceGetEnforcedPowerLimit; absent: NOT_SUPPORTED, as on older boards).
int nvmlDeviceGetPowerUsage(void* h, unsigned* mw) {
  static std::size_t calls[64] = {};
  const auto idx = reinterpret_cast<std::size_t>(h) - 1;
  if (!gpu(h) || idx >= 64) return 2;
  const auto& seq = field(h, "power_mw_sequence");
  if (seq.is_array() && !seq.empty()) {
    *mw = seq[calls[idx]++ % seq.size()].get<unsigned>();
    return 0;
  }
  if (!field(h, "power_mw").is_number()) return 3;
  *mw = field(h, "power_mw").get<unsigned>();
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void* h, unsigned* mw) {
  if (!field(h, "power_limit_mw").is_number()) return 3;
  *mw = field(h, "power_limit_mw").get<unsigned>();
  return 0;
}
int nvmlDeviceGetPcieThroughput(void* h, int counter, unsigned* kbps) {
  const char* key = counter == 0 ? "pcie_tx_kbps" : "pcie_rx_kbps";
  if (!field(h, key).is_number()) return 3;
  *kbps = field(h, key).get<unsigned>();
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* h, unsigned long long* reasons) {
  if (!field(h, "clocks_event_reasons").is_number()) return 3;
  *reasons = field(h, "clocks_event_reasons").get<unsigned long long>();
  return 0;
}
// GPM: "gpm_supported": true; the metrics between two samples come from
// "gpm_sm_active_sequence" / "gpm_sm_occupancy_sequence" / "gpm_tensor_sequence" (percent), one
// value per nvmlGpmSampleGet, cycling, read at the later sample's place. "gpm_sample_get_error": N
// makes nvmlGpmSampleGet fail with N, as it does while a DCGM host engine profiles the GPU.
int nvmlGpmQueryDeviceSupport(void* h, trainready::nvml::GpmSupport* sup) {
  if (!gpu(h) || sup == nullptr || sup->version != trainready::nvml::kGpmSupportVersion) return 2;
  sup->is_supported_device =
      field(h, "gpm_supported").is_boolean() && field(h, "gpm_supported").get<bool>() ? 1 : 0;
  return 0;
}
int nvmlGpmSampleAlloc(trainready::nvml::GpmSample* out) {
  if (out == nullptr) return 2;
  *out = new FakeGpmSample();
  return 0;
}
int nvmlGpmSampleFree(trainready::nvml::GpmSample s) {
  if (s == nullptr) return 2;
  delete static_cast<FakeGpmSample*>(s);
  return 0;
}
int nvmlGpmSampleGet(void* h, trainready::nvml::GpmSample s) {
  const auto idx = reinterpret_cast<std::size_t>(h) - 1;
  if (!gpu(h) || idx >= 64 || s == nullptr) return 2;
  if (field(h, "gpm_sample_get_error").is_number())
    return field(h, "gpm_sample_get_error").get<int>();
  auto* f = static_cast<FakeGpmSample*>(s);
  f->gpu = idx;
  f->seq = g_gpm_calls[idx]++;
  f->filled = true;
  return 0;
}
int nvmlGpmMetricsGet(trainready::nvml::GpmMetricsGet* m) {
  if (m == nullptr || m->version != trainready::nvml::kGpmMetricsGetVersion) return 2;
  auto* a = static_cast<FakeGpmSample*>(m->sample1);
  auto* b = static_cast<FakeGpmSample*>(m->sample2);
  if (a == nullptr || b == nullptr || !a->filled || !b->filled || a->gpu != b->gpu ||
      m->num_metrics > trainready::nvml::kGpmMetricMax)
    return 2;
  void* h = reinterpret_cast<void*>(b->gpu + 1);
  for (unsigned i = 0; i < m->num_metrics; ++i) {
    auto& out = m->metrics[i];
    const char* key = out.metric_id == trainready::nvml::kGpmSmUtil ? "gpm_sm_active_sequence"
                      : out.metric_id == trainready::nvml::kGpmSmOccupancy
                          ? "gpm_sm_occupancy_sequence"
                      : out.metric_id == trainready::nvml::kGpmAnyTensorUtil ? "gpm_tensor_sequence"
                                                                             : nullptr;
    const auto& seq = key ? field(h, key) : field(h, "");
    if (!seq.is_array() || seq.empty()) {
      out.nvml_return = 3;  // NOT_SUPPORTED
      continue;
    }
    out.nvml_return = 0;
    out.value = seq[b->seq % seq.size()].get<double>();
  }
  return 0;
}
// Field values: NVLink throughput counters (KiB) that grow by "nvlink_tx_kib_step" /
// "nvlink_rx_kib_step" per call; other fields, or a GPU without them, NOT_SUPPORTED per value.
int nvmlDeviceGetFieldValues(void* h, int n, trainready::nvml::FieldValue* values) {
  const auto idx = reinterpret_cast<std::size_t>(h) - 1;
  if (!gpu(h) || idx >= 64 || values == nullptr || n < 0) return 2;
  const unsigned long long call = ++g_field_calls[idx];
  for (int i = 0; i < n; ++i) {
    auto& v = values[i];
    const char* key =
        v.field_id == trainready::nvml::kFiNvLinkThroughputDataTx   ? "nvlink_tx_kib_step"
        : v.field_id == trainready::nvml::kFiNvLinkThroughputDataRx ? "nvlink_rx_kib_step"
                                                                    : nullptr;
    if (key == nullptr || !field(h, key).is_number() ||
        v.scope_id != trainready::nvml::kScopeAllLinks) {
      v.nvml_return = 3;
      continue;
    }
    v.nvml_return = 0;
    v.value_type = trainready::nvml::kValueTypeUnsignedLongLong;
    v.value.ull_val = call * field(h, key).get<unsigned long long>();
  }
  return 0;
}
}
