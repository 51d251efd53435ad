// Readings put right by the audit of the HPC-X, GPUDirect-TCPX, GPUDirect-TCPXO and NCCL Fast
// Socket plugin entries against the plugins' source (data/nccl-kb/net-plugin-hpcx.yaml,
// net-plugin-gcp-tcpx.yaml, net-plugin-gcp-tcpxo.yaml): each line in the format its plugin prints.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

// GPUDirect-TCPX prints __PRETTY_FUNCTION__:__LINE__ where NCCL prints file:line.
std::string tcpx(const std::string& where, const std::string& text) {
  return "a3-host-1:4312:4390 [0] " + where + " NCCL WARN " + text + "\n";
}

// GPUDirect-TCPXO's absl sink: "NET/FasTrak <time>: <text>" after the source file and line.
std::string fastrak(const std::string& where, const std::string& text) {
  return "a3m-host-1:2210:2260 [0] " + where +
         " NCCL WARN NET/FasTrak "
         "2025-06-01T10:00:02.123456-07:00: " +
         text + "\n";
}

// The plugin clears only its v9/v10 iallgather (src/sharp_plugin.c:252-261 @ 2f5ac02); where NCCL
// wraps the table it calls the cleared pointer (src/plugin/net/net_v9.cc:44,102-103 @ v2.26.6-1):
// the per-collective NCCL_ALGO list is the fix, not the plugin's switches.
TEST(NcclMessage, HpcxSharpAllgatherFailureAdvisesThePerCollectiveAlgoList) {
  const Finding f = first(
      "NCCL version 2.28.9+cuda12.8\nnode01:12345:12410 [0] sharp_plugin.c:674 NCCL WARN SHARP "
      "Allgather failed\n");
  EXPECT_TRUE(ReadsAs(f, "hpcx-sharp-collective-failed",
                      "Only the SHARP allgather or reduce-scatter fails"));
  EXPECT_TRUE(Contains(f.fix, "allgather:^CollNetDirect;reducescatter:^CollNetDirect"));
  EXPECT_TRUE(Contains(f.fix, "Do not rely on the plugin's NCCL_SHARP_DISABLE_ALLGATHER"));
}

// NCCL passes the head rank's node index to the CollNet connect (src/transport.cc:431 @
// v2.30.7-1); "Could not determine my rank" is src/sharp_plugin.c:383 @ 2f5ac02.
TEST(NcclMessage, HpcxSharpRankMinusOneIsNoPluginMismatch) {
  const Finding f =
      first("node01:12345:12410 [0] sharp_plugin.c:383 NCCL WARN Could not determine my rank\n");
  EXPECT_TRUE(
      ReadsAs(f, "hpcx-sharp-connect-failed", "The rank NCCL passed to the CollNet connect is -1"));
}

// Without GPUDirect RDMA the plugin does not advertise CUDA memory (src/p2p_plugin.c:309-321 @
// 2f5ac02), so a failed SHARP registration is GDR that is advertised and does not work.
TEST(NcclMessage, HpcxSharpRegistrationFailureIsAdvertisedGdrThatFails) {
  const Finding f =
      first("node01:12345:12410 [0] sharp_plugin.c:525 NCCL WARN SHARP regmr failed\n");
  EXPECT_TRUE(ReadsAs(f, "hpcx-sharp-memory-registration-failed",
                      "GPUDirect RDMA is advertised but does not work for SHARP"));
}

// MAX_REQUESTS is 8 only in the v2.1 plugin (include/p2p_plugin.h:22 @ e9605bd), 64 from 2.4
// (include/p2p_plugin.h:24-26 @ f46f4dd); src/ucx_plugin.c:756 @ 2f5ac02 prints the line.
TEST(NcclMessage, HpcxRequestLimitNamesTheV21Plugin) {
  const Finding f = first(
      "node01:12345:12410 [0] ucx_plugin.c:756 NCCL WARN NET/UCX: unable to allocate NCCL "
      "request\n");
  EXPECT_TRUE(ReadsAs(f, "hpcx-net-plugin-request-limit",
                      "A plugin older than the NCCL: the v2.1-era plugin"));
}

