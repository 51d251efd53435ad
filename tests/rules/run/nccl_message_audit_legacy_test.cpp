// Readings of the legacy-*.yaml entries (messages only releases before 2.18 print) put right by
// an audit against NCCL's source at every release tag (docs/nccl-corpus.md): each line in the
// format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

// src/bootstrap.cc:251 (no return), :279, :290 @ v2.11.4-1; MAX_SEGMENTS 128 at :225.
TEST(NcclMessage, LegacyRemAllocatorCudaFreeAndSetDeviceAreWarnings) {
  const std::string version = "NCCL version 2.11.4+cuda11.4\n";
  const ReadingCase cases[] = {
      {version + "h:1:9 [0] bootstrap.cc:290 NCCL WARN [Rem Allocator] cudaFree "
                 "0x7f3c20000000 failed\n",
       "legacy-bootstrap-rem-alloc-failed", Severity::kWarning,
       "cudaFree returned the sticky error"},
      {version + "h:1:9 [0] bootstrap.cc:251 NCCL WARN [Rem Allocator] Failed to "
                 "set CUDA device 1\n",
       kAnyEntry, Severity::kWarning, "cudaSetDevice failed in the service thread"},
      {version + "h:1:9 [0] bootstrap.cc:279 NCCL WARN [Rem Allocator] Allocation "
                 "failed (segment 128, fd 130)\n",
       kAnyEntry, Severity::kError, "cudaMalloc or cudaIpcGetMemHandle on this GPU failed"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/graph/tuning.cc:133 (CollNet bandwidth 0 for every protocol but Simple), :198 (NCCL_PROTO
// only zeroes bandwidths) and src/transport/coll_net.cc:301 @ v2.11.4-1.
TEST(NcclMessage, LegacyCollNetProtocolIsNoNcclProtoSetting) {
  const Finding f = reading(
      "NCCL version 2.11.4+cuda11.4\nh:1:1 [0] NCCL INFO NCCL_PROTO set by environment to LL128\n"
      "h:1:5 [0] transport/coll_net.cc:301 NCCL WARN CollNet does not support LL128\n",
      "legacy-collnet-protocol");
  EXPECT_TRUE(ReadsAs(f, "legacy-collnet-protocol", "An NCCL bug of these releases"));
}

// src/init.cc:255-261 (dmaBufSupported calls pfn_cuDriverGetVersion) and :336 @ v2.15.5-1,
// guarded from src/init.cc:241 @ v2.16.2-1; src/misc/cudawrap.cc:90 @ v2.14.3-1.
TEST(NcclMessage, LegacyCudaLibraryNotFoundWithIbBefore2_16IsAnError) {
  const std::string ib = "h:1:1 [0] NCCL INFO Using network IB\n";
  const Finding crash = reading(
      "NCCL version 2.14.3+cuda11.7\nh:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA "
      "library in (null) (NCCL_CUDA_PATH=(null))\n" +
          ib,
      "legacy-cuda-library-not-found");
  EXPECT_TRUE(ReadsAs(crash, "legacy-cuda-library-not-found", Severity::kError,
                      "On 2.13-2.15 with NET/IB"));
  // NET/Socket registers no DMA-BUF: the failure stays a warning.
  const Finding socket = reading(
      "NCCL version 2.14.3+cuda11.7\nh:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA "
      "library in (null) (NCCL_CUDA_PATH=(null))\nh:1:1 [0] NCCL INFO Using network Socket\n",
      "legacy-cuda-library-not-found");
  EXPECT_TRUE(HasCause(socket, Severity::kWarning, "Only libcuda.so.1 is present"));
  // A build for CUDA before 11.7 has no DMA-BUF check to crash in (src/init.cc:252-258 @
  // v2.15.5-1): a warning.
  const Finding old_cuda = reading(
      "NCCL version 2.14.3+cuda11.6\nh:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA "
      "library in (null) (NCCL_CUDA_PATH=(null))\n" +
          ib,
      "legacy-cuda-library-not-found");
  EXPECT_EQ(old_cuda.severity, Severity::kWarning);
  EXPECT_FALSE(StartsWith(old_cuda.cause, "On 2.13-2.15 with NET/IB"));
  // 2.16 checks the init result before the call.
  const Finding guarded = reading(
      "NCCL version 2.16.5+cuda12.0\nh:1:1 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA "
      "library (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or "
      "directory\n" +
          ib,
      "legacy-cuda-library-not-found");
  EXPECT_EQ(guarded.severity, Severity::kWarning);
  EXPECT_FALSE(Contains(guarded.cause, "On 2.13-2.15 with NET/IB"));
}

// src/group.cc:77-80, :99-102 (MAX_ASYNC_OPS 128, :12) and src/enqueue.cc:791 (NCCL_MAX_OPS) @
// v2.11.4-1.
TEST(NcclMessage, LegacyTooManyAsyncOpsOf128IsCommunicatorsPerGroup) {
  const Finding comms = first(
      "NCCL version 2.11.4+cuda11.4\nh:1:1 [0] group.cc:100 NCCL WARN Too many async operations "
      "in progress, max is 128\n");
  EXPECT_TRUE(
      ReadsAs(comms, "legacy-enqueue-too-many-ops", "More than 128 communicators in one group"));
  const Finding ops = first(
      "NCCL version 2.11.4+cuda11.4\nh:1:1 [0] enqueue.cc:791 NCCL WARN Too many async operations "
      "in progress, max is 2048\n");
  EXPECT_TRUE(HasCause(ops, "The application aggregates too many"));
}

// src/init.cc:465-470 (PARALLEL unless NCCL_LAUNCH_MODE=GROUP), :232 (commFree) and
// src/enqueue.cc:232, :290 @ v2.11.4-1; src/init.cc:374-379 (GROUP by default) @ v2.7.8-1.
TEST(NcclMessage, LegacyCpuBarrierOverflowFrom2_9IsTeardown) {
  const std::string warn =
      "h:1:1 [0] enqueue.cc:232 NCCL WARN Trying to launch too many work elements, max is 2048\n";
  const Finding teardown =
      reading("NCCL version 2.11.4+cuda11.4\n" + warn, "legacy-enqueue-cpu-barrier-overflow");
  EXPECT_TRUE(ReadsAs(teardown, "legacy-enqueue-cpu-barrier-overflow",
                      "On 2.9-2.12 kernels are launched without this barrier"));
  const Finding group = reading(
      "NCCL version 2.11.4+cuda11.4\nh:1:1 [0] NCCL INFO NCCL_LAUNCH_MODE set by environment to "
      "GROUP\n" +
          warn,
      "legacy-enqueue-cpu-barrier-overflow");
  EXPECT_TRUE(HasCause(group, "The GPUs of one process did not issue"));
  const Finding older = first(
      "NCCL version 2.7.8+cuda11.0\nh:1:1 [0] enqueue.cc:134 NCCL WARN Trying to launch too many "
      "collectives\n");
  EXPECT_TRUE(HasCause(older, "The GPUs of one process did not issue"));
}

// src/misc/strongstream.cc:26 @ v2.15.1-1 (the last release with this text).
TEST(NcclMessage, LegacyCudaGraphDriverReadOn2_15_1) {
  const Finding f = first(
      "NCCL version 2.15.1+cuda11.8\nh:1:1 [0] misc/strongstream.cc:26 NCCL WARN The installed "
      "CUDA driver is older than the minimum version (R465) required for NCCL's CUDA Graphs "
      "support\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-enqueue-cuda-graph-driver", Severity::kError));
}

// src/misc/argcheck.cc:14 @ v2.12.7-1 (no pointer printed); v2.12.10-1 prints it.
TEST(NcclMessage, LegacyInvalidPointerReadOn2_12_7) {
  const Finding old = first(
      "NCCL version 2.12.7+cuda11.6\nh:1:1 [0] misc/argcheck.cc:14 NCCL WARN AllReduce : sendbuff "
      "is not a valid pointer\n");
  EXPECT_TRUE(ReadsAs(old, "legacy-enqueue-invalid-pointer"));
  const Finding later = first(
      "NCCL version 2.12.10+cuda11.6\nh:1:1 [0] misc/argcheck.cc:14 NCCL WARN AllReduce : "
      "sendbuff 0x7f3a2c000000 is not a valid pointer\n");
  EXPECT_TRUE(DoesNotRead(later, "legacy-enqueue-invalid-pointer"));
}

// src/transport/net.cc:60-63 (netCanConnect: *ret = 1) and src/transport.cc:39 @ v2.11.4-1.
TEST(NcclMessage, LegacyNoTransportFoundIsNoTransportSetting) {
  const Finding f = reading(
      "NCCL version 2.11.4+cuda11.4\nh:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to "
      "1.\nh:1:1 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
      "h:1:2 [0] transport.cc:39 NCCL WARN No transport found !\n",
      "legacy-init-no-transport");
  EXPECT_TRUE(ReadsAs(f, "legacy-init-no-transport", "An NCCL bug or corrupted peer information"));
}

// src/init.cc:508-514 (a rank always matches itself), :528-529 @ v2.9.9-1.
TEST(NcclMessage, LegacyIntraRanksUndeterminedIsGarbledInitData) {
  const Finding f = first(
      "NCCL version 2.9.9+cuda11.3\nh:1:3 [0] init.cc:529 NCCL WARN Failed to determine intra "
      "ranks hostHash[3] 8a3bd2c4f1e5a7b6 intraRank 1 intraRanks 2 intraRank0 2\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-init-intra-ranks-undetermined",
                      "Ranks exchanged init data of different layouts"));
}

// src/init.cc:1007 (ncclCommGetAsyncError) @ v2.7.6-1, the last release with it.
TEST(NcclMessage, LegacyUnknownDeviceErrorReadOn2_7_6) {
  const Finding f = first(
      "NCCL version 2.7.6+cuda11.0\nh:1:1 [0] init.cc:1007 NCCL WARN Unknown device error 3\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-init-unknown-device-error", Severity::kError));
}

// src/transport/p2p.cu:476 @ v2.3.5-5: no "(=...)" after the device before 2.4.
TEST(NcclMessage, LegacyIpcGetHandleReadInThe2_3Format) {
  const Finding f = first(
      "NCCL version 2.3.5+cuda10.0\nh:1:2 [1] transport/p2p.cu:476 NCCL WARN rank 1 failed to get "
      "CUDA IPC handle to device 0 : 30 unknown error\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-p2p-ipc-get-handle", "The platform does not support CUDA IPC"));
}

