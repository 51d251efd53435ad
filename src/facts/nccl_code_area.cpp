#include "facts/nccl_code_area.h"

#include <algorithm>
#include <iterator>

namespace trainready {
namespace {

// nccl.h's functions (src/nccl.h.in @ v2.30.7-1; earlier releases' API is a subset).
constexpr std::string_view kApi[] = {
    "ncclAllGather",
    "ncclAllReduce",
    "ncclAlltoAll",
    "ncclBcast",
    "ncclBroadcast",
    "ncclCommAbort",
    "ncclCommCount",
    "ncclCommCuDevice",
    "ncclCommDeregister",
    "ncclCommDestroy",
    "ncclCommFinalize",
    "ncclCommGetAsyncError",
    "ncclCommGetUniqueId",
    "ncclCommGrow",
    "ncclCommInitAll",
    "ncclCommInitRank",
    "ncclCommInitRankConfig",
    "ncclCommInitRankScalable",
    "ncclCommMemStats",
    "ncclCommRegister",
    "ncclCommResume",
    "ncclCommRevoke",
    "ncclCommShrink",
    "ncclCommSplit",
    "ncclCommSuspend",
    "ncclCommUserRank",
    "ncclCommWindowDeregister",
    "ncclCommWindowRegister",
    "ncclGather",
    "ncclGetErrorString",
    "ncclGetLastError",
    "ncclGetUniqueId",
    "ncclGetVersion",
    "ncclGroupEnd",
    "ncclGroupSimulateEnd",
    "ncclGroupStart",
    "ncclMemAlloc",
    "ncclMemFree",
    "ncclParamBind",
    "ncclParamDumpAll",
    "ncclParamGet",
    "ncclParamGetAllParameterKeys",
    "ncclParamGetI16",
    "ncclParamGetI32",
    "ncclParamGetI64",
    "ncclParamGetI8",
    "ncclParamGetParameter",
    "ncclParamGetStr",
    "ncclParamGetU16",
    "ncclParamGetU32",
    "ncclParamGetU64",
    "ncclParamGetU8",
    "ncclPutSignal",
    "ncclRecv",
    "ncclRedOpCreatePreMulSum",
    "ncclRedOpDestroy",
    "ncclReduce",
    "ncclReduceScatter",
    "ncclResetDebugInit",
    "ncclScatter",
    "ncclSend",
    "ncclSignal",
    "ncclWaitSignal",
    "ncclWinGetUserPtr",
};

struct Prefix {
  std::string_view prefix;
  NcclCodeArea area;
};
// A prefix matches when a capital follows it (NCCL's camelCase: rasMsgHandlePeersUpdate,
// ncclIbConnect), so "rasterize" or "proxy_pass" are not NCCL's.
constexpr Prefix kPrefixes[] = {
    {"ncclRas", NcclCodeArea::kRas},
    {"ras", NcclCodeArea::kRas},
    {"ncclNvls", NcclCodeArea::kNvls},
    {"nvls", NcclCodeArea::kNvls},
    {"ncclCollNet", NcclCodeArea::kCollNet},
    {"collNet", NcclCodeArea::kCollNet},
    {"ncclIb", NcclCodeArea::kIb},
    {"ncclShm", NcclCodeArea::kShm},
    {"shm", NcclCodeArea::kShm},
    {"ncclP2p", NcclCodeArea::kP2p},
    {"p2p", NcclCodeArea::kP2p},
    {"ncclProfiler", NcclCodeArea::kProfiler},
    {"bootstrap", NcclCodeArea::kBootstrap},
    {"ncclProxy", NcclCodeArea::kProxy},
    {"proxy", NcclCodeArea::kProxy},
    {"ncclTopo", NcclCodeArea::kTopology},
};

bool camel_after(std::string_view name, std::string_view prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name.size() == prefix.size()) return false;
  const char c = name[prefix.size()];
  return c >= 'A' && c <= 'Z';
}

}  // namespace

NcclCodeArea nccl_code_area(std::string_view f) {
  if (f.size() > 5 && f[0] == 'p' && camel_after(f, "pnccl")) return NcclCodeArea::kApi;
  if (std::find(std::begin(kApi), std::end(kApi), f) != std::end(kApi)) return NcclCodeArea::kApi;
  for (const Prefix& p : kPrefixes)
    if (camel_after(f, p.prefix)) return p.area;
  return camel_after(f, "nccl") ? NcclCodeArea::kOther : NcclCodeArea::kUnknown;
}

}  // namespace trainready
