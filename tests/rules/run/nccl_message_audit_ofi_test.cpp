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
  const Finding probe = signature("NCCL version 2.21.5+cuda12.4\n" + warn + kHost +
                                  "NCCL INFO NET/OFI Using transport protocol SENDRECV\n");
  EXPECT_TRUE(reads(probe, "ofi-getinfo-failed")) << probe.message;
  EXPECT_EQ(probe.severity, Severity::kInfo);
  EXPECT_EQ(probe.cause.rfind("The RDMA protocol's probe found no provider", 0), 0u) << probe.cause;
  // Without the SENDRECV line after it the probe is not known to have been the only failure.
  const Finding alone = signature("NCCL version 2.21.5+cuda12.4\n" + warn);
  EXPECT_TRUE(reads(alone, "ofi-getinfo-failed")) << alone.message;
  EXPECT_EQ(alone.severity, Severity::kError);
  EXPECT_EQ(alone.cause.rfind("The EFA devices are not visible", 0), 0u) << alone.cause;
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
  EXPECT_TRUE(reads(old, "ofi-getinfo-failed")) << old.message;
  // Not the empty list ("Couldn't find any optimal provider" is that): libfabric refused the
  // request.
  EXPECT_EQ(old.cause.rfind("libfabric rejected the plugin's request", 0), 0u) << old.cause;
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
    EXPECT_TRUE(reads(f, "ofi-request-completion-error")) << error << f.message;
    EXPECT_EQ(f.cause.rfind("The security group does not allow all traffic", 0), 0u)
        << error << f.cause;
    // The completion error itself, not a failed progress after it.
    EXPECT_FALSE(reads(reading(log, "efa-progress-failed"), "efa-progress-failed")) << error;
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
  EXPECT_TRUE(reads(one, "ofi-no-protocol")) << one.message;
  EXPECT_EQ(one.severity, Severity::kWarning);
  EXPECT_EQ(one.cause.rfind("This process sees no EFA device", 0), 0u) << one.cause;
  // The WARNs alone do not show a run on one instance: the provider reading, an error.
  const Finding bare = signature(lines);
  EXPECT_TRUE(reads(bare, "ofi-no-protocol")) << bare.message;
  EXPECT_EQ(bare.severity, Severity::kError);
  EXPECT_EQ(bare.cause.rfind("No usable libfabric provider", 0), 0u) << bare.cause;
  // NCCL_NET naming the plugin makes NCCL fail instead of going on (src/net.cc:627 @ v2.23.4-1).
  const Finding forced = signature(lines + kHost + "NCCL INFO cudaDriverVersion 12060\n" + kHost +
                                   "net.cc:627 NCCL WARN Error: network Libfabric not found.\n");
  EXPECT_NE(forced.cause.rfind("This process sees no EFA device", 0), 0u) << forced.cause;
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
  EXPECT_TRUE(reads(one, "efa-libfabric-resource-setup")) << one.message;
  EXPECT_EQ(one.severity, Severity::kWarning);
  EXPECT_EQ(one.cause.rfind("The plugin's init failed", 0), 0u) << one.cause;
  const Finding bare = reading(lines, "efa-libfabric-resource-setup");
  EXPECT_TRUE(reads(bare, "efa-libfabric-resource-setup")) << bare.message;
  EXPECT_EQ(bare.severity, Severity::kError);
  EXPECT_EQ(bare.cause.rfind("The EFA devices are not usable in this process", 0), 0u)
      << bare.cause;
  const Finding forced = reading(lines + kHost + "NCCL INFO cudaDriverVersion 12060\n" + kHost +
                                     "net.cc:627 NCCL WARN Error: network Libfabric not found.\n",
                                 "efa-libfabric-resource-setup");
  EXPECT_NE(forced.cause.rfind("The plugin's init failed", 0), 0u) << forced.cause;
}