// src/transport/p2p.cc:428-430 (ncclInternalError; MAXGPUS_NVLINKP2P 8, :128) @ v2.4.8-1.
TEST(NcclMessage, LegacyRecursiveP2pBeyond8GpusIsAnError) {
  const Finding f = first(
      "NCCL version 2.4.8+cuda10.1\nh:1:2 [0] transport/p2p.cc:429 NCCL WARN Recursive P2P "
      "computation cannot work for >8 GPUs\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-p2p-ring-search", Severity::kError,
                      "More than 8 ranks of one node are connected by NVLink"));
  const Finding capped = first(
      "NCCL version 2.4.8+cuda10.1\nh:1:2 [0] transport/p2p.cc:202 NCCL WARN Max rings reached, "
      "limiting to 4\n");
  EXPECT_EQ(capped.severity, Severity::kWarning);
  EXPECT_FALSE(StartsWith(capped.cause, "More than 8 ranks of one node"));
}

// src/proxy.cc:195 @ v2.11.4-1 prints "on channel %d"; src/proxy.cc:358 @ v2.12.12-1 "%d/%d".
TEST(NcclMessage, LegacyNoTransportForPeerLeaves2_12TextToProxyYaml) {
  const Finding later =
      first("h:1:2 [0] NCCL WARN Rank 3 has no transport for send peer 5 on channel 2/8\n");
  EXPECT_TRUE(DoesNotRead(later, "legacy-proxy-no-transport-for-peer"));
  EXPECT_TRUE(ReadsAs(later, "proxy-no-transport-for-peer"));
  const Finding old = first(
      "NCCL version 2.11.4+cuda11.4\nh:1:2 [0] proxy.cc:195 NCCL WARN Rank 3 has no transport for "
      "send peer 5 on channel 2\n");
  EXPECT_TRUE(ReadsAs(old, "legacy-proxy-no-transport-for-peer"));
}

