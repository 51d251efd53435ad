// Readings put right by the audit of gdr.yaml, socket-net.yaml, plugin-example.yaml and
// libfabric-efa.yaml against NCCL's, GDRCopy's and libfabric's source (docs/nccl-corpus.md): each
// line in the format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

// src/misc/gdrwrap.cc:47 (LOAD_SYM), :78-89 @ v2.30.7-1; GDRCopy include/gdrapi.h @ v1.3 / v2.0
TEST(NcclMessage, GdrCopyMandatorySymbolMissingIsGdrCopy1x) {
  const std::string env =
      "node1:4242:4242 [0] NCCL INFO NCCL_GDRCOPY_ENABLE set by environment to 1.\n";
  const Finding v230 =
      first_cli("NCCL version 2.30.7+cuda13.0\n" + env +
                "node1:4242:4242 [0] misc/gdrwrap.cc:47 NCCL WARN ncclOsDlsym failed on "
                "gdr_runtime_get_version - /usr/lib64/libgdrapi.so: undefined symbol: "
                "gdr_runtime_get_version\n");
  EXPECT_TRUE(reads(v230, "gdrcopy-lib-missing")) << v230.message;
  EXPECT_EQ(v230.severity, Severity::kWarning);
  EXPECT_EQ(v230.cause.rfind("GDRCopy 1.x (before 2.0)", 0), 0u) << v230.cause;
  const Finding v229 = first_cli(
      "NCCL version 2.29.7+cuda12.9\nnode1:4242:4242 [0] misc/gdrwrap.cc:40 NCCL WARN dlsym "
      "failed on gdr_copy_to_mapping - /usr/lib/x86_64-linux-gnu/libgdrapi.so.1: undefined "
      "symbol: gdr_copy_to_mapping\n");
  EXPECT_TRUE(reads(v229, "gdrcopy-lib-missing")) << v229.message;
  EXPECT_EQ(v229.cause.rfind("GDRCopy 1.x (before 2.0)", 0), 0u) << v229.cause;
  // No library at all is still the missing installation.
  const Finding absent =
      first_cli("NCCL version 2.30.7+cuda13.0\n" + env +
                "node1:4242:4242 [0] misc/gdrwrap.cc:73 NCCL WARN Failed to open libgdrapi.so - "
                "libgdrapi.so: cannot open shared object file: No such file or directory\n");
  EXPECT_TRUE(reads(absent, "gdrcopy-lib-missing")) << absent.message;
  EXPECT_EQ(absent.cause.rfind("NCCL_GDRCOPY_ENABLE=1 on a host or image without GDRCopy", 0), 0u)
      << absent.cause;
}

// src/misc/nvmlwrap.cc:55 @ v2.11.4-1: NVML's wrapper prints GDRCopy's format for its own symbols.
TEST(NcclMessage, GdrCopyEntryDoesNotReadNvmlDlsym) {
  const Finding nvml = first_cli(
      "NCCL version 2.11.4+cuda11.4\nnode1:4242:4242 [0] misc/nvmlwrap.cc:55 NCCL WARN dlsym "
      "failed on nvmlDeviceGetCudaComputeCapability - /usr/lib/x86_64-linux-gnu/"
      "libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetCudaComputeCapability\n");
  EXPECT_FALSE(reads(nvml, "gdrcopy-lib-missing")) << nvml.message;
  // Without its file:line (a framework's quote, a pasted WARN) only the text tells.
  const Finding pasted = first_cli(
      "dlsym failed on nvmlDeviceGetIndex - /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: "
      "undefined symbol: nvmlDeviceGetIndex\n");
  EXPECT_FALSE(reads(pasted, "gdrcopy-lib-missing")) << pasted.message;
}

// src/misc/gdrwrap.cc:148 (wrap_gdr_pin_buffer), src/include/gdrwrap.h:187-204 @ v2.30.7-1: the
// pin runs only on a handle gdr_open() returned, so a missing gdrdrv never prints it.
TEST(NcclMessage, GdrCopyPinFailureIsTheDriversPin) {
  const Finding pin = first_cli(
      "NCCL version 2.30.7+cuda13.0\nnode1:4242:4300 [0] misc/gdrwrap.cc:148 NCCL WARN "
      "gdr_pin_buffer(addr 7f1c3e000000, size 65536) failed: 22\n");
  EXPECT_TRUE(reads(pin, "gdrcopy-call-failed")) << pin.message;
  EXPECT_EQ(pin.severity, Severity::kError);
  EXPECT_EQ(pin.cause.rfind("gdrdrv could not pin the GPU buffer", 0), 0u) << pin.cause;
}

