// Readings put right by the audit of rma.yaml, gin.yaml, symmetric.yaml and profiler.yaml against
// NCCL's source (docs/nccl-corpus.md): each line in the format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const std::string kV2307 = "NCCL version 2.30.7+cuda13.0\n";

// src/rma/rma_proxy.cc:378-380 @ v2.30.7-1: reached only when every rank has an RMA backend
// (src/init.cc:786,1064,1672, src/dev_runtime.cc:626-629), so NET/Socket is not its cause.
TEST(NcclMessage, RmaNotSupportedIsAnInternalGuard) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] NCCL INFO Using network Socket\n"
                          "h:1:2 [0] rma/rma_proxy.cc:379 (ncclRmaProxyConnectOnce) NCCL WARN RMA "
                          "not supported.\n");
  EXPECT_TRUE(reads(f, "rma-not-available")) << f.message;
  EXPECT_EQ(f.cause.rfind("An internal inconsistency, or an external RMA plugin", 0), 0u)
      << f.cause;
}

// src/rma/rma_proxy.cc:413-416 @ v2.30.7-1: the count is the topology's
// (src/graph/topo.cc:2099-2107).
TEST(NcclMessage, RmaMinLocalNetCountZeroIsATopologyInconsistency) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] rma/rma_proxy.cc:414 (ncclRmaProxyConnectOnce) NCCL WARN Rma "
                          "connect : min local net count is zero\n");
  EXPECT_TRUE(reads(f, "rma-min-local-net-count-zero")) << f.message;
  // Its only cause, offered as the likeliest (the log cannot show it).
  EXPECT_NE(f.cause.find("the likeliest: The topology gave this or another rank no local RMA NIC"),
            std::string::npos)
      << f.cause;
}

// src/rma/rma_proxy_launch.cc:554-556 @ v2.30.7-1: the proxy connects only at window registration
// (src/dev_runtime.cc:536-537,626-629), which NCCL_RMA_DISABLE skips (dev_runtime.cc:32,627).
TEST(NcclMessage, RmaProxyNotConnectedReadsRmaDisableOrLazyConnect) {
  const std::string warn =
      "h:1:2 [0] rma/rma_proxy_launch.cc:555 (ncclRmaProxyPutLaunch) NCCL WARN RMA proxy is not "
      "connected\n";
  const Finding disabled =
      first(kV2307 + "h:1:2 [0] NCCL INFO NCCL_RMA_DISABLE set by environment to 1.\n" + warn);
  EXPECT_TRUE(reads(disabled, "rma-not-initialized")) << disabled.message;
  EXPECT_EQ(disabled.cause.rfind("NCCL_RMA_DISABLE=1 (2.30.7+)", 0), 0u) << disabled.cause;
  const Finding lazy = first(kV2307 + warn);
  EXPECT_TRUE(reads(lazy, "rma-not-initialized")) << lazy.message;
  EXPECT_EQ(lazy.cause.rfind("ncclSignal/ncclWaitSignal (or a put) to a peer outside", 0), 0u)
      << lazy.cause;
  // The copy-engine guard (src/rma/rma_ce.cc:373-375) is not the proxy's.
  const Finding ce = first(kV2307 +
                           "h:1:2 [0] rma/rma_ce.cc:374 (ncclRmaCePutLaunch) NCCL WARN RMA CE is "
                           "not initialized\n");
  EXPECT_TRUE(reads(ce, "rma-not-initialized")) << ce.message;
  EXPECT_EQ(ce.cause.rfind("The RMA setup failed earlier", 0), 0u) << ce.cause;
}

// src/rma/rma_proxy.cc:316-322 @ v2.30.7-1: NCCLCHECK(regMrSym) comes first, so the WARN is a
// backend that returned success without a handle; the built-in one never does
// (src/transport/net_ib/gin.cc:450-479).
TEST(NcclMessage, RmaSymmetricRegisterFailedIsAnExternalBackend) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] rma/rma_proxy.cc:320 (ncclRmaProxyRegister) NCCL WARN rank 3 "
                          "- RMA Symmetric register failed: buff 0x7f2a40000000, size 268435456\n");
  EXPECT_TRUE(reads(f, "rma-symmetric-register-failed")) << f.message;
  EXPECT_EQ(f.cause.rfind("An external RMA backend", 0), 0u) << f.cause;
}

