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
  const Finding rocr = signature(
      "RCCL version 2.20.5+hip6.2\nnode1:4512:4601 [0] /build/rccl/hipify/src/transport/"
      "net.cc:837 NCCL WARN ROCr failure 'HSA_STATUS_ERROR: A generic error has occurred.'\n");
  EXPECT_TRUE(reads(rocr, "rccl-rocr-load-failed")) << rocr.message;
  EXPECT_EQ(rocr.severity, Severity::kError);
  EXPECT_EQ(rocr.cause.rfind("hsa_amd_portable_export_dmabuf failed", 0), 0u) << rocr.cause;
  // The loader's own failure stays a warning about the library path (rocmwrap.cc:64 @ 0cbce2a7).
  const Finding load = signature(
      "RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "rocmwrap.cc:64 NCCL WARN Failed to find ROCm runtime library in (null) "
      "(RCCL_ROCR_PATH=(null))\n");
  EXPECT_TRUE(reads(load, "rccl-rocr-load-failed")) << load.message;
  EXPECT_EQ(load.severity, Severity::kWarning);
  EXPECT_EQ(load.cause.rfind("RCCL_ROCR_PATH is set to a directory", 0), 0u) << load.cause;
}

// Before RCCL 2.21 a GPU the reader cannot find is skipped: `if (rocm_smi_getDeviceIndexByPciBusId
// (...) != ncclSuccess) devIndex = -1;` (src/graph/xml.cc:857 @ rocm-6.2.2, :788 @ rocm-5.7.0);
// develop checks it (src/init.cc:554-555 @ 0cbce2a7).
TEST(NcclMessage, RcclDeviceIndexNotFoundIsSkippedBefore2_21) {
  const Finding rocm62 = signature(
      "RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "rocm_smi_wrap.cc:155 NCCL WARN ARSMI_lib: 0000:c1:00.0 device index not found\n");
  EXPECT_TRUE(reads(rocm62, "rccl-gpu-topology-unreadable")) << rocm62.message;
  EXPECT_EQ(rocm62.severity, Severity::kWarning);
  EXPECT_EQ(rocm62.cause.rfind("RCCL before 2.21 (ROCm 6.2 and older) ignores this lookup", 0), 0u)
      << rocm62.cause;
  const Finding rocm57 = signature(
      "RCCL version 2.17.1+hip5.7 HEAD:5ad2c2b\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "rocm_smi_wrap.cc:94 NCCL WARN rocm_smi_lib: 0000:c1:00.0 device index not found\n");
  EXPECT_EQ(rocm57.severity, Severity::kWarning);
  EXPECT_EQ(rocm57.cause.rfind("RCCL before 2.21", 0), 0u) << rocm57.cause;
  const Finding develop = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "rocm_smi_wrap.cc:155 NCCL WARN ARSMI_lib: 0000:c1:00.0 device index not found\n");
  EXPECT_TRUE(reads(develop, "rccl-gpu-topology-unreadable")) << develop.message;
  EXPECT_EQ(develop.severity, Severity::kError);
  EXPECT_EQ(develop.cause.rfind("The rank's GPU (its PCI bus id in the line)", 0), 0u)
      << develop.cause;
}

// msccl-executor-nccl v2.17/v2.18 print "open algorithm directory %s failed"
// (src/misc/msccl/msccl_lifecycle.cc:104 @ msccl-v2.18-release) and, to v2.19, fail init on it
// (NCCLCHECK(mscclInit(comm)), src/init.cc:1275 @ msccl-v2.19-release); c6f6b36 goes on.
TEST(NcclMessage, MscclAlgorithmsMissingFailsMscclExecutorInitTo2_19) {
  const Finding v218 = signature(
      "NCCL version 2.18.3+cuda12.2\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:104 NCCL "
      "WARN MSCCL Internal Scheduler: open algorithm directory /opt/msccl/lib/msccl-algorithms "
      "failed\n");
  EXPECT_TRUE(reads(v218, "msccl-algorithms-missing")) << v218.message;
  EXPECT_EQ(v218.severity, Severity::kError);
  EXPECT_EQ(v218.cause.rfind("msccl-executor-nccl v2.17 to v2.19", 0), 0u) << v218.cause;
  const Finding v219 = signature(
      "NCCL version 2.19.4+cuda12.2\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:127 NCCL "
      "WARN MSCCL Internal Scheduler: open algorithm in share directory "
      "/usr/share/nccl/msccl-algorithms failed\n");
  EXPECT_TRUE(reads(v219, "msccl-algorithms-missing")) << v219.message;
  EXPECT_EQ(v219.severity, Severity::kError);
  EXPECT_EQ(v219.cause.rfind("msccl-executor-nccl v2.17 to v2.19", 0), 0u) << v219.cause;
  const Finding later = signature(
      "NCCL version 2.23.4+cuda12.4\nnode1:4512:4512 [0] misc/msccl/msccl_lifecycle.cc:141 NCCL "
      "WARN MSCCL Internal Scheduler: open algorithm in share directory "
      "/usr/share/nccl/msccl-algorithms failed\n");
  EXPECT_EQ(later.severity, Severity::kWarning);
  EXPECT_EQ(later.cause.rfind("MSCCL_ALGO_DIR is unset", 0), 0u) << later.cause;
}

// RCCL 5.7 and 6.0 run mscclInit for every communicator while RCCL_MSCCL_ENABLE=1 and fail init
// on it (NCCLCHECK(mscclSchedulerInit()), src/misc/msccl/msccl_lifecycle.cc:188 @ rocm-5.7.0);
// 6.1 does not check it (src/graph/connect.cc:589 @ rocm-6.1.0).
TEST(NcclMessage, MscclAlgorithmsMissingFailsRcclInitBefore2_18_6) {
  const Finding rocm57 = signature(
      "RCCL version 2.17.1+hip5.7 HEAD:5ad2c2b\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_lifecycle.cc:108 NCCL WARN MSCCL Internal Scheduler: open algorithm in share "
      "directory /opt/rocm/lib/../share/rccl/msccl-algorithms failed\n");
  EXPECT_TRUE(reads(rocm57, "msccl-algorithms-missing")) << rocm57.message;
  EXPECT_EQ(rocm57.severity, Severity::kError);
  EXPECT_EQ(rocm57.cause.rfind("RCCL of ROCm 5.7 and 6.0 runs mscclInit", 0), 0u) << rocm57.cause;
  const Finding rocm61 = signature(
      "RCCL version 2.18.6+hip6.1 HEAD:abc1234\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_lifecycle.cc:132 NCCL WARN MSCCL Internal Scheduler: open algorithm in share "
      "directory /opt/rocm/lib/../share/rccl/msccl-algorithms failed\n");
  EXPECT_EQ(rocm61.severity, Severity::kWarning);
  EXPECT_EQ(rocm61.cause.rfind("MSCCL_ALGO_DIR is unset", 0), 0u) << rocm61.cause;
}

// "number of channels available (%d) less than required (%d)" is mscclSetupConnections'
// `return ncclInvalidUsage;` (src/misc/msccl/msccl_setup.cc:91-93 @ 0cbce2a7), NCCLCHECKed by
// mscclInit (msccl_lifecycle.cc:271); only develop's NCCL_MAX_NCHANNELS line (:132) falls back.
TEST(NcclMessage, MscclChannelsShortFailsTheSetup) {
  const Finding setup = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_setup.cc:92 NCCL WARN MSCCL: number of channels available (8) less than "
      "required (16)\n");
  EXPECT_TRUE(reads(setup, "msccl-channels-short")) << setup.message;
  EXPECT_EQ(setup.severity, Severity::kError);
  EXPECT_EQ(setup.cause.rfind("The communicator built fewer channels", 0), 0u) << setup.cause;
  const Finding dropped = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_lifecycle.cc:132 NCCL WARN NCCL_MAX_NCHANNELS:8 is lesser than number of "
      "channels required by MSCCL:16, so disabling MSCCL for allreduce between minBytes:0 and "
      "maxBytes:1048576 from file: /opt/rocm/share/rccl/msccl-algorithms/allreduce.xml\n");
  EXPECT_TRUE(reads(dropped, "msccl-channels-short")) << dropped.message;
  EXPECT_EQ(dropped.severity, Severity::kWarning);
  EXPECT_EQ(dropped.cause.rfind("NCCL_MAX_NCHANNELS (or NCCL_MAX_NRINGS) is set below", 0), 0u)
      << dropped.cause;
}

