#pragma once
// The part of the DCGM C API that `watch` calls, written from the definitions in NVIDIA/DCGM
// dcgmlib/dcgm_agent.h, dcgm_structs.h and dcgm_fields.h (@
// 72fa3feaa67d716a75323a8f47c34ff3ee73f824) so the build needs no DCGM headers; tests/fake_dcgm
// implements the same ABI.
#include <cstdint>

namespace trainready::dcgm {

using Return = int;  // dcgmReturn_t: 0 = DCGM_ST_OK, errors negative
inline constexpr Return kStOk = 0;
using Handle = std::uintptr_t;      // dcgmHandle_t
using GpuGroup = std::uintptr_t;    // dcgmGpuGrp_t
using FieldGroup = std::uintptr_t;  // dcgmFieldGrp_t

// DCGM_GROUP_ALL_GPUS: every GPU the host engine sees, without creating a group.
inline constexpr GpuGroup kGroupAllGpus = 0x7fffffff;
inline constexpr int kHostEnginePort = 5555;  // DCGM_HE_PORT_NUMBER

// MAKE_DCGM_VERSION(typeName, ver): sizeof | ver << 24.
constexpr unsigned make_version(unsigned size, unsigned ver) { return size | (ver << 24U); }

struct ConnectV2Params {  // dcgmConnectV2Params_v2
  unsigned int version;
  unsigned int persist_after_disconnect;  // 0: the host engine drops our watches when we leave
  unsigned int timeout_ms;
  unsigned int address_is_unix_socket;
};
inline constexpr unsigned kConnectV2ParamsVersion2 = make_version(sizeof(ConnectV2Params), 2);

inline constexpr int kMaxStrLength = 256;    // DCGM_MAX_STR_LENGTH
inline constexpr int kMaxBlobLength = 4096;  // DCGM_MAX_BLOB_LENGTH
struct FieldValueV1 {                        // dcgmFieldValue_v1
  unsigned int version;
  unsigned short field_id;
  unsigned short field_type;  // DCGM_FT_*: 'd' double, 'i' int64, 's' string
  int status;
  std::int64_t ts;  // usec since 1970
  union {
    std::int64_t i64;
    double dbl;
    char str[kMaxStrLength];
    char blob[kMaxBlobLength];
  } value;
};
inline constexpr char kFtDouble = 'd';
inline constexpr char kFtInt64 = 'i';
inline constexpr char kFtString = 's';

// Values at or above these are "blank" (not found, not supported, no permission): DCGM_INT64_BLANK
// and DCGM_FP64_BLANK, with DCGM_*_IS_BLANK(val) = val >= BLANK.
inline constexpr std::int64_t kInt64Blank = 0x7ffffffffffffff0LL;
inline constexpr double kFp64Blank = 140737488355328.0;

// dcgmFieldValueEnumeration_f: return 0 to continue.
using FieldValueEnumeration = int (*)(unsigned int gpu_id, FieldValueV1* values, int num_values,
                                      void* user_data);

// Field ids (dcgm_fields.h).
inline constexpr unsigned short kFiDevUuid = 54;                 // DCGM_FI_DEV_UUID
inline constexpr unsigned short kFiProfSmActive = 1002;          // DCGM_FI_PROF_SM_ACTIVE
inline constexpr unsigned short kFiProfSmOccupancy = 1003;       // DCGM_FI_PROF_SM_OCCUPANCY
inline constexpr unsigned short kFiProfPipeTensorActive = 1004;  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE
inline constexpr unsigned short kFiProfNvLinkTxBytes = 1011;     // DCGM_FI_PROF_NVLINK_TX_BYTES
inline constexpr unsigned short kFiProfNvLinkRxBytes = 1012;     // DCGM_FI_PROF_NVLINK_RX_BYTES

// Entry points (dcgm_agent.h).
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ConnectV2Fn = Return (*)(const char* address, ConnectV2Params* params, Handle* handle);
using DisconnectFn = Return (*)(Handle);
using FieldGroupCreateFn = Return (*)(Handle, int num_field_ids, const unsigned short* field_ids,
                                      const char* name, FieldGroup* out);
using FieldGroupDestroyFn = Return (*)(Handle, FieldGroup);
using WatchFieldsFn = Return (*)(Handle, GpuGroup, FieldGroup, long long update_freq_us,
                                 double max_keep_age_s, int max_keep_samples);
using UnwatchFieldsFn = Return (*)(Handle, GpuGroup, FieldGroup);
using GetLatestValuesFn = Return (*)(Handle, GpuGroup, FieldGroup, FieldValueEnumeration,
                                     void* user_data);

static_assert(sizeof(ConnectV2Params) == 16 && sizeof(FieldValueV1) == 4120,
              "layouts as dcgm_structs.h defines them on LP64");

}  // namespace trainready::dcgm
