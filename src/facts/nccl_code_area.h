#pragma once
// The part of NCCL a function belongs to, read from its name. libnccl exports only the API of
// nccl.h (built with -fvisibility=hidden, makefiles/common.mk; NCCL_API in src/include/core.h
// makes those few visible, each with a "p"-prefixed alias); its internal functions are named by
// the module that holds them. A backtrace shows internal names only when the library's symbol
// table is there; a stripped libnccl (or dladdr(3), which reads only exported symbols) names
// each frame after the nearest exported function before its address instead.
#include <string_view>

namespace trainready {

enum class NcclCodeArea {
  kUnknown,    // not a name of NCCL's
  kApi,        // a function of nccl.h (or its "pnccl" alias)
  kOther,      // NCCL's (nccl*), its module not told by the name (ncclEnqueueCheck, ...)
  kRas,        // src/ras/: the RAS service thread (2.24+), ras*, ncclRas*
  kNvls,       // src/transport/nvls.cc: NVLink SHARP, nvls*, ncclNvls*
  kCollNet,    // src/transport/coll_net.cc: CollNet / SHARP, collNet*, ncclCollNet*
  kIb,         // src/transport/net_ib*: the InfiniBand / RoCE transport, ncclIb*
  kShm,        // src/transport/shm.cc, src/misc/shmutils.cc: shared memory, shm*, ncclShm*
  kP2p,        // src/transport/p2p.cc: GPU peer-to-peer, p2p*, ncclP2p*
  kProfiler,   // src/plugin/profiler.cc: the profiler hooks and plugin, ncclProfiler*
  kBootstrap,  // src/bootstrap.cc: the out-of-band bootstrap network, bootstrap*
  kProxy,      // src/proxy.cc: the proxy thread that drives network transfers, proxy*, ncclProxy*
  kTopology,   // src/graph/: topology detection and search, ncclTopo*
};

// kUnknown for a name NCCL does not use (names counted at v2.30.7-1: 115 ras*, 153 ncclIb*,
// 158 ncclTopo*, ...; the API from src/nccl.h.in at v2.30.7-1).
NcclCodeArea nccl_code_area(std::string_view function);

}  // namespace trainready