// "full Ops" is forced by RCCL_MSCCL_FORCE_FULLOPS or an algorithm's fused transfers
// (src/misc/msccl/msccl_setup.cc:411,430-437 @ 0cbce2a7); "Invalid MSCCL function type" is the
// default of mscclFallBackSavedParams' switch (src/misc/msccl/msccl_lifecycle.cc:471 @ 0cbce2a7).
TEST(NcclMessage, MscclInternalReadsFullOpsAndTheSavedFunctionType) {
  const Finding full = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_setup.cc:436 NCCL WARN MSCCL: this version of MSCCL build doesn't support "
      "full Ops\n");
  EXPECT_TRUE(reads(full, "msccl-internal")) << full.message;
  EXPECT_EQ(full.cause.rfind("This RCCL has no full-ops MSCCL kernels", 0), 0u) << full.cause;
  const std::string saved_log =
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/misc/"
      "msccl/msccl_lifecycle.cc:471 NCCL WARN Invalid MSCCL function type in saved parameter\n";
  const Finding saved = signature(saved_log);
  EXPECT_TRUE(reads(saved, "msccl-internal")) << saved.message;
  EXPECT_FALSE(kb_reading(saved_log, "msccl-algorithm-invalid").found);
  EXPECT_EQ(saved.cause.rfind("A collective MSCCL saved to hand back", 0), 0u) << saved.cause;
}