// src/gin/gin_host.cc:85-87 @ v2.30.7-1: the line names its cause, whatever network the log shows.
TEST(NcclMessage, GinIsDisabledReadsTheSettingOnASocketLog) {
  const Finding disabled = first(kV2307 +
                                 "h:1:2 [0] NCCL INFO Using network Socket\n"
                                 "h:1:2 [0] gin/gin_host.cc:86 (ncclGinConnectOnce) NCCL WARN GIN "
                                 "is disabled.\n");
  EXPECT_TRUE(reads(disabled, "gin-not-available")) << disabled.message;
  EXPECT_EQ(disabled.cause.rfind("GIN is disabled by NCCL_GIN_ENABLE=0", 0), 0u) << disabled.cause;
  // 2.28.9 reaches the NULL-backend check on NET/Socket (src/gin/gin_host.cc:61-63 @ v2.28.9-1).
  const Finding socket = first(
      "NCCL version 2.28.9+cuda12.9\nh:1:2 [0] NCCL INFO Using network Socket\n"
      "h:1:2 [0] gin/gin_host.cc:62 NCCL WARN GIN not supported.\n");
  EXPECT_TRUE(reads(socket, "gin-not-available")) << socket.message;
  EXPECT_EQ(socket.cause.rfind("(2.28.x) The network NCCL uses has no GIN support", 0), 0u)
      << socket.cause;
}

// Only "GIN-capable device type mismatch." tests NCCL_GIN_TYPE (src/gin/gin_host.cc:101-102 @
// v2.29.3-1); the RMA proxy's check is the backend's type (src/rma/rma_proxy.cc:414-415 @
// v2.30.4-1).
TEST(NcclMessage, GinTypeSettingReadsOnlyTheGinTypeMismatch) {
  const std::string env = "h:1:2 [0] NCCL INFO NCCL_GIN_TYPE set by environment to 3.\n";
  const Finding rma = first("NCCL version 2.30.4+cuda12.9\n" + env +
                            "h:1:2 [0] rma/rma_proxy.cc:415 NCCL WARN RMA proxy backend type "
                            "mismatch.\n");
  EXPECT_TRUE(reads(rma, "gin-backend-type-mismatch")) << rma.message;
  EXPECT_EQ(rma.cause.rfind("A GIN/net plugin built for another NCCL version", 0), 0u) << rma.cause;
  const Finding gin = first("NCCL version 2.29.3+cuda12.9\n" + env +
                            "h:1:2 [0] gin/gin_host.cc:102 NCCL WARN GIN-capable device type "
                            "mismatch.\n");
  EXPECT_TRUE(reads(gin, "gin-backend-type-mismatch")) << gin.message;
  EXPECT_EQ(gin.cause.rfind("NCCL_GIN_TYPE is set to a backend", 0), 0u) << gin.cause;
}

// src/gin/gin_host.cc:101-110 @ v2.28.9-1: each line names its own variable.
TEST(NcclMessage, GinPoolSizeWarnNamesItsVariable) {
  const std::string v =
      "NCCL version 2.28.9+cuda12.9\nh:1:2 [0] NCCL INFO NCCL_GIN_SIGNAL_POOL_SIZE set by "
      "environment to 65536.\n";
  const Finding counter =
      first(v +
            "h:1:2 [0] gin/gin_host.cc:108 NCCL WARN NCCL_GIN_COUNTER_POOL_SIZE has invalid "
            "value.\n");
  EXPECT_TRUE(reads(counter, "gin-pool-size-invalid")) << counter.message;
  EXPECT_EQ(counter.cause.rfind("NCCL_GIN_COUNTER_POOL_SIZE is set out of range", 0), 0u)
      << counter.cause;
  const Finding signal = first(
      "NCCL version 2.28.9+cuda12.9\nh:1:2 [0] gin/gin_host.cc:103 NCCL WARN "
      "NCCL_GIN_SIGNAL_POOL_SIZE has invalid value.\n");
  EXPECT_EQ(signal.cause.rfind("NCCL_GIN_SIGNAL_POOL_SIZE is set out of range", 0), 0u)
      << signal.cause;
}

