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
// GIN's DMA-BUF probe (src/transport/net_ib/gdr.cc:56 @ v2.29.7-1) calls wrap_ibv_alloc_pd
// when libibverbs never loaded: "lib wrapper not initialized." starts an error trail that ends in
// "Failed to initialize any GIN plugin", and NCCL goes on with sockets (NVIDIA/nccl#2094). A
// warning, as the missing library is; without that context, still the version mismatch.
TEST(NcclMessage, LibWrapperNotInitializedAfterNoLibibverbsIsAFallback) {
  const std::string v = "NCCL version 2.29.7+cuda12.3\n";
  const Finding w =
      reading_of("nccl-message",
                 log_text(v + "[5] NCCL INFO Failed to open libibverbs.so[.1]\n"
                              "[5] misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.\n"
                              "[5] NCCL INFO transport/net_ib/gdr.cc:56 -> 3\n"
                              "[5] NCCL INFO Failed to initialize any GIN plugin\n"
                              "[5] NCCL INFO Using network Socket\n"),
                 "ib-verbs-lib-missing");
  EXPECT_EQ(w.severity, Severity::kWarning) << w.message;
  EXPECT_NE(w.cause.find("The IB verbs symbols were never loaded"), std::string::npos) << w.cause;
  const Finding e =
      reading_of("nccl-message",
                 log_text(v + "[5] misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.\n"
                              "[5] NCCL INFO transport/net_ib/init.cc:100 -> 3\n"),
                 "ib-verbs-lib-missing");
  EXPECT_EQ(e.severity, Severity::kError) << e.message;
}

TEST(NcclMessage, RmaNotSupportedIsAnInternalGuard) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] NCCL INFO Using network Socket\n"
                          "h:1:2 [0] rma/rma_proxy.cc:379 (ncclRmaProxyConnectOnce) NCCL WARN RMA "
                          "not supported.\n");
  EXPECT_TRUE(
      ReadsAs(f, "rma-not-available", "An internal inconsistency, or an external RMA plugin"));
}

// src/rma/rma_proxy.cc:413-416 @ v2.30.7-1: the count is the topology's
// (src/graph/topo.cc:2099-2107).
TEST(NcclMessage, RmaMinLocalNetCountZeroIsATopologyInconsistency) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] rma/rma_proxy.cc:414 (ncclRmaProxyConnectOnce) NCCL WARN Rma "
                          "connect : min local net count is zero\n");
  EXPECT_TRUE(ReadsAs(f, "rma-min-local-net-count-zero"));
  // Its only cause, offered as the likeliest (the log cannot show it).
  EXPECT_TRUE(
      Contains(f.cause, "the likeliest: The topology gave this or another rank no local RMA NIC"));
}

