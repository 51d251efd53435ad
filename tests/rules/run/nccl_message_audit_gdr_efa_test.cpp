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
  const ReadingCase cases[] = {
      {"NCCL version 2.30.7+cuda13.0\n" + env +
           "node1:4242:4242 [0] misc/gdrwrap.cc:47 NCCL WARN ncclOsDlsym failed on "
           "gdr_runtime_get_version - /usr/lib64/libgdrapi.so: undefined symbol: "
           "gdr_runtime_get_version\n",
       "gdrcopy-lib-missing", Severity::kWarning, "GDRCopy 1.x (before 2.0)"},
      {"NCCL version 2.29.7+cuda12.9\nnode1:4242:4242 [0] misc/gdrwrap.cc:40 NCCL WARN dlsym "
       "failed on gdr_copy_to_mapping - /usr/lib/x86_64-linux-gnu/libgdrapi.so.1: undefined "
       "symbol: gdr_copy_to_mapping\n",
       "gdrcopy-lib-missing", kAnySeverity, "GDRCopy 1.x (before 2.0)"},
      // No library at all is still the missing installation.
      {"NCCL version 2.30.7+cuda13.0\n" + env +
           "node1:4242:4242 [0] misc/gdrwrap.cc:73 NCCL WARN Failed to open libgdrapi.so - "
           "libgdrapi.so: cannot open shared object file: No such file or directory\n",
       "gdrcopy-lib-missing", kAnySeverity,
       "NCCL_GDRCOPY_ENABLE=1 on a host or image without GDRCopy"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first_cli(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/misc/nvmlwrap.cc:55 @ v2.11.4-1: NVML's wrapper prints GDRCopy's format for its own symbols.
TEST(NcclMessage, GdrCopyEntryDoesNotReadNvmlDlsym) {
  const Finding nvml = first_cli(
      "NCCL version 2.11.4+cuda11.4\nnode1:4242:4242 [0] misc/nvmlwrap.cc:55 NCCL WARN dlsym "
      "failed on nvmlDeviceGetCudaComputeCapability - /usr/lib/x86_64-linux-gnu/"
      "libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetCudaComputeCapability\n");
  EXPECT_TRUE(DoesNotRead(nvml, "gdrcopy-lib-missing"));
  // Without its file:line (a framework's quote, a pasted WARN) only the text tells.
  const Finding pasted = first_cli(
      "dlsym failed on nvmlDeviceGetIndex - /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: "
      "undefined symbol: nvmlDeviceGetIndex\n");
  EXPECT_TRUE(DoesNotRead(pasted, "gdrcopy-lib-missing"));
}

// src/misc/gdrwrap.cc:148 (wrap_gdr_pin_buffer), src/include/gdrwrap.h:187-204 @ v2.30.7-1: the
// pin runs only on a handle gdr_open() returned, so a missing gdrdrv never prints it.
TEST(NcclMessage, GdrCopyPinFailureIsTheDriversPin) {
  const Finding pin = first_cli(
      "NCCL version 2.30.7+cuda13.0\nnode1:4242:4300 [0] misc/gdrwrap.cc:148 NCCL WARN "
      "gdr_pin_buffer(addr 7f1c3e000000, size 65536) failed: 22\n");
  EXPECT_TRUE(
      ReadsAs(pin, "gdrcopy-call-failed", Severity::kError, "gdrdrv could not pin the GPU buffer"));
}

// src/misc/gdrwrap.cc:522 (initOnceFunc) @ v2.31.0a16-1: 1 and 2 skip libgdrapi.so by choice.
TEST(NcclMessage, GdrCopyInternalDmaBufSkipIsTheUsersChoice) {
  const Finding skip = first_cli("NCCL_GDRCOPY_USE_INTERNAL_DMABUF=2 set; skipping libgdrapi.so\n");
  EXPECT_TRUE(ReadsAs(skip, "gdrcopy-internal-dmabuf-fallback", Severity::kInfo,
                      "NCCL_GDRCOPY_USE_INTERNAL_DMABUF is 1 or 2"));
  EXPECT_TRUE(HasCause(first_cli("NCCL internal DMA-BUF mmap backend unavailable\n"),
                       "The internal backend is unavailable"));
}

// plugins/profiler/inspector/inspector.cc:437 @ v2.30.7-1; ext-profiler/inspector/inspector.cc:673
// ("Inspectoer"), :778 @ v2.29.2-1
TEST(NcclMessage, InspectorDumpSetupFailuresAreReadOn2_30) {
  const ReadingCase cases[] = {
      {"NCCL version 2.30.7+cuda13.0\nnode1:4242:4242 [0] NCCL INFO NCCL Inspector: failed to "
       "create dump directory /shared/inspector: Permission denied\n",
       "inspector-dump-dir-failed", Severity::kWarning, "The dump directory"},
      {"NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO NCCL Inspectoer: dump "
       "directory /shared/inspector exists, but is not writable\n",
       "inspector-dump-dir-failed", kAnySeverity, "The dump directory"},
      {"NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] NCCL INFO NCCL Inspector "
       "inspectorDumpThread: couldn't create dump thread!\n",
       "inspector-dump-dir-failed", kAnySeverity, "Thread/lock creation failed"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first_cli(c.log), c.id, c.severity, c.cause)) << c.log;
}

// ext-profiler/inspector/inspector.cc:944-958 (inspectorGlobalInit), inspector_plugin.cc:99 @
// v2.29.2-1: NCCL_INSPECTOR_ENABLE defaults to 0 and the plugin turns itself off.
TEST(NcclMessage, InspectorDisabledByDefaultIsNotAFailure) {
  const ReadingCase cases[] = {
      {"NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] inspector_plugin.cc:99 NCCL WARN "
       "Inspector Init Failed inspector_plugin.cc:99 -> error 4: Inspector is disabled\n",
       "inspector-internal-error", Severity::kInfo, "NCCL_INSPECTOR_ENABLE is unset or 0"},
      {"NCCL version 2.29.2+cuda12.9\nnode1:4242:4242 [0] inspector_plugin.cc:99 NCCL WARN "
       "Inspector Init Failed inspector_plugin.cc:99 -> error 5: Inspector encountered error with "
       "lock\n",
       "inspector-internal-error", Severity::kWarning, "Init failed for another reason"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first_cli(c.log), c.id, c.severity, c.cause)) << c.log;
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
  EXPECT_TRUE(ReadsAs(speed, "socket-net-speed-adapter-alloc", Severity::kWarning,
                      "The process was short of memory"));
  const Finding os = first_cli(
      "NCCL version 2.30.7+cuda13.0\nHOST01:4242:5000 [0] os/windows.cc:444 NCCL WARN Failed to "
      "allocate memory for adapter addresses\n");
  EXPECT_TRUE(DoesNotRead(os, "socket-net-speed-adapter-alloc"));
  EXPECT_TRUE(DoesNotRead(os, "socket-net-internal"));
}

// prov/efa/src/efa_errno.h:72, efa_strerror.c:70-78 (efa_show_help) @ libfabric v1.22.0,
// efa_strerror.c:61-66 @ v1.18.0; the warning of prov/efa/src/rdm/efa_rdm_ope.c:604 @ v1.22.0
TEST(NcclMessage, LfEfaUnresponsiveRemoteWithoutHandshakeIsTheSecurityGroup) {
  const std::string head =
      "libfabric:4242:1700000000::efa:cq:efa_rdm_rxe_handle_error():604<warn> err: 113, "
      "message: ";
  EXPECT_TRUE(ReadsAs(first_cli(head + "Unresponsive remote (detected locally) (13)\n"),
                      "lf-efa-unresponsive-remote", "The instances cannot exchange EFA traffic"));
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
  EXPECT_TRUE(
      ReadsAs(v118, "lf-efa-unresponsive-remote", "The peer process or instance went away"));
  // v2.0.0 and later: a completion whose peer libfabric does not know; its text names no cause.
  const Finding unknown =
      first_cli(head + "Unresponsive remote (was previously responsive) (13)\n");
  EXPECT_TRUE(ReadsAs(unknown, "lf-efa-unresponsive-remote"));
  EXPECT_FALSE(StartsWith(unknown.cause, "The instances cannot exchange EFA traffic"));
}

// prov/efa/src/efa_base_ep.c:743-750 (efa_base_ep_write_eq_error) @ libfabric v2.6.0: abort()
// follows the banner.
TEST(NcclMessage, LfEfaAbortBannerLineAloneIsAnError) {
  EXPECT_TRUE(ReadsAs(first_cli("Your application will now abort().\n"), "lf-efa-banner-abort",
                      Severity::kError));
}

// prov/efa/src/efa_base_ep.c:727 (the warning), rdm/efa_rdm_ep_fiops.c:196-203,242-246 (pools
// without a size limit, not registered) @ libfabric v2.6.0
TEST(NcclMessage, LfEfaEntriesExhaustedIsHostMemory) {
  const std::string head =
      "libfabric:4242:1700000000::efa:eq:efa_base_ep_write_eq_error():727<warn> Writing error to "
      "EQ: ";
  const ReadingCase cases[] = {
      {head + "err: No buffer space available (105) prov_errno: RX entries "
              "exhausted (4108)\n",
       "lf-efa-out-of-resources", kAnySeverity,
       "(4108 / 4109) The provider could not allocate another operation entry"},
      {head + "err: No buffer space available (105) prov_errno: Out of memory (4105)\n",
       "lf-efa-out-of-resources", kAnySeverity, "(4105 Out of memory)"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first_cli(c.log), c.id, c.severity, c.cause)) << c.log;
}

}  // namespace
}  // namespace trainready::test