// src/gin/gin_host.cc:379-394 @ v2.30.7-1: the multi-segment check has its own text; the
// missing-handle WARN follows a regMrSym that returned success.
TEST(NcclMessage, GinSymmetricRegisterFailedTellsItsTwoMessagesApart) {
  const Finding handle = first(kV2307 +
                               "h:1:2 [0] gin/gin_host.cc:393 (ncclGinRegister) NCCL WARN rank 0 "
                               "- GIN Symmetric register failed: buff 0x7f2a40000000, size "
                               "268435456\n");
  EXPECT_TRUE(reads(handle, "gin-symmetric-register-failed")) << handle.message;
  EXPECT_EQ(handle.cause.rfind("An external GIN/RMA plugin", 0), 0u) << handle.cause;
  const Finding segments = first(kV2307 +
                                 "h:1:2 [0] gin/gin_host.cc:383 (ncclGinRegister) NCCL WARN Window "
                                 "registration of addresses that span multiple physical segments "
                                 "requires DMABUF support with GIN.\n");
  EXPECT_TRUE(reads(segments, "gin-symmetric-register-failed")) << segments.message;
  EXPECT_EQ(segments.cause.rfind("The window spans several physical cuMem segments", 0), 0u)
      << segments.cause;
}

// transport/gdaki/gin_host_gdaki.cc:355-371,588 @ v2.28.9-1 looks NCCL's device name up in the
// verbs list: "<dev>_dma" (src/transport/net_ib.cc:785) and "<a>+<b>" (net_ib.cc:626) are no verbs
// names.
TEST(NcclMessage, GdakiDeviceNotFoundReadsNcclsOwnNicNames) {
  const std::string v = "NCCL version 2.28.9+cuda12.9\n";
  const std::string at = "h:1:2 [0] transport/gdaki/gin_host_gdaki.cc:371 NCCL WARN IB device ";
  const Finding dma = first(v + at + "mlx5_0_dma not found\n");
  EXPECT_TRUE(reads(dma, "gin-gdaki-device-not-found")) << dma.message;
  EXPECT_EQ(dma.cause.rfind("NCCL 2.28 names a Data Direct NIC", 0), 0u) << dma.cause;
  const Finding merged = first(v + at + "mlx5_0+mlx5_1 not found\n");
  EXPECT_EQ(merged.cause.rfind("NCCL merged ports into a virtual NIC", 0), 0u) << merged.cause;
  const Finding plain = first(v + at + "mlx5_0 not found\n");
  EXPECT_EQ(plain.cause.rfind("No RDMA devices are visible", 0), 0u) << plain.cause;
}

// src/gin/gin_host.cc:193-196 @ v2.30.7-1; the built-in backends support both signal kinds
// (src/transport/net_ib/gin.cc:242-245, src/gin/gin_host_proxy.cc:330-333).
TEST(NcclMessage, GinSignalsUnsupportedIsAnExternalPlugin) {
  const Finding f =
      first(kV2307 +
            "h:1:2 [0] gin/gin_host.cc:195 (ncclGinDevCommSetup) NCCL WARN GIN strong "
            "signals are required, but the GIN plugin does not support them.\n");
  EXPECT_TRUE(reads(f, "gin-signals-unsupported")) << f.message;
  EXPECT_EQ(f.cause.rfind("An external GIN plugin", 0), 0u) << f.cause;
}

// symmetricSupport needs ncclParamWinEnable() (src/init.cc:1674 @ v2.30.7-1).
TEST(NcclMessage, SymmetricNotSupportedReadsWinEnable) {
  const std::string warn =
      "h:1:2 [0] dev_runtime.cc:1523 (ncclDevCommCreate) NCCL WARN Communicator does not support "
      "symmetric memory!\n";
  const Finding win =
      first(kV2307 + "h:1:2 [0] NCCL INFO NCCL_WIN_ENABLE set by environment to 0.\n" + warn);
  EXPECT_TRUE(reads(win, "symmetric-not-supported")) << win.message;
  EXPECT_EQ(win.cause.rfind("NCCL_WIN_ENABLE=0 turns symmetric memory off", 0), 0u) << win.cause;
  const Finding cumem =
      first(kV2307 + "h:1:2 [0] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0.\n" + warn);
  EXPECT_EQ(cumem.cause.rfind("NCCL_CUMEM_ENABLE=0", 0), 0u) << cumem.cause;
}