// src/nccl_ofi_rdma.c:4563 (remote) and :4572 (local) @ aws-ofi-nccl v1.14.2
TEST(NcclMessage, OfiAvInsertOfTheLocalAddressIsNotTheSecurityGroup) {
  const Finding local =
      signature(kProxy +
                "prepare_recv_comm:4572 NCCL WARN NET/OFI Unable to insert local address into "
                "address vector for device 0. RC: Success\n");
  EXPECT_TRUE(reads(local, "ofi-av-insert-failed")) << local.message;
  EXPECT_EQ(local.cause.rfind("Inserting the endpoint's own address failed", 0), 0u) << local.cause;
  const Finding remote =
      signature(kProxy +
                "prepare_recv_comm:4563 NCCL WARN NET/OFI Unable to insert remote address into "
                "address vector for device 0. RC: Success\n");
  EXPECT_TRUE(reads(remote, "ofi-av-insert-failed")) << remote.message;
  EXPECT_EQ(remote.cause.rfind("The peer's address cannot get an address handle", 0), 0u)
      << remote.cause;
}

// src/nccl_ofi_net.cpp:122, src/nccl_ofi_freelist.cpp:262, nccl_ofi_freelist.h:171 @ v1.21.1
TEST(NcclMessage, EfaHostMemoryIsMemlockOnlyAfterARegistrationFailure) {
  const Finding mapped = first(kProxy +
                               "int nccl_net_ofi_alloc_mr_buffer(size_t, void**):122 NCCL WARN "
                               "NET/OFI Unable to map MR buffer (12 Cannot allocate memory)\n");
  EXPECT_TRUE(reads(mapped, "efa-host-memory-exhausted")) << mapped.message;
  EXPECT_EQ(mapped.cause.rfind("The host (or the container's cgroup) is out of memory", 0), 0u)
      << mapped.cause;
  const std::string extend = kProxy +
                             "nccl_ofi_freelist::fl_entry* nccl_ofi_freelist::entry_alloc():171 "
                             "NCCL WARN NET/OFI Could not extend freelist: -12\n";
  const Finding registered =
      reading(kProxy +
                  "int nccl_ofi_freelist::add(size_t):262 NCCL WARN NET/OFI freelist extension "
                  "registration failed: -12\n" +
                  extend,
              "efa-host-memory-exhausted");
  EXPECT_TRUE(reads(registered, "efa-host-memory-exhausted")) << registered.message;
  EXPECT_EQ(registered.cause.rfind("The locked-memory limit (ulimit -l) is too small", 0), 0u)
      << registered.cause;
  const Finding plain = reading(extend, "efa-host-memory-exhausted");
  EXPECT_EQ(plain.cause.rfind("The host (or the container's cgroup) is out of memory", 0), 0u)
      << plain.cause;
}

// include/stats/histogram_impl.h:19 and src/nccl_ofi_net.cpp:781 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaMemoryRegistrationLeavesHistogramsAndMrKeyConfig) {
  const std::string hist_log =
      "ip-10-0-12-34:4821:4821 [0] void histogram_aggregator<T>::register_histogram("
      "base_histogram<T>*) [with T = long unsigned int]:19 NCCL WARN NET/OFI Cannot "
      "register histogram rdma_send_latency: already registered\n";
  EXPECT_TRUE(reads(first(hist_log), "efa-config-invalid"));
  EXPECT_FALSE(kb_reading(hist_log, "efa-memory-registration").found);
  const std::string key_log = kHost +
                              "bool nccl_net_ofi_device_t::compute_need_mr_rkey_pool(fi_info*):781 "
                              "NCCL WARN NET/OFI MR key config parsing failed: Invalid argument\n";
  EXPECT_TRUE(reads(signature(key_log), "ofi-provider-capabilities"));
  EXPECT_FALSE(kb_reading(key_log, "efa-memory-registration").found);
}

