// Readings of aws-ofi-nccl's lines (data/nccl-kb/net-plugin-ofi.yaml, net-plugin-efa.yaml) put
// right by an audit against the plugin's and libfabric's source: each line in the format of the
// release that prints it. The plugin's passthrough entries (net-plugin-ofi.yaml) are read by
// nccl-known-signature, its other entries (net-plugin-efa.yaml) by nccl-message.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const std::string kHost = "ip-10-0-12-34:4821:4821 [0] ";
const std::string kProxy = "ip-10-0-12-34:4821:4903 [0] ";

// src/nccl_ofi_rdma.c:7978 (WARN), src/nccl_ofi_net.c:267 (INFO) @ aws-ofi-nccl v1.14.0
TEST(NcclMessage, OfiGetinfoRdmaProbeBeforeSendrecvIsNoFailure) {
  const std::string warn = kHost +
                           "nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call "
                           "failed: No data available\n";
  const ReadingCase cases[] = {
      {"NCCL version 2.21.5+cuda12.4\n" + warn + kHost +
           "NCCL INFO NET/OFI Using transport protocol SENDRECV\n",
       "ofi-getinfo-failed", Severity::kInfo, "The RDMA protocol's probe found no provider"},
      // Without the SENDRECV line after it the probe is not known to have been the only failure.
      {"NCCL version 2.21.5+cuda12.4\n" + warn, "ofi-getinfo-failed", Severity::kError,
       "The EFA devices are not visible"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/nccl_ofi_rdma.cpp:7305 (INFO) @ aws-ofi-nccl v1.21.1; src/nccl_ofi_net.c:432 @ v1.8.1-aws
TEST(NcclMessage, OfiGetinfoEmptyProbeInfoIsNotReadAndOldWordingIs) {
  const Finding info = signature("NCCL version 2.27.5+cuda12.9\n" + kHost +
                                 "NCCL INFO NET/OFI No eligible providers were found\n" + kHost +
                                 "NCCL INFO NET/OFI Using transport protocol SENDRECV\n");
  EXPECT_FALSE(kb_reading("NCCL version 2.27.5+cuda12.9\n" + kHost +
                              "NCCL INFO NET/OFI No eligible providers were found\n",
                          "ofi-getinfo-failed")
                   .found)
      << info.message;
  const Finding old =
      signature(kHost +
                "find_ofi_provider:432 NCCL WARN NET/OFI OFI call failed with RC -22, Invalid "
                "argument\n");
  // Not the empty list ("Couldn't find any optimal provider" is that): libfabric refused the
  // request.
  EXPECT_TRUE(ReadsAs(old, "ofi-getinfo-failed", "libfabric rejected the plugin's request"));
}

// src/nccl_ofi_rdma.cpp:1427 @ aws-ofi-nccl v1.17.3; efa_errno.h:72 @ libfabric v1.22.0
TEST(NcclMessage, OfiRequestSeqCompletionErrorReadsTheSecurityGroup) {
  const std::string head = kProxy +
                           "int rdma_req_handle_error_entry(nccl_net_ofi_context_t*, fid_cq*, "
                           "fi_cq_err_entry*, uint16_t):1427 NCCL WARN NET/OFI Request "
                           "0x7f31a80c3e40 seq 17 completed with error. RC: 113. ";
  const std::string tail =
      "Completed length: 0, Request: { dev: 0, size: 1048576, state: PENDING, type: SEND }\n";
  for (const std::string error : {"Error: 15 (Unreachable remote (never received a response)). ",
                                  "Error: 13 (Unresponsive remote (detected locally)). "}) {
    const std::string log = "NCCL version 2.23.4+cuda12.6\n" + head + error + tail;
    const Finding f = signature(log);
    EXPECT_TRUE(
        ReadsAs(f, "ofi-request-completion-error", "The security group does not allow all traffic"))
        << error;
    // The completion error itself, not a failed progress after it.
    EXPECT_TRUE(DoesNotRead(reading(log, "efa-progress-failed"), "efa-progress-failed")) << error;
  }
}

// src/nccl_ofi_net.cpp:333-336 and src/platform-aws.cpp:661-671 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, OfiNoProtocolOnOneInstanceIsNoEfaDevice) {
  const std::string lines =
      "NCCL version 2.23.4+cuda12.6\n" + kHost +
      "NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.21.1\n" + kHost +
      "NCCL INFO NET/OFI No eligible providers were found\n" + kHost +
      "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):334 NCCL WARN NET/OFI Unable to "
      "find a protocol that worked.  Failing initialization.\n" +
      kHost +
      "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):418 NCCL WARN NET/OFI "
      "aws-ofi-nccl initialization failed\n";
  const Finding one = signature(lines + kHost + "NCCL INFO Using network Socket\n");
  EXPECT_TRUE(
      ReadsAs(one, "ofi-no-protocol", Severity::kWarning, "This process sees no EFA device"));
  // The WARNs alone do not show a run on one instance: the provider reading, an error.
  const Finding bare = signature(lines);
  EXPECT_TRUE(ReadsAs(bare, "ofi-no-protocol", Severity::kError, "No usable libfabric provider"));
  // NCCL_NET naming the plugin makes NCCL fail instead of going on (src/net.cc:627 @ v2.23.4-1).
  const Finding forced = signature(lines + kHost + "NCCL INFO cudaDriverVersion 12060\n" + kHost +
                                   "net.cc:627 NCCL WARN Error: network Libfabric not found.\n");
  EXPECT_FALSE(StartsWith(forced.cause, "This process sees no EFA device"));
}

// src/nccl_ofi_net.cpp:278, :418 and src/platform-aws.cpp:661-666 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaPluginInitFailureOnOneInstanceIsHarmless) {
  const std::string lines =
      "NCCL version 2.23.4+cuda12.6\n" + kHost +
      "NCCL INFO NET/OFI Using transport protocol RDMA (platform set)\n" + kHost +
      "NCCL INFO NET/OFI No eligible providers were found\n" + kHost +
      "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):278 NCCL WARN NET/OFI Failed to "
      "initialize rdma protocol\n" +
      kHost +
      "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):418 NCCL WARN NET/OFI "
      "aws-ofi-nccl initialization failed\n";
  const Finding one =
      reading(lines + kHost + "NCCL INFO Using network Socket\n", "efa-libfabric-resource-setup");
  EXPECT_TRUE(
      ReadsAs(one, "efa-libfabric-resource-setup", Severity::kWarning, "The plugin's init failed"));
  const Finding bare = reading(lines, "efa-libfabric-resource-setup");
  EXPECT_TRUE(ReadsAs(bare, "efa-libfabric-resource-setup", Severity::kError,
                      "The EFA devices are not usable in this process"));
  const Finding forced = reading(lines + kHost + "NCCL INFO cudaDriverVersion 12060\n" + kHost +
                                     "net.cc:627 NCCL WARN Error: network Libfabric not found.\n",
                                 "efa-libfabric-resource-setup");
  EXPECT_FALSE(StartsWith(forced.cause, "The plugin's init failed"));
}

// src/nccl_ofi_rdma.c:4563 (remote) and :4572 (local) @ aws-ofi-nccl v1.14.2
TEST(NcclMessage, OfiAvInsertOfTheLocalAddressIsNotTheSecurityGroup) {
  const ReadingCase cases[] = {
      {kProxy + "prepare_recv_comm:4572 NCCL WARN NET/OFI Unable to insert local address into "
                "address vector for device 0. RC: Success\n",
       "ofi-av-insert-failed", kAnySeverity, "Inserting the endpoint's own address failed"},
      {kProxy + "prepare_recv_comm:4563 NCCL WARN NET/OFI Unable to insert remote address into "
                "address vector for device 0. RC: Success\n",
       "ofi-av-insert-failed", kAnySeverity, "The peer's address cannot get an address handle"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/nccl_ofi_net.cpp:122, src/nccl_ofi_freelist.cpp:262, nccl_ofi_freelist.h:171 @ v1.21.1
TEST(NcclMessage, EfaHostMemoryIsMemlockOnlyAfterARegistrationFailure) {
  const Finding mapped = first(kProxy +
                               "int nccl_net_ofi_alloc_mr_buffer(size_t, void**):122 NCCL WARN "
                               "NET/OFI Unable to map MR buffer (12 Cannot allocate memory)\n");
  EXPECT_TRUE(ReadsAs(mapped, "efa-host-memory-exhausted",
                      "The host (or the container's cgroup) is out of memory"));
  const std::string extend = kProxy +
                             "nccl_ofi_freelist::fl_entry* nccl_ofi_freelist::entry_alloc():171 "
                             "NCCL WARN NET/OFI Could not extend freelist: -12\n";
  const Finding registered =
      reading(kProxy +
                  "int nccl_ofi_freelist::add(size_t):262 NCCL WARN NET/OFI freelist extension "
                  "registration failed: -12\n" +
                  extend,
              "efa-host-memory-exhausted");
  EXPECT_TRUE(ReadsAs(registered, "efa-host-memory-exhausted",
                      "The locked-memory limit (ulimit -l) is too small"));
  EXPECT_TRUE(HasCause(reading(extend, "efa-host-memory-exhausted"),
                       "The host (or the container's cgroup) is out of memory"));
}

// include/stats/histogram_impl.h:19 and src/nccl_ofi_net.cpp:781 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaMemoryRegistrationLeavesHistogramsAndMrKeyConfig) {
  const std::string hist_log =
      "ip-10-0-12-34:4821:4821 [0] void histogram_aggregator<T>::register_histogram("
      "base_histogram<T>*) [with T = long unsigned int]:19 NCCL WARN NET/OFI Cannot "
      "register histogram rdma_send_latency: already registered\n";
  EXPECT_TRUE(ReadsAs(first(hist_log), "efa-config-invalid"));
  EXPECT_FALSE(kb_reading(hist_log, "efa-memory-registration").found);
  const std::string key_log = kHost +
                              "bool nccl_net_ofi_device_t::compute_need_mr_rkey_pool(fi_info*):781 "
                              "NCCL WARN NET/OFI MR key config parsing failed: Invalid argument\n";
  EXPECT_TRUE(ReadsAs(signature(key_log), "ofi-provider-capabilities"));
  EXPECT_FALSE(kb_reading(key_log, "efa-memory-registration").found);
}

// src/nccl_ofi_gdrcopy.cpp:139 and src/rdma/gin/nccl_ofi_gin_api.cpp:71 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaGdrcopyPinFailureIsAnErrorNotAMissingLibrary) {
  const Finding pin =
      first(kProxy +
            "virtual int nccl_ofi_gdrcopy_ctx::register_region(void*, size_t, "
            "nccl_ofi_device_copy::RegHandle*&):139 NCCL WARN NET/OFI gdr_pin_buffer failed: 22\n");
  EXPECT_TRUE(ReadsAs(pin, "efa-gdrcopy", Severity::kError,
                      "GDRCopy is loaded but pinning or mapping a GPU buffer"));
  const Finding missing = first(
      kHost +
      "ncclResult_t nccl_ofi_gin_init(void**, uint64_t, ncclDebugLogger_t):71 NCCL WARN NET/OFI "
      "Failed to initialize GDRCopy: Could not load libgdrapi.so\n");
  EXPECT_TRUE(ReadsAs(missing, "efa-gdrcopy", Severity::kWarning, "GDRCopy is not installed"));
}

// include/nccl_ofi_param_impl.h:221, :336 and src/nccl_ofi_api.cpp:70-73 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaConfigInvalidValueFailsThePluginsInit) {
  const Finding invalid =
      first(kHost +
            "virtual int ofi_nccl_param_impl<T>::initialize() [with T = PROTOCOL]:221 NCCL WARN "
            "NET/OFI WARNING: OFI_NCCL_PROTOCOL set to invalid value RDMAX\n");
  EXPECT_TRUE(ReadsAs(invalid, "efa-config-invalid", Severity::kError,
                      "The plugin rejected the value of an OFI_NCCL_* variable"));
  // A deprecated variable that is only ignored stays a warning.
  const Finding deprecated =
      first(kHost +
            "virtual int ofi_nccl_param_deprecated_impl<T>::initialize() [with T = bool]:336 "
            "NCCL WARN NET/OFI WARNING: Use of OFI_NCCL_ENDPOINT_PER_COMM is deprecated.\n");
  EXPECT_TRUE(ReadsAs(deprecated, "efa-config-invalid", Severity::kWarning));
  EXPECT_FALSE(Contains(deprecated.cause, "The plugin rejected the value"));
}

// src/nccl_ofi_net.cpp:963-969 and include/nccl_ofi_environ.h:104-108 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaForcedSimpleProtocolOverriddenByTheUsersLl128) {
  const std::string force =
      kHost +
      "NCCL INFO NET/OFI Need to force simple protocol: byte delivery ordering not "
      "supported\n";
  const Finding kept = reading(
      "NCCL version 2.23.4+cuda12.6\n" + force + kHost +
          "NCCL INFO NET/OFI Skipping adding NCCL_PROTO=LL128 to environment, already set\n" +
          kHost + "NCCL INFO NCCL_PROTO set by environment to LL128\n",
      "efa-proto-simple-set");
  EXPECT_TRUE(ReadsAs(kept, "efa-proto-simple-set", Severity::kWarning,
                      "NCCL_PROTO was already set, so the plugin left it"));
  // NCCL_PROTO unset: the plugin's Simple applies, a note that is no finding.
  EXPECT_TRUE(DoesNotRead(reading("NCCL version 2.23.4+cuda12.6\n" + force, "efa-proto-simple-set"),
                          "efa-proto-simple-set"));
}