// src/misc/rings.cc:164-166 (ncclInternalError), :361 (falls back) @ v2.4.8-1.
TEST(NcclMessage, LegacyCouldNotFindTransportToConnectNextGroupIsAnError) {
  const Finding f = first(
      "NCCL version 2.4.8+cuda10.1\nh:1:2 [0] misc/rings.cc:164 NCCL WARN Error : Could not find "
      "transport to connect next group\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-topo-rings-fallback", Severity::kError,
                      "An internal inconsistency of 2.4's transport matrix"));
  const Finding fallback = first(
      "NCCL version 2.4.8+cuda10.1\nh:1:2 [0] misc/rings.cc:361 NCCL WARN Could not create rings, "
      "falling back on simple ring\n");
  EXPECT_EQ(fallback.severity, Severity::kWarning);
}

// src/graph/xml.cc:661-664 (NVML loaded and initialised first), :562 @ v2.7.8-1.
TEST(NcclMessage, LegacyNoNvmlIsAMissingDeviceHandle) {
  const Finding f = first(
      "NCCL version 2.7.8+cuda11.0\nh:1:2 [0] graph/xml.cc:562 NCCL WARN No NVML, trying to use "
      "CUDA instead\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-topo-no-nvml", "NVML is loaded but cannot return a handle"));
}