// src/nccl_ofi_gdrcopy.cpp:139 and src/rdma/gin/nccl_ofi_gin_api.cpp:71 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaGdrcopyPinFailureIsAnErrorNotAMissingLibrary) {
  const Finding pin =
      first(kProxy +
            "virtual int nccl_ofi_gdrcopy_ctx::register_region(void*, size_t, "
            "nccl_ofi_device_copy::RegHandle*&):139 NCCL WARN NET/OFI gdr_pin_buffer failed: 22\n");
  EXPECT_TRUE(reads(pin, "efa-gdrcopy")) << pin.message;
  EXPECT_EQ(pin.severity, Severity::kError);
  EXPECT_EQ(pin.cause.rfind("GDRCopy is loaded but pinning or mapping a GPU buffer", 0), 0u)
      << pin.cause;
  const Finding missing = first(
      kHost +
      "ncclResult_t nccl_ofi_gin_init(void**, uint64_t, ncclDebugLogger_t):71 NCCL WARN NET/OFI "
      "Failed to initialize GDRCopy: Could not load libgdrapi.so\n");
  EXPECT_TRUE(reads(missing, "efa-gdrcopy")) << missing.message;
  EXPECT_EQ(missing.severity, Severity::kWarning);
  EXPECT_EQ(missing.cause.rfind("GDRCopy is not installed", 0), 0u) << missing.cause;
}

// include/nccl_ofi_param_impl.h:221, :336 and src/nccl_ofi_api.cpp:70-73 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaConfigInvalidValueFailsThePluginsInit) {
  const Finding invalid =
      first(kHost +
            "virtual int ofi_nccl_param_impl<T>::initialize() [with T = PROTOCOL]:221 NCCL WARN "
            "NET/OFI WARNING: OFI_NCCL_PROTOCOL set to invalid value RDMAX\n");
  EXPECT_TRUE(reads(invalid, "efa-config-invalid")) << invalid.message;
  EXPECT_EQ(invalid.severity, Severity::kError);
  EXPECT_EQ(invalid.cause.rfind("The plugin rejected the value of an OFI_NCCL_* variable", 0), 0u)
      << invalid.cause;
  // A deprecated variable that is only ignored stays a warning.
  const Finding deprecated =
      first(kHost +
            "virtual int ofi_nccl_param_deprecated_impl<T>::initialize() [with T = bool]:336 "
            "NCCL WARN NET/OFI WARNING: Use of OFI_NCCL_ENDPOINT_PER_COMM is deprecated.\n");
  EXPECT_TRUE(reads(deprecated, "efa-config-invalid")) << deprecated.message;
  EXPECT_EQ(deprecated.severity, Severity::kWarning);
  EXPECT_EQ(deprecated.cause.find("The plugin rejected the value"), std::string::npos)
      << deprecated.cause;
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
  EXPECT_TRUE(reads(kept, "efa-proto-simple-set")) << kept.message;
  EXPECT_EQ(kept.severity, Severity::kWarning);
  EXPECT_EQ(kept.cause.rfind("NCCL_PROTO was already set, so the plugin left it", 0), 0u)
      << kept.cause;
  // NCCL_PROTO unset: the plugin's Simple applies, a note that is no finding.
  const Finding unset = reading("NCCL version 2.23.4+cuda12.6\n" + force, "efa-proto-simple-set");
  EXPECT_FALSE(reads(unset, "efa-proto-simple-set")) << unset.message;
}