// src/misc/gdrwrap.cc:522 (initOnceFunc) @ v2.31.0a16-1: 1 and 2 skip libgdrapi.so by choice.
TEST(NcclMessage, GdrCopyInternalDmaBufSkipIsTheUsersChoice) {
  const Finding skip = first_cli("NCCL_GDRCOPY_USE_INTERNAL_DMABUF=2 set; skipping libgdrapi.so\n");
  EXPECT_TRUE(reads(skip, "gdrcopy-internal-dmabuf-fallback")) << skip.message;
  EXPECT_EQ(skip.severity, Severity::kInfo);
  EXPECT_EQ(skip.cause.rfind("NCCL_GDRCOPY_USE_INTERNAL_DMABUF is 1 or 2", 0), 0u) << skip.cause;
  const Finding unavailable = first_cli("NCCL internal DMA-BUF mmap backend unavailable\n");
  EXPECT_EQ(unavailable.cause.rfind("The internal backend is unavailable", 0), 0u)
      << unavailable.cause;
}

// plugins/profiler/inspector/inspector.cc:437 @ v2.30.7-1; ext-profiler/inspector/inspector.cc:673
// ("Inspectoer"), :778 @ v2.29.2-1
TEST(NcclMessage, InspectorDumpSetupFailuresAreReadOn2_30) {
  const Finding create = first_cli(
      "NCCL version 2.30.7+cuda13.0\nnode1:4242:4242 [0] NCCL INFO NCCL Inspector: failed to "
      "create dump directory /shared/inspector: Permission denied\n");
  EXPECT_TRUE(reads(create, "inspector-dump-dir-failed")) << create.message;
  EXPECT_EQ(create.severity, Severity::kWarning);
  EXPECT_EQ(create.cause.rfind("The dump directory", 0), 0u) << create.cause;
  const Finding readonly = first_cli(
      "NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO NCCL Inspectoer: dump "
      "directory /shared/inspector exists, but is not writable\n");
  EXPECT_TRUE(reads(readonly, "inspector-dump-dir-failed")) << readonly.message;
  EXPECT_EQ(readonly.cause.rfind("The dump directory", 0), 0u) << readonly.cause;
  const Finding thread = first_cli(
      "NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO NCCL Inspector "
      "inspectorDumpThread: couldn't create dump thread!\n");
  EXPECT_TRUE(reads(thread, "inspector-dump-dir-failed")) << thread.message;
  EXPECT_EQ(thread.cause.rfind("Thread/lock creation failed", 0), 0u) << thread.cause;
}

// ext-profiler/inspector/inspector.cc:944-958 (inspectorGlobalInit), inspector_plugin.cc:99 @
// v2.29.2-1: NCCL_INSPECTOR_ENABLE defaults to 0 and the plugin turns itself off.
TEST(NcclMessage, InspectorDisabledByDefaultIsNotAFailure) {
  const Finding disabled = first_cli(
      "NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] inspector_plugin.cc:99 NCCL WARN "
      "Inspector Init Failed inspector_plugin.cc:99 -> error 4: Inspector is disabled\n");
  EXPECT_TRUE(reads(disabled, "inspector-internal-error")) << disabled.message;
  EXPECT_EQ(disabled.severity, Severity::kInfo);
  EXPECT_EQ(disabled.cause.rfind("NCCL_INSPECTOR_ENABLE is unset or 0", 0), 0u) << disabled.cause;
  const Finding lock = first_cli(
      "NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] inspector_plugin.cc:99 NCCL WARN "
      "Inspector Init Failed inspector_plugin.cc:99 -> error 5: Inspector encountered error with "
      "lock\n");
  EXPECT_TRUE(reads(lock, "inspector-internal-error")) << lock.message;
  EXPECT_EQ(lock.severity, Severity::kWarning);
  EXPECT_EQ(lock.cause.rfind("Init failed for another reason", 0), 0u) << lock.cause;
}

// ext-profiler/inspector/inspector.cc:45 @ v2.29.2-1 defines INS_CUDA_CHK and nothing uses it;
// src/include/checks.h:40 @ v2.29.2-1 (CUDACHECKIGNORE) prints the same "Cuda failure" text.
TEST(NcclMessage, InspectorCudaFailureSiteIsNotReadIntoCoreLines) {
  const Finding ignored = first_cli(
      "NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO init.cc:1616 Cuda failure "
      "'invalid argument'\n");
  // An error NCCL ignores: no warning or error of any rule.
  const RuleOutcome all = log_rule(
      "nccl-message", cli_log_text("NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO "
                                   "init.cc:1616 Cuda failure 'invalid argument'\n"));
  for (const Finding& f : all.findings) EXPECT_EQ(f.severity, Severity::kInfo) << f.message;
  EXPECT_TRUE(ignored.message.empty() || reads(ignored, "checks-cuda-failure-ignored"))
      << ignored.message;
}