// MSCCL++ is on by default in a build with it (defaultEnableMscclpp = 1, src/init.cc:106-111 @
// 0cbce2a7) and warns for each communicator it does not serve (init.cc:2061, :2065); only "Feature
// not enabled" (init.cc:2068) says RCCL_MSCCLPP_ENABLE=1 was set.
TEST(NcclMessage, RcclMscclppUnavailableIsInformationByDefault) {
  const Finding env = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/init.cc:2065 "
      "NCCL WARN MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible\n");
  EXPECT_TRUE(reads(env, "rccl-mscclpp-unavailable")) << env.message;
  EXPECT_EQ(env.severity, Severity::kInfo);
  EXPECT_EQ(env.cause.rfind("MSCCL++ is on by default in this build", 0), 0u) << env.cause;
  const Finding arch = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/init.cc:2061 "
      "NCCL WARN MSCCL++: Cannot enable MSCCL++ on gfx90a:sramecc+:xnack- architecture\n");
  EXPECT_TRUE(reads(arch, "rccl-mscclpp-unavailable")) << arch.message;
  EXPECT_EQ(arch.severity, Severity::kInfo);
  const Finding asked = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/init.cc:2068 "
      "NCCL WARN MSCCL++: Feature not enabled. ENABLE_MSCCLPP must be defined at compile-time to "
      "enable this feature.\n");
  EXPECT_TRUE(reads(asked, "rccl-mscclpp-unavailable")) << asked.message;
  EXPECT_EQ(asked.severity, Severity::kWarning);
  EXPECT_EQ(asked.cause.rfind("RCCL_MSCCLPP_ENABLE=1 is set for an RCCL built without MSCCL++", 0),
            0u)
      << asked.cause;
}

// An unknown netGdrLevel in a model string is `system->netGdrLevel = -2; WARN(...)` in a void
// parser (src/graph/rome_models.cc:1360-1361 @ 0cbce2a7), read as PXB (src/graph/paths.cc:412).
TEST(NcclMessage, RcclInvalidNetGdrLevelIsAWarning) {
  const Finding level = signature(
      "RCCL version : 2.21.5-HEAD:0cbce2a\nnode1:4512:4512 [0] /build/rccl/hipify/src/graph/"
      "rome_models.cc:1361 NCCL WARN invalid netGdrLevel: PXX\n");
  EXPECT_TRUE(reads(level, "rccl-topo-xml-gpu-missing")) << level.message;
  EXPECT_EQ(level.severity, Severity::kWarning);
  EXPECT_EQ(level.cause.rfind("An edited machine model string names a GPU-NIC level", 0), 0u)
      << level.cause;
}