// src/platform-aws.c:568, src/nccl_ofi_net.c:335 @ v1.14.2; nccl_ofi_model.cpp:338 @ v1.21.1
TEST(NcclMessage, EfaNcclEnvSetupFailedSetenvFailsThePlugin) {
  const std::string log =
      kHost + "platform_init:568 NCCL WARN NET/OFI Unable to set NCCL_TOPO_FILE\n" + kHost +
      "nccl_net_ofi_create_plugin:335 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n";
  const Finding set_failed = reading(log, "efa-nccl-env-setup");
  EXPECT_TRUE(reads(set_failed, "efa-nccl-env-setup")) << set_failed.message;
  EXPECT_EQ(set_failed.severity, Severity::kError);
  EXPECT_EQ(set_failed.cause.rfind("setenv() failed (out of memory)", 0), 0u) << set_failed.cause;
  // Not the topology reading it had (hwloc, /sys): the file name was never the problem.
  EXPECT_FALSE(reads(reading(log, "efa-topology"), "efa-topology"));
  const Finding model =
      first(kHost +
            "ncclResult_t model_init_internal(nccl_ofi_tuner_context_t*, nccl_ofi_tuner_platform, "
            "size_t, size_t):338 NCCL WARN NET/OFI Model is not supported for platform 3.\n");
  EXPECT_TRUE(reads(model, "efa-nccl-env-setup")) << model.message;
  EXPECT_EQ(model.severity, Severity::kWarning);
  EXPECT_EQ(model.cause.rfind("The instance type is unknown to the plugin's tuner model", 0), 0u)
      << model.cause;
}

// src/nccl_ofi_net.cpp:292, :309, :325-336 @ aws-ofi-nccl v1.21.1
TEST(NcclMessage, EfaExceptionInSendrecvInitFailsThePlugin) {
  const std::string head = kHost + "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):";
  const Finding sendrecv =
      first(head + "309 NCCL WARN NET/OFI Caught exception in sendrecv_init: std::bad_alloc\n");
  EXPECT_TRUE(reads(sendrecv, "efa-exception")) << sendrecv.message;
  EXPECT_EQ(sendrecv.severity, Severity::kError);
  EXPECT_EQ(sendrecv.cause.rfind("The SENDRECV protocol could not start", 0), 0u) << sendrecv.cause;
  const Finding rdma =
      first(head + "292 NCCL WARN NET/OFI Caught exception in rdma_init: std::bad_alloc\n");
  EXPECT_TRUE(reads(rdma, "efa-exception")) << rdma.message;
  EXPECT_EQ(rdma.severity, Severity::kWarning);
  EXPECT_EQ(rdma.cause.rfind("The RDMA protocol could not start", 0), 0u) << rdma.cause;
}

// nccl_ofi_interface_nvidia.cpp:42-46, nccl_ofi_rdma.cpp:5255-5259, nccl_ofi_net.cpp:149 @ v1.21.1
TEST(NcclMessage, EfaTeardownTellsInitAndAcceptFailuresApart) {
  const Finding atexit_failed =
      first(kHost +
            "ncclResult_t init_v2(ncclDebugLogger_t):44 NCCL WARN NET/OFI Adding cleanup "
            "function failed\n");
  EXPECT_TRUE(reads(atexit_failed, "efa-teardown")) << atexit_failed.message;
  EXPECT_EQ(atexit_failed.severity, Severity::kError);
  EXPECT_EQ(atexit_failed.cause.rfind("atexit() refused the plugin's cleanup handler", 0), 0u)
      << atexit_failed.cause;
  const Finding listen_close =
      first(kProxy +
            "virtual int nccl_net_ofi_rdma_listen_comm::accept(nccl_net_ofi_recv_comm**):5257 "
            "NCCL WARN NET/OFI Failed to close listen communicator\n");
  EXPECT_TRUE(reads(listen_close, "efa-teardown")) << listen_close.message;
  EXPECT_EQ(listen_close.severity, Severity::kError);
  EXPECT_EQ(
      listen_close.cause.rfind("Closing the listen communicator at the end of accept failed", 0),
      0u)
      << listen_close.cause;
  // munmap at teardown: a teardown line, no longer a memory registration.
  const Finding unmap =
      first(kProxy +
            "int nccl_net_ofi_dealloc_mr_buffer(void*, size_t):149 NCCL WARN NET/OFI Unable "
            "to unmap MR buffer (22 Invalid argument)\n");
  EXPECT_TRUE(reads(unmap, "efa-teardown")) << unmap.message;
  EXPECT_EQ(unmap.severity, Severity::kWarning);
  EXPECT_EQ(unmap.cause.rfind("Teardown after an earlier failure", 0), 0u) << unmap.cause;
}

}  // namespace
}  // namespace trainready::test
