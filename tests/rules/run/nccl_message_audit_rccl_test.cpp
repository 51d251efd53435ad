// Readings of RCCL's (ROCm/rccl), msccl-executor-nccl's and the HIP runtime's own texts put right
// by the audit of data/nccl-kb/rccl.yaml and hip-runtime.yaml against their sources: each line in
// the format of the release that prints it. These entries are passthrough entries (their text is
// RCCL's, not NCCL's), which the nccl-known-signature rule reports.
#include <gtest/gtest.h>

#include <string>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-known-signature";

// The rule's finding of entry `id` on `log` read as the CLI reads a log with no NCCL record (the
// HIP runtime's own lines: src/cli/cmd_nccl.cpp), or an empty one.
Finding unmarked(const std::string& log, const std::string& id) {
  return reading_of(kId, cli_log_text(log), id);
}

// "ROCr failure '%s'" is CUCHECK's WARN (src/include/rocmwrap.h:22-30 @ 0cbce2a7), used only on
// hsa_amd_portable_export_dmabuf at src/transport/net.cc:837 @ rocm-6.2.2: the connection fails.
TEST(NcclMessage, RcclRocrFailureIsTheDmaBufExportOfANetworkBuffer) {
  const ReadingCase cases[] = {
      {"RCCL version 2.20.5+hip6.2\nnode1:4512:4601 [0] /build/rccl/hipify/src/transport/"
       "net.cc:837 NCCL WARN ROCr failure 'HSA_STATUS_ERROR: A generic error has occurred.'\n",
       "rccl-rocr-load-failed", Severity::kError, "hsa_amd_portable_export_dmabuf failed"},
      // The loader's own failure stays a warning about the library path (rocmwrap.cc:64 @
      // 0cbce2a7).
      {"RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "rocmwrap.cc:64 NCCL WARN Failed to find ROCm runtime library in (null) "
       "(RCCL_ROCR_PATH=(null))\n",
       "rccl-rocr-load-failed", Severity::kWarning, "RCCL_ROCR_PATH is set to a directory"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// Before RCCL 2.21 a GPU the reader cannot find is skipped: `if (rocm_smi_getDeviceIndexByPciBusId
// (...) != ncclSuccess) devIndex = -1;` (src/graph/xml.cc:857 @ rocm-6.2.2, :788 @ rocm-5.7.0);
// develop checks it (src/init.cc:554-555 @ 0cbce2a7).
TEST(NcclMessage, RcclDeviceIndexNotFoundIsSkippedBefore2_21) {
  const ReadingCase cases[] = {
      {"RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "rocm_smi_wrap.cc:155 NCCL WARN ARSMI_lib: 0000:c1:00.0 device index not found\n",
       "rccl-gpu-topology-unreadable", Severity::kWarning,
       "RCCL before 2.21 (ROCm 6.2 and older) ignores this lookup"},
      {"RCCL version 2.17.1+hip5.7 HEAD:5ad2c2b\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "rocm_smi_wrap.cc:94 NCCL WARN rocm_smi_lib: 0000:c1:00.0 device index not found\n",
       kAnyEntry, Severity::kWarning, "RCCL before 2.21"},
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "rocm_smi_wrap.cc:155 NCCL WARN ARSMI_lib: 0000:c1:00.0 device index not found\n",
       "rccl-gpu-topology-unreadable", Severity::kError,
       "The rank's GPU (its PCI bus id in the line)"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// msccl-executor-nccl v2.17/v2.18 print "open algorithm directory %s failed"
// (src/misc/msccl/msccl_lifecycle.cc:104 @ msccl-v2.18-release) and, to v2.19, fail init on it
// (NCCLCHECK(mscclInit(comm)), src/init.cc:1275 @ msccl-v2.19-release); c6f6b36 goes on.
TEST(NcclMessage, MscclAlgorithmsMissingFailsMscclExecutorInitTo2_19) {
  const ReadingCase cases[] = {
      {"NCCL version 2.18.3+cuda12.2\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:104 NCCL "
       "WARN MSCCL Internal Scheduler: open algorithm directory /opt/msccl/lib/msccl-algorithms "
       "failed\n",
       "msccl-algorithms-missing", Severity::kError, "msccl-executor-nccl v2.17 to v2.19"},
      {"NCCL version 2.19.4+cuda12.2\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:127 NCCL "
       "WARN MSCCL Internal Scheduler: open algorithm in share directory "
       "/usr/share/nccl/msccl-algorithms failed\n",
       "msccl-algorithms-missing", Severity::kError, "msccl-executor-nccl v2.17 to v2.19"},
      {"NCCL version 2.23.4+cuda12.4\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:141 NCCL "
       "WARN MSCCL Internal Scheduler: open algorithm in share directory "
       "/usr/share/nccl/msccl-algorithms failed\n",
       kAnyEntry, Severity::kWarning, "MSCCL_ALGO_DIR is unset"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// RCCL 5.7 and 6.0 run mscclInit for every communicator while RCCL_MSCCL_ENABLE=1 and fail init
// on it (NCCLCHECK(mscclSchedulerInit()), src/misc/msccl/msccl_lifecycle.cc:188 @ rocm-5.7.0);
// 6.1 does not check it (src/graph/connect.cc:589 @ rocm-6.1.0).
TEST(NcclMessage, MscclAlgorithmsMissingFailsRcclInitBefore2_18_6) {
  const ReadingCase cases[] = {
      {"RCCL version 2.17.1+hip5.7 HEAD:5ad2c2b\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "msccl/msccl_lifecycle.cc:108 NCCL WARN MSCCL Internal Scheduler: open algorithm in share "
       "directory /opt/rocm/lib/../share/rccl/msccl-algorithms failed\n",
       "msccl-algorithms-missing", Severity::kError, "RCCL of ROCm 5.7 and 6.0 runs mscclInit"},
      {"RCCL version 2.18.6+hip6.1 HEAD:abc1234\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "msccl/msccl_lifecycle.cc:132 NCCL WARN MSCCL Internal Scheduler: open algorithm in share "
       "directory /opt/rocm/lib/../share/rccl/msccl-algorithms failed\n",
       kAnyEntry, Severity::kWarning, "MSCCL_ALGO_DIR is unset"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// "number of channels available (%d) less than required (%d)" is mscclSetupConnections'
// `return ncclInvalidUsage;` (src/misc/msccl/msccl_setup.cc:91-93 @ 0cbce2a7), NCCLCHECKed by
// mscclInit (msccl_lifecycle.cc:271); only develop's NCCL_MAX_NCHANNELS line (:132) falls back.
TEST(NcclMessage, MscclChannelsShortFailsTheSetup) {
  const ReadingCase cases[] = {
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "msccl/msccl_setup.cc:92 NCCL WARN MSCCL: number of channels available (8) less than "
       "required (16)\n",
       "msccl-channels-short", Severity::kError, "The communicator built fewer channels"},
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
       "msccl/msccl_lifecycle.cc:132 NCCL WARN NCCL_MAX_NCHANNELS:8 is lesser than number of "
       "channels required by MSCCL:16, so disabling MSCCL for allreduce between minBytes:0 and "
       "maxBytes:1048576 from file: /opt/rocm/share/rccl/msccl-algorithms/allreduce.xml\n",
       "msccl-channels-short", Severity::kWarning,
       "NCCL_MAX_NCHANNELS (or NCCL_MAX_NRINGS) is set below"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// "full Ops" is forced by RCCL_MSCCL_FORCE_FULLOPS or an algorithm's fused transfers
// (src/misc/msccl/msccl_setup.cc:411,430-437 @ 0cbce2a7); "Invalid MSCCL function type" is the
// default of mscclFallBackSavedParams' switch (src/misc/msccl/msccl_lifecycle.cc:471 @ 0cbce2a7).
TEST(NcclMessage, MscclInternalReadsFullOpsAndTheSavedFunctionType) {
  const Finding full = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_setup.cc:436 NCCL WARN MSCCL: this version of MSCCL build doesn't support "
      "full Ops\n");
  EXPECT_TRUE(ReadsAs(full, "msccl-internal", "This RCCL has no full-ops MSCCL kernels"));
  const std::string saved_log =
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_lifecycle.cc:471 NCCL WARN Invalid MSCCL function type in saved parameter\n";
  EXPECT_TRUE(
      ReadsAs(signature(saved_log), "msccl-internal", "A collective MSCCL saved to hand back"));
  EXPECT_FALSE(kb_reading(saved_log, "msccl-algorithm-invalid").found);
}

// MSCCL++ is on by default in a build with it (defaultEnableMscclpp = 1, src/init.cc:106-111 @
// 0cbce2a7) and warns for each communicator it does not serve (init.cc:2061, :2065); only "Feature
// not enabled" (init.cc:2068) says RCCL_MSCCLPP_ENABLE=1 was set.
TEST(NcclMessage, RcclMscclppUnavailableIsInformationByDefault) {
  const ReadingCase cases[] = {
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] "
       "/build/rccl/hipify/src/init.cc:2065 NCCL WARN MSCCL++: Cannot enable MSCCL++; environment "
       "is not MSCCL compatible\n",
       "rccl-mscclpp-unavailable", Severity::kInfo, "MSCCL++ is on by default in this build"},
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] "
       "/build/rccl/hipify/src/init.cc:2061 NCCL WARN MSCCL++: Cannot enable MSCCL++ on "
       "gfx90a:sramecc+:xnack- architecture\n",
       "rccl-mscclpp-unavailable", Severity::kInfo},
      {"RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] "
       "/build/rccl/hipify/src/init.cc:2068 NCCL WARN MSCCL++: Feature not enabled. ENABLE_MSCCLPP "
       "must be defined at compile-time to enable this feature.\n",
       "rccl-mscclpp-unavailable", Severity::kWarning,
       "RCCL_MSCCLPP_ENABLE=1 is set for an RCCL built without MSCCL++"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(signature(c.log), c.id, c.severity, c.cause)) << c.log;
}

// An unknown netGdrLevel in a model string is `system->netGdrLevel = -2; WARN(...)` in a void
// parser (src/graph/rome_models.cc:1360-1361 @ 0cbce2a7), read as PXB (src/graph/paths.cc:412).
TEST(NcclMessage, RcclInvalidNetGdrLevelIsAWarning) {
  const Finding level = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/graph/"
      "rome_models.cc:1361 NCCL WARN invalid netGdrLevel: PXX\n");
  EXPECT_TRUE(ReadsAs(level, "rccl-topo-xml-gpu-missing", Severity::kWarning,
                      "An edited machine model string names a GPU-NIC level"));
}

// RCCL's INFO lines the audit found unread: "Current version of ROCm does not support dmabuf
// feature." (src/misc/rocmwrap.cc:109 @ rocm-6.2.2) and 6.2's GDR probe, "Could not open kernel
// header file %s" (src/transport/net_ib.cc:378 @ rocm-6.2.2).
TEST(NcclMessage, RcclDmaBufAndGdrProbeInfoLinesAreRead) {
  // Info readings of INFO lines: they explain the lines, and no rule reports them.
  EXPECT_TRUE(FoundAs(kb_reading("RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] NCCL INFO "
                                 "Current version of ROCm does not support dmabuf feature.\n",
                                 "rccl-dmabuf-disabled"),
                      Severity::kInfo));
  EXPECT_TRUE(FoundAs(
      kb_reading(
          "RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] NCCL INFO Could not open kernel header "
          "file /lib/modules/5.15.0-91-generic/build/include/rdma/ib_umem.h\n",
          "rccl-gdr-not-enabled"),
      Severity::kInfo));
}

// RCCL 2.18.6 replaces NCCL_PROTO=LL128 by LL off gfx90a or off an all-XGMI node
// (src/graph/tuning.cc:453-456 @ rocm-6.1.0): a choice traced at INFO, no failure.
TEST(NcclMessage, RcclLl128SwitchedToLlIsRead) {
  EXPECT_TRUE(FoundAs(
      kb_reading(
          "RCCL version 2.18.6+hip6.1 HEAD:abc1234\nnode1:4512:4512 [0] NCCL INFO LL128 is not "
          "supported, switching to LL\n",
          "rccl-ll128-switched-to-ll"),
      Severity::kInfo, "NCCL_PROTO is LL128"));
}

// The HIP runtime skips an unsupported GPU and keeps the others (`if (!roc_device->create()) {
// ... continue; }`, rocclr/device/rocm/rocdevice.cpp:563-566 @ ROCm/clr rocm-6.2.2): an error
// only where HIP then has no device ("no ROCm-capable device is detected", hip_error.cpp:244).
TEST(NcclMessage, HipUnsupportedIsaIsAnErrorOnlyWithoutAnotherGpu) {
  const std::string isa =
      ":1:rocdevice.cpp            :707 : 1234 us: [pid:9 tid: 0x7f] Unsupported HSA device "
      "gfx1151 (PCI ID 1586) for ISA amdgcn-amd-amdhsa--gfx1151\n";
  const Finding beside = unmarked(isa, "hip-unsupported-isa");
  EXPECT_TRUE(ReadsAs(beside, "hip-unsupported-isa", Severity::kWarning,
                      "If another, supported GPU is present"));
  EXPECT_TRUE(ReadsAs(unmarked(isa + "hipErrorNoDevice: no ROCm-capable device is detected\n",
                               "hip-unsupported-isa"),
                      "hip-unsupported-isa", Severity::kError,
                      "The GPU is newer (or older) than the ROCm release"));
  // Without HIP's own no-device line the reading cannot tell whether other GPUs were left: it
  // says what the job ran on decides.
  EXPECT_TRUE(Contains(beside.cause, "if this was the only GPU, the job has none"));
}

}  // namespace
}  // namespace trainready::test