// src/transport/net.cc:17 (NET_MAX_GPUS 32), :121-122 @ v2.4.8-1.
TEST(NcclMessage, LegacyNetTooManyGpusIsDeviceIndex32) {
  const Finding f = first(
      "NCCL version 2.4.8+cuda10.1\nh:1:2 [0] transport/net.cc:122 NCCL WARN CUDA device 32 >= MAX "
      "32\n");
  EXPECT_TRUE(ReadsAs(f, "legacy-net-too-many-gpus", "The process sees more than 32 CUDA devices"));
}

// src/transport/p2p.cc:62-68 (CUDA 10.1+ use P2P with invisible devices), :237 @ v2.7.8-1.
TEST(NcclMessage, LegacyIpcOpenFailedIsNotCudaVisibleDevices) {
  const Finding f = first(
      "NCCL version 2.7.8+cuda11.0\nh:1:2 [0] transport/p2p.cc:237 NCCL WARN failed to open CUDA "
      "IPC handle : 1 invalid argument\n");
  EXPECT_TRUE(
      ReadsAs(f, "legacy-p2p-ipc-open-failed", "The two processes cannot share CUDA IPC memory"));
  EXPECT_FALSE(Contains(f.fix, "CUDA_VISIBLE_DEVICES"));
}

// src/include/socket.h:419 (socketProgressOpt) @ v2.9.9-1: nothing there depends on the node count.
TEST(NcclMessage, LegacyConnectionClosedOnOneNodeIsThePeerThatDied) {
  const std::string warn =
      "NCCL version 2.9.9+cuda11.3\nh:1:2 [0] include/socket.h:419 NCCL WARN Net : Connection "
      "closed by remote peer\n";
  const Finding died = reading(warn, "legacy-socket-closed-by-remote-peer");
  EXPECT_TRUE(ReadsAs(died, "legacy-socket-closed-by-remote-peer",
                      "The peer process exited or was killed first"));
  const Finding aborted =
      reading(warn +
                  "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
                  "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 "
                  "milliseconds before timing out.\n",
              "legacy-socket-closed-by-remote-peer");
  EXPECT_TRUE(HasCause(aborted, "The peer aborted its communicator"));
}

}  // namespace
}  // namespace trainready::test