// src/dev_runtime.cc:1337-1338 @ v2.30.7-1 and :1071-1072 @ v2.29.7-1: a NULL buffer prints as
// glibc's "(nil)".
TEST(NcclMessage, WindowRegisterNullPointerIsRead) {
  const Finding v2307 = first(kV2307 +
                              "h:1:2 [0] dev_runtime.cc:1338 (ncclCommWindowRegister) NCCL WARN "
                              "invalid pointer (nil) / size 1048576\n");
  EXPECT_TRUE(reads(v2307, "symmetric-window-bad-args")) << v2307.message;
  EXPECT_EQ(v2307.cause.rfind("ncclCommWindowRegister was called with a NULL buffer", 0), 0u)
      << v2307.cause;
  const Finding v2297 = first(
      "NCCL version 2.29.7+cuda12.9\nh:1:2 [0] dev_runtime.cc:1072 NCCL WARN "
      "ncclCommWindowRegister: invalid pointer (nil) / size 1048576\n");
  EXPECT_TRUE(reads(v2297, "symmetric-window-bad-args")) << v2297.message;
  const Finding aligned = first(kV2307 +
                                "h:1:2 [0] dev_runtime.cc:881 (ncclDevrWindowRegisterInGroup) NCCL "
                                "WARN Window address must be suitably aligned.\n");
  EXPECT_TRUE(reads(aligned, "symmetric-window-bad-args")) << aligned.message;
  EXPECT_EQ(aligned.cause.rfind("The buffer passed is a sub-allocation", 0), 0u) << aligned.cause;
}

// src/dev_runtime_segments.cc:46,60,95 @ v2.30.7-1: each message names its own cause
// (NCCL_ELASTIC_BUFFER_REGISTER defaults to 1, src/dev_runtime.cc:30).
TEST(NcclMessage, WindowSegmentMessagesReadTheirOwnCause) {
  const Finding layout = first(kV2307 +
                               "h:1:2 [0] dev_runtime_segments.cc:95 "
                               "(ncclDevrVerifySegmentLayouts) NCCL WARN Elastic GIN: rank 3 has 2 "
                               "segments but another rank has 3 segments; all ranks must have "
                               "identical segment configurations\n");
  EXPECT_TRUE(reads(layout, "symmetric-window-segments-unsupported")) << layout.message;
  EXPECT_EQ(layout.cause.rfind("Ranks registered host-backed windows", 0), 0u) << layout.cause;
  const Finding ipc = first(kV2307 +
                            "h:1:2 [0] dev_runtime_segments.cc:60 "
                            "(ncclDevrCheckRegistrationSupport) NCCL WARN VA represented by "
                            "{userPtr = 0x7f2a40000000, size = 1048576} contains CPU-backed "
                            "physical segments, but the LSA team does not support multi-node IPC "
                            "on CPU-backed buffers. Please retry by setting NCCL_MNNVL_ENABLE=0\n");
  EXPECT_EQ(ipc.cause.rfind("Host (CPU-backed) segments on an MNNVL", 0), 0u) << ipc.cause;
  const Finding elastic = first(kV2307 +
                                "h:1:2 [0] dev_runtime_segments.cc:46 "
                                "(ncclDevrCheckRegistrationSupport) NCCL WARN VA represented by "
                                "{userPtr = 0x7f2a40000000, size = 1048576} contains CPU-backed "
                                "physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0. "
                                "Please set NCCL_ELASTIC_BUFFER_REGISTER=1 and retry window "
                                "registration\n");
  EXPECT_EQ(elastic.cause.rfind("NCCL_ELASTIC_BUFFER_REGISTER=0 was set", 0), 0u) << elastic.cause;
}

