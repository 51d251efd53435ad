#pragma once
// The NVML ABI for GPM (GPU performance monitoring, Hopper and newer) and field values, as
// declared in nvml.h (NVIDIA/go-nvml gen/nvml/nvml.h @ 2f9e261fe40a7a1c54783d66805e8920564763b4,
// the CUDA 13 header; the CUDA toolkit on the build VM ships no nvml.h). Declared here, written
// from those definitions, so the build needs no CUDA headers; tests/fake_nvml implements them.
#include <climits>

#include "probes/nvml_abi.h"

namespace trainready::nvml {

// nvmlGpmMetricId_t
inline constexpr unsigned kGpmSmUtil = 2;         // "Percentage of SMs that were busy"
inline constexpr unsigned kGpmSmOccupancy = 3;    // "warps that were active vs theoretical max"
inline constexpr unsigned kGpmAnyTensorUtil = 5;  // "SMs were doing ANY tensor operations"

// NVML_GPM_METRIC_MAX sizes the caller-allocated metrics[] and has grown with the header (333
// in CUDA 13). The library reads only numMetrics entries; the largest size is safe with any.
inline constexpr unsigned kGpmMetricMax = 333;
inline constexpr unsigned kGpmMetricsGetVersion = 1;  // NVML_GPM_METRICS_GET_VERSION
inline constexpr unsigned kGpmSupportVersion = 1;     // NVML_GPM_SUPPORT_VERSION

using GpmSample = void*;  // nvmlGpmSample_t, an opaque handle from nvmlGpmSampleAlloc

struct GpmMetric {  // nvmlGpmMetric_t
  unsigned int metric_id;
  Return nvml_return;
  double value;
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } metric_info;
};

struct GpmMetricsGet {  // nvmlGpmMetricsGet_t
  unsigned int version;
  unsigned int num_metrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricMax];
};

struct GpmSupport {  // nvmlGpmSupport_t
  unsigned int version;
  unsigned int is_supported_device;
};

// nvmlFieldValue_t with nvmlValue_t and nvmlValueType_t.
inline constexpr int kValueTypeDouble = 0;
inline constexpr int kValueTypeUnsignedInt = 1;
inline constexpr int kValueTypeUnsignedLong = 2;
inline constexpr int kValueTypeUnsignedLongLong = 3;
union Value {
  double d_val;
  int si_val;
  unsigned int ui_val;
  unsigned long ul_val;
  unsigned long long ull_val;
  signed long long sll_val;
  unsigned short us_val;
};
struct FieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;
  Return nvml_return;
  Value value;
};

// "NVLink TX/RX Data throughput in KiB": cumulative counters of data bytes (no protocol
// overhead); scopeId = link, or UINT_MAX for the sum over all links.
inline constexpr unsigned kFiNvLinkThroughputDataTx = 138;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
inline constexpr unsigned kFiNvLinkThroughputDataRx = 139;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX
inline constexpr unsigned kScopeAllLinks = UINT_MAX;

static_assert(sizeof(GpmMetric) == 40 && sizeof(FieldValue) == 40,
              "layouts as nvml.h defines them on LP64");

}  // namespace trainready::nvml