// src/platform-aws.c:568, src/nccl_ofi_net.c:335 @ v1.14.2; nccl_ofi_model.cpp:338 @ v1.21.1
TEST(NcclMessage, EfaNcclEnvSetupFailedSetenvFailsThePlugin) {
  const std::string log =
      kHost + "platform_init:568 NCCL WARN NET/OFI Unable to set NCCL_TOPO_FILE\n" + kHost +
      "nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n";
  const Finding set_failed = reading(log, "efa-nccl-env-setup");
  EXPECT_TRUE(ReadsAs(set_failed, "efa-nccl-env-setup", Severity::kError,
                      "setenv() failed (out of memory)"));
  // Not the topology reading it had (hwloc, /sys): the file name was never the problem.
  EXPECT_TRUE(DoesNotRead(reading(log, "efa-topology"), "efa-topology"));
  const Finding model =
      first(kHost +
            "ncclResult_t model_init_internal(nccl_ofi_tuner_context_t*, nccl_ofi_tuner_platform, "
            "size_t, size_t):338 NCCL WARN NET/OFI Model is not supported for platform 3.\n");
  EXPECT_TRUE(ReadsAs(model, "efa-nccl-env-setup", Severity::kWarning,
                      "The instance type is unknown to the plugin's tuner model"));
}