// src/devcomm/devcomm_v22907.cc:89 and src/dev_runtime.cc:1426-1428 @ v2.30.7-1: only "NCCL
// library is too old" means the library is the older one.
TEST(NcclMessage, DeviceApiVersionMismatchReadsWhichSideIsOlder) {
  const Finding app = first(
      kV2307 +
      "h:1:2 [0] devcomm/devcomm_v22907.cc:89 (ncclDevCommRequirementsFilter_v22907) NCCL WARN The "
      "application was compiled with too old version of NCCL. It was compiled with NCCL version "
      "2.29.7, but is running with NCCL library version 2.30.7. Because of its use of GIN device "
      "kernels, it needs to be recompiled, preferably with the same NCCL version that it will be "
      "running with.\n");
  EXPECT_TRUE(reads(app, "symmetric-device-api-version-mismatch")) << app.message;
  EXPECT_EQ(app.cause.rfind("The application was compiled against older NCCL headers", 0), 0u)
      << app.cause;
  const Finding lib = first(kV2307 +
                            "h:1:2 [0] dev_runtime.cc:1428 (getNcclVersionCompat) NCCL WARN NCCL "
                            "library is too old. This application was compiled with NCCL version "
                            "2.31.0, but is running with NCCL library version 2.30.7.\n");
  EXPECT_TRUE(reads(lib, "symmetric-device-api-version-mismatch")) << lib.message;
  EXPECT_EQ(lib.cause.rfind("The runtime libnccl is older", 0), 0u) << lib.cause;
}

// src/dev_runtime.cc:1119-1142 @ v2.30.7-1; RAIL comes from NCCL_CROSS_NIC=0
// (src/graph/search.cc:1069-1071, src/init.cc:1669-1670).
TEST(NcclMessage, GinRequestUnsatisfiableReadsEachMessage) {
  const std::string at = "h:1:2 [0] dev_runtime.cc:";
  const Finding none = first(kV2307 + at +
                             "1120 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN "
                             "resources but did not request GIN to be enabled!\n");
  EXPECT_TRUE(reads(none, "symmetric-gin-request-unsatisfiable")) << none.message;
  EXPECT_EQ(none.cause.rfind("Application bug - GIN counters/signals/barriers", 0), 0u)
      << none.cause;
  const Finding rail = first(kV2307 + at +
                             "1131 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN "
                             "connection type NCCL_GIN_CONNECTION_FULL but the communicator "
                             "supports only NCCL_GIN_CONNECTION_RAIL\n");
  EXPECT_EQ(rail.cause.rfind("NCCL_CROSS_NIC=0 on some rank", 0), 0u) << rail.cause;
  const Finding barrier = first(kV2307 + at +
                                "1142 (ncclDevrCommCreateInternal) NCCL WARN Cannot create "
                                "worldGinBarrier with NCCL_GIN_CONNECTION_RAIL.\n");
  EXPECT_EQ(barrier.cause.rfind("Application bug - a world GIN barrier", 0), 0u) << barrier.cause;
  const Finding missing =
      first(kV2307 + at +
            "1126 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN but "
            "not all ranks in the communicator support GIN\n");
  EXPECT_EQ(missing.cause.rfind("Some rank has no GIN backend", 0), 0u) << missing.cause;
}

// src/scheduler/symmetric_sched.cc:82-85 @ v2.28.9-1 prints the setting in the line itself.
TEST(NcclMessage, SymmetricKernelUnavailableReadsTheSettingFromTheLine) {
  const std::string v = "NCCL version 2.28.9+cuda12.9\n";
  const Finding set = first(v +
                            "h:1:2 [0] scheduler/symmetric_sched.cc:83 NCCL WARN Error: no "
                            "symmetric kernel available for function AllReduce. NCCL_SYM_KERNEL "
                            "was set to ncclSymkAllReduceLL\n");
  EXPECT_TRUE(reads(set, "symmetric-kernel-unavailable")) << set.message;
  EXPECT_EQ(set.cause.rfind("NCCL_SYM_KERNEL forces a kernel", 0), 0u) << set.cause;
  const Finding unset = first(v +
                              "h:1:2 [0] scheduler/symmetric_sched.cc:83 NCCL WARN Error: no "
                              "symmetric kernel available for function AllReduce.\n");
  EXPECT_TRUE(reads(unset, "symmetric-kernel-unavailable")) << unset.message;
  EXPECT_EQ(unset.cause.rfind("An internal selection error", 0), 0u) << unset.cause;
}

}  // namespace
}  // namespace trainready::test