// The WARN prints status.message() only (src/connect.cc:581-582 @ 4b8ea7f): the UNIX-socket
// client's errno text (src/rx_buf_mgr_client/unix_socket_client.cc:35,47,58) or RxDM's refusal
// (src/rx_buf_mgr_client/rx_rule_client.cc:68-71).
TEST(NcclMessage, GcpTcpxFlowSteeringRuleReadsTheStatusText) {
  const std::string where = "ConnectionState UpdateFlowSteerRule(int, FlowSteerRuleOp, void*):581";
  const std::string head =
      "update flow steering rule: local 10.0.1.2<35022> <- remote 10.0.1.3<41234>, failed "
      "against receive-datapath-manager: ";
  const ReadingCase cases[] = {
      {tcpx(where, head + "unix client connect() error: 2: No such file or directory"),
       "tcpx-flow-steering-rule-failed", kAnySeverity,
       "No RxDM listens at <NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX>"},
      {tcpx(where, head + "unix client socket() error: 24: Too many open files"), kAnyEntry,
       kAnySeverity, "The job's own process could not open the UNIX socket"},
      {tcpx(where,
            head + "Create FlowSteerRule Failed: proto { raw_bytes: \"No rule slot\" }, request "
                   "was flow_steer_ntuple { flow_type: 1 }"),
       kAnyEntry, kAnySeverity, "RxDM answered and refused the rule"},
      {tcpx(where, head + "unix client receive() error: 104: Connection reset by peer"), kAnyEntry,
       kAnySeverity, "RxDM closed the connection before answering"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// "failed to connect socket" is printed only after the TCP connection and the state exchange
// succeeded on every try (src/connect.cc:384-417, 449-498 @ 4b8ea7f): the receiver's RxDM.
TEST(NcclMessage, GcpTcpxConnectFailureIsTheReceiversFlowSteering) {
  const std::string failed = tcpx(
      "tcpxResult_t ConnectSocketWithRetryInternal(int*, int, socketAddress*, socketAddress*, "
      "int, sockCondFn, sockCondCtx*):416",
      "NET/GPUDirectTCPX failed to connect socket");
  const Finding alone = first(failed);
  EXPECT_TRUE(ReadsAs(alone, "tcpx-connect-failed",
                      "The accepting node's RxDM did not program the flow-steering rule"));
  EXPECT_FALSE(Contains(alone.cause, "VPC"));
  // The RxDM WARN in the same log still names it first.
  const Finding withRxdm = reading(
      tcpx("ConnectionState UpdateFlowSteerRule(int, FlowSteerRuleOp, void*):581",
           "update flow steering rule: local 10.0.1.2<35022> <- remote 10.0.1.3<41234>, failed "
           "against receive-datapath-manager: unix client connect() error: 2: No such file or "
           "directory") +
          failed,
      "tcpx-connect-failed");
  EXPECT_TRUE(
      HasCause(withRxdm, "The flow-steering rule for the connection could not be programmed"));
  // The first accepted socket is not the control socket (src/connect.cc:782-784 @ 4b8ea7f).
  const Finding order = first(tcpx("tcpxResult_t tcpxAsyncAcceptV5_v5(tcpxAsyncAcceptArgs*):783",
                                   "assume first conn to be ctrl fd failed"));
  EXPECT_TRUE(ReadsAs(order, "tcpx-connect-failed",
                      "The two sides disagree on the order of a connection's sockets"));
}

// The close-time count of linear-buffer copies (src/net_tcpx.cc:1418-1421 @ 4b8ea7f) is a
// host-landed receive report, no failed check.
TEST(NcclMessage, GcpTcpxCloseTimeCopyCountIsAHostLandedReceive) {
  const std::string log =
      tcpx("tcpxResult_t tcpxClose(void*):1420", "copied 12 times to user buffer");
  const Finding f = first(log);
  // Copied to the GPU: correct, slower.
  EXPECT_TRUE(ReadsAs(f, "tcpx-devmem-rx-not-in-gpu", Severity::kWarning));
  EXPECT_FALSE(kb_reading(log, "tcpx-internal-check").found);
}

// The slowness report fires on ENOBUFS too (src/stats/tracepoint.cc:23-24 @ 4b8ea7f): a
// zero-copy send out of option memory (Google's optmem-max-ds sets net.core.optmem_max 131072).
TEST(NcclMessage, GcpTcpxEnobufsSlownessIsOptionMemory) {
  const std::string where = "void tcpxTpSendRecvSlowness(tcpxTaskTp, tcpxTask*):43";
  const std::string flow =
      "0x7f3a2c0012a0:0x7f3a2c000b80, nic 0, eth1, 10.0.1.2<35022>->10.0.1.3<41234> tx send "
      "timeout error ";
  const Finding enobufs = first(
      tcpx(where, flow + "105, No buffer space available: [0/524288]/524288 cnt 183422, nanos "
                         "10000412345"));
  EXPECT_TRUE(ReadsAs(enobufs, "tcpx-data-slowness",
                      "Zero-copy sends are refused for lack of socket option memory"));
  const Finding eagain = first(tcpx(
      where, flow + "11, Resource temporarily unavailable: [0/524288]/524288 cnt 183422, nanos "
                    "10000412345"));
  EXPECT_TRUE(ReadsAs(eagain, "tcpx-data-slowness", "The peer is not draining the connection"));
}

// sortInterfaces fails only on malloc (src/misc/socket_utils.cc:498-499 @ 4b8ea7f), gethostname
// only with PORT_MAPPING set (src/connect.cc:92-100), clock_gettime at src/timeout.cc:27-28.
TEST(NcclMessage, GcpTcpxSocketSetupFailuresReadTheirOwnCause) {
  const ReadingCase cases[] = {
      {tcpx("int findInterfaces(char*, socketAddress*, int, int):573", "sortInterfaces failed"),
       "tcpx-socket-setup-failed", kAnySeverity, "The plugin could not allocate host memory"},
      {tcpx("tcpxResult_t parsePortMapping(fixedPortRangeCtx*):98", "gethostname failed -1"),
       kAnyEntry, kAnySeverity, "NCCL_GPUDIRECTTCPX_PORT_MAPPING is set"},
      {tcpx("void defaultTimenow(timespec*):28", "clock_gettime failure"), kAnyEntry, kAnySeverity,
       "A system call that does not fail on a healthy host"},
      {tcpx("ConnectionState UpdateFlowSteerRule(int, FlowSteerRuleOp, void*):568",
            "getpeername Transport endpoint is not connected"),
       kAnyEntry, kAnySeverity, "The socket was already closed by a peer that went away"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// Unset, the plugin keeps 1 thread of 1 socket (src/flags.cc:29-30, src/net_tcpx.cc:495-501 @
// 4b8ea7f); Google's settings: NCCL_NSOCKS_PERTHREAD=4, NCCL_SOCKET_NTHREADS=1.
TEST(NcclMessage, GcpTcpxSocketCountCapAdvisesGooglesValues) {
  const Finding f = first(
      tcpx("tcpxResult_t tcpxGetNsockNthread(int, int*, int*):209",
           "NET/GPUDirectTCPX : the total number of sockets is greater than the maximum allowed, "
           "setting TCPX_NSOCKS_PERTHREAD to 2"));
  EXPECT_TRUE(ReadsAs(f, "tcpx-setting-ignored"));
  EXPECT_TRUE(Contains(f.fix, "NCCL_NSOCKS_PERTHREAD=4"));
  EXPECT_FALSE(Contains(f.fix, "6 threads"));
}

// -2 is the default of several parameters (src/net_tcpx.cc:74-108 @ 4b8ea7f), outside every
// range, so each healthy init prints "<name> -2 invalid, restore to default." (:440-452).
TEST(NcclMessage, GcpTcpxMinusTwoInvalidIsAnUnsetSetting) {
  // Info readings of INFO lines: they explain the lines, and no rule reports them.
  EXPECT_TRUE(FoundAs(
      kb_reading(
          "a3-host-1:4312:4312 [0] NCCL INFO NET/GPUDirectTCPX : nsocks per thread -2 invalid, "
          "restore to default.\n",
          "tcpx-setting-default-used"),
      "The setting is not set: -2 is the plugin's \"unset\" value"));
  EXPECT_TRUE(FoundAs(
      kb_reading(
          "a3-host-1:4312:4312 [0] NCCL INFO NET/GPUDirectTCPX : nsocks per thread 12 invalid, "
          "restore to default.\n",
          "tcpx-setting-default-used"),
      "The NCCL_GPUDIRECTTCPX_* (or NCCL_DYNAMIC_CHUNK_SIZE"));
}

// gpu_tx_reg_mr's -5 follows the DMA_BUF_CREATE_PAGES ioctl (src/gpu/tx_pool.cu:167-171 @
// 4b8ea7f); "p2pdma api" is NCCL_USE_DMA_BUF=0 (src/net_tcpx.cc:491-493,806-808); "data not
// aligned" a buffer not 4 KiB aligned (:793-795).
TEST(NcclMessage, GcpTcpxGpuRegistrationFailuresReadTheirCause) {
  const std::string regmr = "tcpxResult_t tcpxRegMr(void*, void*, int, int, void**):806";
  const ReadingCase cases[] = {
      {tcpx("tcpxResult_t gpu_tx_reg_mr(void*, void**, int*, char*, void*, unsigned long):237",
            "gpu_tx_reg_mr failed -5"),
       "tcpx-gpu-mem-register-failed", kAnySeverity, "The dma-buf page ioctl failed (-5, EIO"},
      {tcpx(regmr, "p2pdma api won't work with only RegMr, due to alignment issue"), kAnyEntry,
       kAnySeverity, "NCCL_USE_DMA_BUF=0"},
      {tcpx(regmr, "data not aligned: 0x7f1234567890 vs 0x000000004096"), kAnyEntry, kAnySeverity,
       "NCCL passed a GPU buffer whose address is not 4 KiB aligned"},
      // The internal API's /proc path, printed from get_gpumem_dmabuf_pages_fd: not the CUDA
      // export.
      {tcpx("int get_gpumem_dmabuf_pages_fd(char*, char*, unsigned long long, unsigned long, "
            "int*):118",
            "Error opening /proc/driver/nvp2p_dma_buf/0000:04:00.0/new_fd"),
       kAnyEntry, kAnySeverity, "NCCL_GPUDIRECTTCPX_REG_DMABUF_USE_INTERNAL_API=1"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// The unpack versions compared are both the plugin build's, and unpack1.h:25 static_asserts them
// (src/net_tcpx.cc:1458-1459 @ 4b8ea7f): not the NCCL loaded at run time.
TEST(NcclMessage, GcpTcpxUnpackVersionMismatchIsTheBuildsOwn) {
  const Finding f = first(tcpx("tcpxResult_t tcpxGetDeviceHandle(void*, devNetDeviceHandle*):1459",
                               "compiled with unmatching unpack versions: dev 6, tcpx 7"));
  EXPECT_TRUE(ReadsAs(f, "tcpx-unpack-version-mismatch", "A plugin built from modified sources"));
}

// A full recv task queue only stops posting until the next progress call (src/net_tcpx.cc:
// 1298-1301 @ 4b8ea7f); a receive-sync mismatch stays a failed check.
TEST(NcclMessage, GcpTcpxBackPressureIsNoFailedCheck) {
  const std::string where = "tcpxResult_t tcpxCommProgress(tcpxComm*):1300";
  EXPECT_TRUE(ReadsAs(first(tcpx(where, "No free space for recv task")), "tcpx-internal-check",
                      Severity::kWarning, "Back-pressure or teardown bookkeeping"));
  EXPECT_TRUE(ReadsAs(first(tcpx(where, "Recv sync mismatch, idx 3, peer 4")),
                      "tcpx-internal-check", Severity::kError));
}

// RxDM's sockets are abstract unless FILE_BASED_UDS_PATH_PREFIX is set
// (buffer_mgmt_daemon/common/uds_helpers.cc:85-99 @ v1.0.17): a network namespace, no directory.
TEST(NcclMessage, GcpTcpxoRxdmSocketsAreAbstract) {
  const ReadingCase cases[] = {
      {fastrak("tcpdirect_plugin/fastrak_offload/init.cc:95",
               "Timeout: RxDM not ready on a3m-host-1 after 30 seconds: UNAVAILABLE: connect() "
               "error: 111: Connection refused"),
       "tcpxo-rxdm-not-ready", kAnySeverity, "No RxDM answers in the job's network namespace"},
      {fastrak("tcpdirect_plugin/fastrak_offload/fastrak_plugin.cc:67",
               "UNAVAILABLE: connect() error: 111: Connection refused"),
       "tcpxo-rxdm-socket-error", kAnySeverity, "No RxDM listens on the abstract socket"},
      {fastrak("tcpdirect_plugin/fastrak_offload/common.cc:148",
               "Could not obtain NIC mappings from RxDM"),
       "tcpxo-rxdm-client-failed", kAnySeverity,
       "RxDM is not running, restarted, or not in the job's network namespace"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// The FasTrak index comes from the H100s (10de:2330) under /sys/bus/pci/devices
// (tcpdirect_plugin/fastrak_offload/common.cc:211-245 @ v1.0.17); the list streams the index as a
// raw byte (:255), so index 0 prints nothing after the colon.
TEST(NcclMessage, GcpTcpxoMissingFastrakIndexIsTheH100Scan) {
  const Finding f = first(fastrak(
      "tcpdirect_plugin/fastrak_offload/common.cc:250",
      "No FasTrak index found for PCI addr 0000:86:00.0. Known PCI addresses and their FasTrak "
      "indices:"));
  EXPECT_TRUE(ReadsAs(f, "tcpxo-no-interfaces", "The plugin found no H100 (10de:2330)"));
  EXPECT_TRUE(
      ReadsAs(first(fastrak("tcpdirect_plugin/fastrak_offload/common.cc:255", "  0000:86:00.0:")),
              "tcpxo-no-interfaces"));
}

// "Periodic stats unsupported" skips an optional subscription and init succeeds
// (dxs/client/dxs-client.cc:281-297 @ v1.0.17); "Server version is unsupported" fails it (:768).
TEST(NcclMessage, GcpTcpxoPeriodicStatsUnsupportedIsNoFailure) {
  const ReadingCase cases[] = {
      {fastrak("dxs/client/dxs-client.cc:283",
               "Periodic stats unsupported by current server version"),
       "tcpxo-dxs-init-failed", Severity::kInfo, "Not a failure"},
      {fastrak("dxs/client/dxs-client.cc:768", "Server version is unsupported"),
       "tcpxo-dxs-init-failed", Severity::kError, "The plugin is newer (or older) than the DXS"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// The LLCM device scan skips a device it cannot read (dxs/client/guest-llcm-device.cc:130,140,235
// @ v1.0.17); Google's settings enable LLCM with /dev/aperture_devices (nccl-test-latest.yaml).
TEST(NcclMessage, GcpTcpxoLlcmDeviceScanIsTheLlcmEntrys) {
  const std::string scan =
      fastrak("dxs/client/guest-llcm-device.cc:130",
              "Failed to read vendor ID from /dev/aperture_devices/0000:05:00.1/vendor: NOT_FOUND: "
              "GetContents() failed on /dev/aperture_devices/0000:05:00.1/vendor: No such file or "
              "directory");
  const Finding skipped = first(scan);
  EXPECT_TRUE(ReadsAs(skipped, "tcpxo-llcm-device-error", Severity::kWarning,
                      "One device of the LLCM device directory"));
  EXPECT_FALSE(kb_reading(scan, "tcpxo-dxs-control-failed").found);
  const Finding mapped = first(fastrak(
      "dxs/client/guest_llcm/guest_llcm.cc:52",
      "NOT_FOUND: Failed to open resource0: /sys/bus/pci/devices/0000:05:00.1/resource0: No such "
      "file or directory"));
  EXPECT_TRUE(ReadsAs(mapped, "tcpxo-llcm-device-error", Severity::kError,
                      "NCCL_FASTRAK_USE_LLCM=1 (Google's recommended setting)"));
  EXPECT_TRUE(Contains(mapped.fix, "/dev/aperture_devices"));
}

// ~DxsClient with objects still open is LOG(FATAL) (dxs/client/dxs-client.cc:306-311 @ v1.0.17):
// the process aborts; a failed close at teardown stays a warning.
TEST(NcclMessage, GcpTcpxoDxsClientDestroyedOpenAborts) {
  const Finding aborted = first(fastrak(
      "dxs/client/dxs-client.cc:306",
      "DxsClient destroyed with outstanding objects, aborting to avoid likely segfault. Listen "
      "Sockets: 0, Data Sockets: 2, Recv Ops: 0, Send Ops: 1"));
  EXPECT_TRUE(ReadsAs(aborted, "tcpxo-dxs-teardown", Severity::kError,
                      "The plugin aborted the process at teardown"));
  const Finding closedSocket = first(fastrak(
      "dxs/client/send-socket.h:59", "Failed to close send socket: INTERNAL: close failed"));
  EXPECT_TRUE(ReadsAs(closedSocket, "tcpxo-dxs-teardown", Severity::kWarning));
}

// With NCCL_FASTRAK_LOG_CONNECTION_INFO=1 these traces print at WARNING
// (tcpdirect_plugin/fastrak_offload/common.cc:160-163, nccl_shim.cc:406-410 @ v1.0.17).
TEST(NcclMessage, GcpTcpxoConnectionTracesAreInfo) {
  const Finding gpu = first(
      fastrak("tcpdirect_plugin/fastrak_offload/common.cc:160",
              "Discovered GPU PCI 0000:04:00.0, closest NIC is eth1 (address 10.0.0.2, index 0)"));
  EXPECT_TRUE(ReadsAs(gpu, "tcpxo-connection-info", Severity::kInfo));
  const Finding flows =
      first(fastrak("tcpdirect_plugin/fastrak_offload/nccl_shim.cc:406",
                    "All DXS flows connected to 10.1.0.3 comm:0x55d0c0a1b2c0 comm_trace_id:0x1a2b "
                    "comm_idx:0x3 on net_dev:0 (Local IP: 10.0.0.2)"));
  EXPECT_TRUE(ReadsAs(flows, "tcpxo-connection-info", Severity::kInfo));
}

}  // namespace
}  // namespace trainready::test