// RCCL's INFO lines the audit found unread: "Current version of ROCm does not support dmabuf
// feature." (src/misc/rocmwrap.cc:109 @ rocm-6.2.2) and 6.2's GDR probe, "Could not open kernel
// header file %s" (src/transport/net_ib.cc:378 @ rocm-6.2.2).
TEST(NcclMessage, RcclDmaBufAndGdrProbeInfoLinesAreRead) {
  // Info readings of INFO lines: they explain the lines, and no rule reports them.
  const KbReading dmabuf = kb_reading(
      "RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] NCCL INFO Current version of ROCm does not "
      "support dmabuf feature.\n",
      "rccl-dmabuf-disabled");
  EXPECT_TRUE(dmabuf.found);
  EXPECT_EQ(dmabuf.severity, Severity::kInfo);
  const KbReading header = kb_reading(
      "RCCL version 2.20.5+hip6.2\nnode1:4512:4512 [0] NCCL INFO Could not open kernel header "
      "file /lib/modules/5.15.0-91-generic/build/include/rdma/ib_umem.h\n",
      "rccl-gdr-not-enabled");
  EXPECT_TRUE(header.found);
  EXPECT_EQ(header.severity, Severity::kInfo);
}

// RCCL 2.18.6 replaces NCCL_PROTO=LL128 by LL off gfx90a or off an all-XGMI node
// (src/graph/tuning.cc:453-456 @ rocm-6.1.0): a choice traced at INFO, no failure.
TEST(NcclMessage, RcclLl128SwitchedToLlIsRead) {
  const KbReading ll = kb_reading(
      "RCCL version 2.18.6+hip6.1 HEAD:abc1234\nnode1:4512:4512 [0] NCCL INFO LL128 is not "
      "supported, switching to LL\n",
      "rccl-ll128-switched-to-ll");
  EXPECT_TRUE(ll.found);
  EXPECT_EQ(ll.severity, Severity::kInfo);
  EXPECT_EQ(ll.cause.rfind("NCCL_PROTO is LL128", 0), 0u) << ll.cause;
}

// The HIP runtime skips an unsupported GPU and keeps the others (`if (!roc_device->create()) {
// ... continue; }`, rocclr/device/rocm/rocdevice.cpp:563-566 @ ROCm/clr rocm-6.2.2): an error
// only where HIP then has no device ("no ROCm-capable device is detected", hip_error.cpp:244).
TEST(NcclMessage, HipUnsupportedIsaIsAnErrorOnlyWithoutAnotherGpu) {
  const std::string isa =
      ":1:rocdevice.cpp            :707 : 1234 us: [pid:9 tid: 0x7f] Unsupported HSA device "
      "gfx1151 (PCI ID 1586) for ISA amdgcn-amd-amdhsa--gfx1151\n";
  const Finding beside = unmarked(isa, "hip-unsupported-isa");
  EXPECT_TRUE(reads(beside, "hip-unsupported-isa")) << beside.message;
  EXPECT_EQ(beside.severity, Severity::kWarning);
  EXPECT_EQ(beside.cause.rfind("If another, supported GPU is present", 0), 0u) << beside.cause;
  const Finding alone = unmarked(isa + "hipErrorNoDevice: no ROCm-capable device is detected\n",
                                 "hip-unsupported-isa");
  EXPECT_TRUE(reads(alone, "hip-unsupported-isa")) << alone.message;
  EXPECT_EQ(alone.severity, Severity::kError);
  EXPECT_EQ(alone.cause.rfind("The GPU is newer (or older) than the ROCm release", 0), 0u)
      << alone.cause;
  // Without HIP's own no-device line the reading cannot tell whether other GPUs were left: it
  // says what the job ran on decides.
  EXPECT_NE(beside.cause.find("if this was the only GPU, the job has none"), std::string::npos)
      << beside.cause;
}

}  // namespace
}  // namespace trainready::test