// src/transport/net_socket.cc:103-105 (ncclNetSocketGetSpeed) @ v2.30.7-1: NCCL takes 10 Gbps and
// goes on; os/windows.cc:444 @ v2.30.7-1 prints the same text and fails.
TEST(NcclMessage, SocketNetAdapterListAllocationOnlyLosesTheSpeed) {
  const Finding speed = first_cli(
      "NCCL version 2.30.7+cuda13.0\nHOST01:4242:5000 [0] transport/net_socket.cc:103 NCCL WARN "
      "Failed to allocate memory for adapter addresses\n");
  EXPECT_TRUE(reads(speed, "socket-net-speed-adapter-alloc")) << speed.message;
  EXPECT_EQ(speed.severity, Severity::kWarning);
  EXPECT_EQ(speed.cause.rfind("The process was short of memory", 0), 0u) << speed.cause;
  const Finding os = first_cli(
      "NCCL version 2.30.7+cuda13.0\nHOST01:4242:5000 [0] os/windows.cc:444 NCCL WARN Failed to "
      "allocate memory for adapter addresses\n");
  EXPECT_FALSE(reads(os, "socket-net-speed-adapter-alloc")) << os.message;
  EXPECT_FALSE(reads(os, "socket-net-internal")) << os.message;
}

// prov/efa/src/efa_errno.h:72, efa_strerror.c:70-78 (efa_show_help) @ libfabric v1.22.0,
// efa_strerror.c:61-66 @ v1.18.0; the warning of prov/efa/src/rdm/efa_rdm_ope.c:604 @ v1.22.0
TEST(NcclMessage, LfEfaUnresponsiveRemoteWithoutHandshakeIsTheSecurityGroup) {
  const std::string head =
      "libfabric:4242:1700000000::efa:cq:efa_rdm_rxe_handle_error():604<warn> err: 113, "
      "message: ";
  const Finding local = first_cli(head + "Unresponsive remote (detected locally) (13)\n");
  EXPECT_TRUE(reads(local, "lf-efa-unresponsive-remote")) << local.message;
  EXPECT_EQ(local.cause.rfind("The instances cannot exchange EFA traffic", 0), 0u) << local.cause;
  // 1.18-1.20.1 print this text for every unresponsive peer (no handshake promotion before
  // 1.20.2, efa_strerror.c:61-66 @ v1.20.1): in a job whose connections were up, the peer went
  // away.
  const Finding v118 = first_cli(
      "ip-10-0-0-1:4242:4300 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS "
      "Libfabric/0/GDRDMA\nip-10-0-0-2:5151:5200 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] "
      "[receive] via NET/AWS Libfabric/0/GDRDMA\n"
      "Unresponsive receiver. This error is typically caused by a peer hardware failure or "
      "incorrect inbound/outbound rules in the security group - EFA requires \"All traffic\" type "
      "allowlisting. Please also verify the peer application has not terminated unexpectedly.\n");
  EXPECT_TRUE(reads(v118, "lf-efa-unresponsive-remote")) << v118.message;
  EXPECT_EQ(v118.cause.rfind("The peer process or instance went away", 0), 0u) << v118.cause;
  // v2.0.0 and later: a completion whose peer libfabric does not know; its text names no cause.
  const Finding unknown =
      first_cli(head + "Unresponsive remote (was previously responsive) (13)\n");
  EXPECT_TRUE(reads(unknown, "lf-efa-unresponsive-remote")) << unknown.message;
  EXPECT_NE(unknown.cause.rfind("The instances cannot exchange EFA traffic", 0), 0u)
      << unknown.cause;
}

// prov/efa/src/efa_base_ep.c:743-750 (efa_base_ep_write_eq_error) @ libfabric v2.6.0: abort()
// follows the banner.
TEST(NcclMessage, LfEfaAbortBannerLineAloneIsAnError) {
  const Finding banner = first_cli("Your application will now abort().\n");
  EXPECT_TRUE(reads(banner, "lf-efa-banner-abort")) << banner.message;
  EXPECT_EQ(banner.severity, Severity::kError);
}

// prov/efa/src/efa_base_ep.c:727 (the warning), rdm/efa_rdm_ep_fiops.c:196-203,242-246 (pools
// without a size limit, not registered) @ libfabric v2.6.0
TEST(NcclMessage, LfEfaEntriesExhaustedIsHostMemory) {
  const std::string head =
      "libfabric:4242:1700000000::efa:eq:efa_base_ep_write_eq_error():727<warn> Writing error to "
      "EQ: ";
  const Finding rx = first_cli(head +
                               "err: No buffer space available (105) prov_errno: RX entries "
                               "exhausted (4108)\n");
  EXPECT_TRUE(reads(rx, "lf-efa-out-of-resources")) << rx.message;
  EXPECT_EQ(
      rx.cause.rfind("(4108 / 4109) The provider could not allocate another operation entry", 0),
      0u)
      << rx.cause;
  const Finding oom =
      first_cli(head + "err: No buffer space available (105) prov_errno: Out of memory (4105)\n");
  EXPECT_TRUE(reads(oom, "lf-efa-out-of-resources")) << oom.message;
  EXPECT_EQ(oom.cause.rfind("(4105 Out of memory)", 0), 0u) << oom.cause;
}

}  // namespace
}  // namespace trainready::test