// src/nccl_ofi_net.cpp:292, :309, :325-336 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaExceptionInSendrecvInitFailsThePlugin) {
  const std::string head = kHost + "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):";
  const ReadingCase cases[] = {
      {head + "309 NCCL WARN NET/OFI Caught exception in sendrecv_init: std::bad_alloc\n",
       "efa-exception", Severity::kError, "The SENDRECV protocol could not start"},
      {head + "292 NCCL WARN NET/OFI Caught exception in rdma_init: std::bad_alloc\n",
       "efa-exception", Severity::kWarning, "The RDMA protocol could not start"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// nccl_ofi_interface_nvidia.cpp:42-46, nccl_ofi_rdma.cpp:5255-5259, nccl_ofi_net.cpp:149 @ v1.21.1
TEST(NcclMessage, EfaTeardownTellsInitAndAcceptFailuresApart) {
  const ReadingCase cases[] = {
      {kHost + "ncclResult_t init_v2(ncclDebugLogger_t):44 NCCL WARN NET/OFI Adding cleanup "
               "function failed\n",
       "efa-teardown", Severity::kError, "atexit() refused the plugin's cleanup handler"},
      {kProxy + "virtual int nccl_net_ofi_rdma_listen_comm::accept(nccl_net_ofi_recv_comm**):5257 "
                "NCCL WARN NET/OFI Failed to close listen communicator\n",
       "efa-teardown", Severity::kError,
       "Closing the listen communicator at the end of accept failed"},
      // munmap at teardown: a teardown line, no longer a memory registration.
      {kProxy + "int nccl_net_ofi_dealloc_mr_buffer(void*, size_t):149 NCCL WARN NET/OFI Unable "
                "to unmap MR buffer (22 Invalid argument)\n",
       "efa-teardown", Severity::kWarning, "Teardown after an earlier failure"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

}  // namespace
}  // namespace trainready::test