// src/rma/rma_proxy_launch.cc:554-556 @ v2.30.7-1: the proxy connects only at window registration
// (src/dev_runtime.cc:536-537,626-629), which NCCL_RMA_DISABLE skips (dev_runtime.cc:32,627).
TEST(NcclMessage, RmaProxyNotConnectedReadsRmaDisableOrLazyConnect) {
  const std::string warn =
      "h:1:2 [0] rma/rma_proxy_launch.cc:555 (ncclRmaProxyPutLaunch) NCCL WARN RMA proxy is not "
      "connected\n";
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] NCCL INFO NCCL_RMA_DISABLE set by environment to 1.\n" + warn,
       "rma-not-initialized", kAnySeverity, "NCCL_RMA_DISABLE=1 (2.30.7+)"},
      {kV2307 + warn, "rma-not-initialized", kAnySeverity,
       "ncclSignal/ncclWaitSignal (or a put) to a peer outside"},
      // The copy-engine guard (src/rma/rma_ce.cc:373-375) is not the proxy's.
      {kV2307 + "h:1:2 [0] rma/rma_ce.cc:374 (ncclRmaCePutLaunch) NCCL WARN RMA CE is "
                "not initialized\n",
       "rma-not-initialized", kAnySeverity, "The RMA setup failed earlier"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/rma/rma_proxy.cc:316-322 @ v2.30.7-1: NCCLCHECK(regMrSym) comes first, so the WARN is a
// backend that returned success without a handle; the built-in one never does
// (src/transport/net_ib/gin.cc:450-479).
TEST(NcclMessage, RmaSymmetricRegisterFailedIsAnExternalBackend) {
  const Finding f = first(kV2307 +
                          "h:1:2 [0] rma/rma_proxy.cc:320 (ncclRmaProxyRegister) NCCL WARN rank 3 "
                          "- RMA Symmetric register failed: buff 0x7f2a40000000, size 268435456\n");
  EXPECT_TRUE(ReadsAs(f, "rma-symmetric-register-failed", "An external RMA backend"));
}

// src/gin/gin_host.cc:85-87 @ v2.30.7-1: the line names its cause, whatever network the log shows.
TEST(NcclMessage, GinIsDisabledReadsTheSettingOnASocketLog) {
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] NCCL INFO Using network Socket\n"
                "h:1:2 [0] gin/gin_host.cc:86 (ncclGinConnectOnce) NCCL WARN GIN "
                "is disabled.\n",
       "gin-not-available", kAnySeverity, "GIN is disabled by NCCL_GIN_ENABLE=0"},
      // 2.28.9 reaches the NULL-backend check on NET/Socket (src/gin/gin_host.cc:61-63 @
      // v2.28.9-1).
      {"NCCL version 2.28.9+cuda12.9\nh:1:2 [0] NCCL INFO Using network Socket\n"
       "h:1:2 [0] gin/gin_host.cc:62 NCCL WARN GIN not supported.\n",
       "gin-not-available", kAnySeverity, "(2.28.x) The network NCCL uses has no GIN support"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// Only "GIN-capable device type mismatch." tests NCCL_GIN_TYPE (src/gin/gin_host.cc:101-102 @
// v2.29.3-1); the RMA proxy's check is the backend's type (src/rma/rma_proxy.cc:414-415 @
// v2.30.4-1).
TEST(NcclMessage, GinTypeSettingReadsOnlyTheGinTypeMismatch) {
  const std::string env = "h:1:2 [0] NCCL INFO NCCL_GIN_TYPE set by environment to 3.\n";
  const ReadingCase cases[] = {
      {"NCCL version 2.30.4+cuda12.9\n" + env +
           "h:1:2 [0] rma/rma_proxy.cc:415 NCCL WARN RMA proxy backend type "
           "mismatch.\n",
       "gin-backend-type-mismatch", kAnySeverity,
       "A GIN/net plugin built for another NCCL version"},
      {"NCCL version 2.29.3+cuda12.9\n" + env +
           "h:1:2 [0] gin/gin_host.cc:102 NCCL WARN GIN-capable device type "
           "mismatch.\n",
       "gin-backend-type-mismatch", kAnySeverity, "NCCL_GIN_TYPE is set to a backend"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/gin/gin_host.cc:101-110 @ v2.28.9-1: each line names its own variable.
TEST(NcclMessage, GinPoolSizeWarnNamesItsVariable) {
  const std::string v =
      "NCCL version 2.28.9+cuda12.9\nh:1:2 [0] NCCL INFO NCCL_GIN_SIGNAL_POOL_SIZE set by "
      "environment to 65536.\n";
  const ReadingCase cases[] = {
      {v + "h:1:2 [0] gin/gin_host.cc:108 NCCL WARN NCCL_GIN_COUNTER_POOL_SIZE has invalid "
           "value.\n",
       "gin-pool-size-invalid", kAnySeverity, "NCCL_GIN_COUNTER_POOL_SIZE is set out of range"},
      {"NCCL version 2.28.9+cuda12.9\nh:1:2 [0] gin/gin_host.cc:103 NCCL WARN "
       "NCCL_GIN_SIGNAL_POOL_SIZE has invalid value.\n",
       kAnyEntry, kAnySeverity, "NCCL_GIN_SIGNAL_POOL_SIZE is set out of range"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/gin/gin_host.cc:379-394 @ v2.30.7-1: the multi-segment check has its own text; the
// missing-handle WARN follows a regMrSym that returned success.
TEST(NcclMessage, GinSymmetricRegisterFailedTellsItsTwoMessagesApart) {
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] gin/gin_host.cc:393 (ncclGinRegister) NCCL WARN rank 0 "
                "- GIN Symmetric register failed: buff 0x7f2a40000000, size "
                "268435456\n",
       "gin-symmetric-register-failed", kAnySeverity, "An external GIN/RMA plugin"},
      {kV2307 + "h:1:2 [0] gin/gin_host.cc:383 (ncclGinRegister) NCCL WARN Window "
                "registration of addresses that span multiple physical segments "
                "requires DMABUF support with GIN.\n",
       "gin-symmetric-register-failed", kAnySeverity,
       "The window spans several physical cuMem segments"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// transport/gdaki/gin_host_gdaki.cc:355-371,588 @ v2.28.9-1 looks NCCL's device name up in the
// verbs list: "<dev>_dma" (src/transport/net_ib.cc:785) and "<a>+<b>" (net_ib.cc:626) are no verbs
// names.
TEST(NcclMessage, GdakiDeviceNotFoundReadsNcclsOwnNicNames) {
  const std::string v = "NCCL version 2.28.9+cuda12.9\n";
  const std::string at = "h:1:2 [0] transport/gdaki/gin_host_gdaki.cc:371 NCCL WARN IB device ";
  const ReadingCase cases[] = {
      {v + at + "mlx5_0_dma not found\n", "gin-gdaki-device-not-found", kAnySeverity,
       "NCCL 2.28 names a Data Direct NIC"},
      {v + at + "mlx5_0+mlx5_1 not found\n", kAnyEntry, kAnySeverity,
       "NCCL merged ports into a virtual NIC"},
      {v + at + "mlx5_0 not found\n", kAnyEntry, kAnySeverity, "No RDMA devices are visible"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/gin/gin_host.cc:193-196 @ v2.30.7-1; the built-in backends support both signal kinds
// (src/transport/net_ib/gin.cc:242-245, src/gin/gin_host_proxy.cc:330-333).
TEST(NcclMessage, GinSignalsUnsupportedIsAnExternalPlugin) {
  const Finding f =
      first(kV2307 +
            "h:1:2 [0] gin/gin_host.cc:195 (ncclGinDevCommSetup) NCCL WARN GIN strong "
            "signals are required, but the GIN plugin does not support them.\n");
  EXPECT_TRUE(ReadsAs(f, "gin-signals-unsupported", "An external GIN plugin"));
}

// symmetricSupport needs ncclParamWinEnable() (src/init.cc:1674 @ v2.30.7-1).
TEST(NcclMessage, SymmetricNotSupportedReadsWinEnable) {
  const std::string warn =
      "h:1:2 [0] dev_runtime.cc:1523 (ncclDevCommCreate) NCCL WARN Communicator does not support "
      "symmetric memory!\n";
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] NCCL INFO NCCL_WIN_ENABLE set by environment to 0.\n" + warn,
       "symmetric-not-supported", kAnySeverity, "NCCL_WIN_ENABLE=0 turns symmetric memory off"},
      {kV2307 + "h:1:2 [0] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0.\n" + warn,
       kAnyEntry, kAnySeverity, "NCCL_CUMEM_ENABLE=0"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/dev_runtime.cc:1337-1338 @ v2.30.7-1 and :1071-1072 @ v2.29.7-1: a NULL buffer prints as
// glibc's "(nil)".
TEST(NcclMessage, WindowRegisterNullPointerIsRead) {
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] dev_runtime.cc:1338 (ncclCommWindowRegister) NCCL WARN "
                "invalid pointer (nil) / size 1048576\n",
       "symmetric-window-bad-args", kAnySeverity,
       "ncclCommWindowRegister was called with a NULL buffer"},
      {"NCCL version 2.29.7+cuda12.9\nh:1:2 [0] dev_runtime.cc:1072 NCCL WARN "
       "ncclCommWindowRegister: invalid pointer (nil) / size 1048576\n",
       "symmetric-window-bad-args"},
      {kV2307 + "h:1:2 [0] dev_runtime.cc:881 (ncclDevrWindowRegisterInGroup) NCCL "
                "WARN Window address must be suitably aligned.\n",
       "symmetric-window-bad-args", kAnySeverity, "The buffer passed is a sub-allocation"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/dev_runtime_segments.cc:46,60,95 @ v2.30.7-1: each message names its own cause
// (NCCL_ELASTIC_BUFFER_REGISTER defaults to 1, src/dev_runtime.cc:30).
TEST(NcclMessage, WindowSegmentMessagesReadTheirOwnCause) {
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] dev_runtime_segments.cc:95 "
                "(ncclDevrVerifySegmentLayouts) NCCL WARN Elastic GIN: rank 3 has 2 "
                "segments but another rank has 3 segments; all ranks must have "
                "identical segment configurations\n",
       "symmetric-window-segments-unsupported", kAnySeverity,
       "Ranks registered host-backed windows"},
      {kV2307 + "h:1:2 [0] dev_runtime_segments.cc:60 "
                "(ncclDevrCheckRegistrationSupport) NCCL WARN VA represented by "
                "{userPtr = 0x7f2a40000000, size = 1048576} contains CPU-backed "
                "physical segments, but the LSA team does not support multi-node IPC "
                "on CPU-backed buffers. Please retry by setting NCCL_MNNVL_ENABLE=0\n",
       kAnyEntry, kAnySeverity, "Host (CPU-backed) segments on an MNNVL"},
      {kV2307 + "h:1:2 [0] dev_runtime_segments.cc:46 "
                "(ncclDevrCheckRegistrationSupport) NCCL WARN VA represented by "
                "{userPtr = 0x7f2a40000000, size = 1048576} contains CPU-backed "
                "physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0. "
                "Please set NCCL_ELASTIC_BUFFER_REGISTER=1 and retry window "
                "registration\n",
       kAnyEntry, kAnySeverity, "NCCL_ELASTIC_BUFFER_REGISTER=0 was set"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/devcomm/devcomm_v22907.cc:89 and src/dev_runtime.cc:1426-1428 @ v2.30.7-1: only "NCCL
// library is too old" means the library is the older one.
TEST(NcclMessage, DeviceApiVersionMismatchReadsWhichSideIsOlder) {
  const ReadingCase cases[] = {
      {kV2307 + "h:1:2 [0] devcomm/devcomm_v22907.cc:89 (ncclDevCommRequirementsFilter_v22907) "
                "NCCL WARN The application was compiled with too old version of NCCL. It was "
                "compiled with NCCL version 2.29.7, but is running with NCCL library version "
                "2.30.7. Because of its use of GIN device kernels, it needs to be recompiled, "
                "preferably with the same NCCL version that it will be running with.\n",
       "symmetric-device-api-version-mismatch", kAnySeverity,
       "The application was compiled against older NCCL headers"},
      {kV2307 + "h:1:2 [0] dev_runtime.cc:1428 (getNcclVersionCompat) NCCL WARN NCCL "
                "library is too old. This application was compiled with NCCL version "
                "2.31.0, but is running with NCCL library version 2.30.7.\n",
       "symmetric-device-api-version-mismatch", kAnySeverity, "The runtime libnccl is older"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/dev_runtime.cc:1119-1142 @ v2.30.7-1; RAIL comes from NCCL_CROSS_NIC=0
// (src/graph/search.cc:1069-1071, src/init.cc:1669-1670).
TEST(NcclMessage, GinRequestUnsatisfiableReadsEachMessage) {
  const std::string at = "h:1:2 [0] dev_runtime.cc:";
  const ReadingCase cases[] = {
      {kV2307 + at +
           "1120 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN "
           "resources but did not request GIN to be enabled!\n",
       "symmetric-gin-request-unsatisfiable", kAnySeverity,
       "Application bug - GIN counters/signals/barriers"},
      {kV2307 + at +
           "1131 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN "
           "connection type NCCL_GIN_CONNECTION_FULL but the communicator "
           "supports only NCCL_GIN_CONNECTION_RAIL\n",
       kAnyEntry, kAnySeverity, "NCCL_CROSS_NIC=0 on some rank"},
      {kV2307 + at +
           "1142 (ncclDevrCommCreateInternal) NCCL WARN Cannot create "
           "worldGinBarrier with NCCL_GIN_CONNECTION_RAIL.\n",
       kAnyEntry, kAnySeverity, "Application bug - a world GIN barrier"},
      {kV2307 + at +
           "1126 (ncclDevrCommCreateInternal) NCCL WARN User requested GIN but "
           "not all ranks in the communicator support GIN\n",
       kAnyEntry, kAnySeverity, "Some rank has no GIN backend"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/scheduler/symmetric_sched.cc:82-85 @ v2.28.9-1 prints the setting in the line itself.
TEST(NcclMessage, SymmetricKernelUnavailableReadsTheSettingFromTheLine) {
  const std::string v = "NCCL version 2.28.9+cuda12.9\n";
  const ReadingCase cases[] = {
      {v + "h:1:2 [0] scheduler/symmetric_sched.cc:83 NCCL WARN Error: no "
           "symmetric kernel available for function AllReduce. NCCL_SYM_KERNEL "
           "was set to ncclSymkAllReduceLL\n",
       "symmetric-kernel-unavailable", kAnySeverity, "NCCL_SYM_KERNEL forces a kernel"},
      {v + "h:1:2 [0] scheduler/symmetric_sched.cc:83 NCCL WARN Error: no "
           "symmetric kernel available for function AllReduce.\n",
       "symmetric-kernel-unavailable", kAnySeverity, "An internal selection error"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

}  // namespace
}  // namespace trainready::test
