// Readings added or put right by the twenty-third session's audits of the knowledge base against
// NCCL's source (docs/nccl-corpus.md): each line in the format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-message";

// A plugin that dlopen refused: every release prints the loader's own text (src/net.cc:127 @
// v2.12.12-1, :372 @ v2.22.3-1, src/plugin/plugin_open.cc:100 @ v2.30.7-1). The library itself
// missing is normal; one it depends on missing, or a symbol, is a plugin the job runs without.
TEST(NcclMessage, PluginLoadFailuresReadFromTheLoadersText) {
  // The library itself missing: an info reading of an INFO line, which explains it and is no
  // finding of its own.
  const std::string missing =
      "NCCL version 2.14.3+cuda11.2\nh:1:2 [0] NCCL INFO NET/Plugin : Plugin load returned 17 : "
      "libnccl-net.so: cannot open shared object file: No such file or directory.\n";
  EXPECT_TRUE(FoundAs(kb_reading(missing, "net-plugin-load-failed"), Severity::kInfo,
                      "No plugin library is installed"));
  EXPECT_TRUE(log_rule("nccl-known-signature", log_text(missing)).findings.empty());
  // A name NCCL_NET_PLUGIN gave (libnccl-net-<name>.so), which these releases do not print as a
  // setting (2.14: "Plugin name set by env to ...", src/net.cc:173 @ v2.14.3-1).
  const Finding meant = signature(
      "NCCL version 2.14.3+cuda11.2\nh:1:2 [0] NCCL INFO Plugin name set by env to "
      "libnccl-net-ofi.so\nh:1:2 [0] NCCL INFO NET/Plugin : Plugin load returned 2 : "
      "libnccl-net-ofi.so: cannot open shared object file: No such file or directory.\n");
  EXPECT_TRUE(HasCause(meant, Severity::kWarning, "The plugin named in NCCL_NET_PLUGIN"));
  const Finding meant218 = signature(
      "NCCL version 2.18.3+cuda12.2\nh:1:2 [0] NCCL INFO NET/Plugin : Plugin load "
      "(libnccl-net-ofi.so) returned 2 : libnccl-net-ofi.so: cannot open shared object file: No "
      "such file or directory\n");
  EXPECT_TRUE(HasCause(meant218, "The plugin named in NCCL_NET_PLUGIN"));
  // NCCL_NET_PLUGIN=none before 2.28 asks for libnccl-net-none.so: a choice of no plugin.
  const KbReading none = kb_reading(
      "NCCL version 2.18.3+cuda12.2\nh:1:2 [0] NCCL INFO NET/Plugin : Plugin load "
      "(libnccl-net-none.so) returned 2 : libnccl-net-none.so: cannot open shared object file: No "
      "such file or directory\n",
      "net-plugin-load-failed");
  EXPECT_EQ(none.severity, Severity::kInfo);
  // 2.28 prints the setting and lists the names it tried.
  const Finding listed = first(
      "NCCL version 2.28.9+cuda12.8\nh:1:2 [0] NCCL INFO NCCL_NET_PLUGIN set by environment to "
      "ofi\nh:1:2 [0] NCCL INFO NET/Plugin: Could not find: ofi libnccl-net-ofi.so\n");
  EXPECT_TRUE(ReadsAs(listed, "net-plugin-not-found", Severity::kWarning));
  const Finding dependency = signature(
      "NCCL version 2.28.9+cuda12.8\nh:1:2 [0] NCCL INFO NET/Plugin: libnccl-net.so: "
      "libfabric.so.1: cannot open shared object file: No such file or directory\n");
  EXPECT_TRUE(ReadsAs(dependency, "net-plugin-load-failed", Severity::kWarning,
                      "The plugin library is there, but a library it depends on"));
  const Finding symbol = signature(
      "NCCL version 2.23.4+cuda12.6\nh:1:2 [0] NCCL INFO NET/Plugin: /opt/ofi/lib/libnccl-net.so: "
      "undefined symbol: fi_mr_regattr\n");
  EXPECT_TRUE(HasCause(symbol, "The plugin was built against other versions"));
  const Finding glibc = signature(
      "NCCL version 2.29.3+cuda12.9\nh:1:2 [0] NCCL INFO TUNER/Plugin: libnccl-tuner.so: "
      "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by "
      "libnccl-tuner.so)\n");
  EXPECT_TRUE(ReadsAs(glibc, "loader-symbol-version-not-found"));
  // 2.21's tuner probes libnccl-net.so too: its lines stay the tuner's own reading.
  const Finding tuner = first(
      "NCCL version 2.21.5+cuda12.4\nh:1:2 [0] NCCL INFO TUNER/Plugin: Plugin load returned 2 : "
      "libnccl-net.so: cannot open shared object file: No such file or directory : when loading "
      "libnccl-tuner.so\n");
  EXPECT_TRUE(DoesNotRead(tuner, "net-plugin-load-failed"));
  EXPECT_TRUE(
      DoesNotRead(signature("NCCL version 2.21.5+cuda12.4\nh:1:2 [0] NCCL INFO TUNER/Plugin: "
                            "Plugin load returned 2 : libnccl-net.so: cannot open shared object "
                            "file: No such file or directory : when loading libnccl-tuner.so\n"),
                  "net-plugin-load-failed"));
  // A library NCCL did not find at all is still net-plugin-not-found's.
  EXPECT_TRUE(
      DoesNotRead(first("h:1:2 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using "
                        "internal network plugin.\n"),
                  "net-plugin-load-failed"));
}

// 2.26 and 2.27 probe net plugin symbols v10 .. v6 only and print nothing when none is there
// (src/plugin/net.cc:93-98 @ v2.26.2-1): a v5 plugin is dropped without a word. 2.28 says so.
TEST(NcclMessage, NetPluginWithoutV6IsDroppedSilentlyBy2_26) {
  std::string probes;
  for (int v = 10; v >= 6; --v)
    probes += "h:1:2 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v" + std::to_string(v) +
              " symbol.\n";
  const Finding dropped = first("NCCL version 2.26.2+cuda12.4\n" + probes);
  EXPECT_TRUE(ReadsAs(dropped, "net-plugin-v6-probe-last", Severity::kWarning,
                      "The plugin exports no ncclNetPlugin_v6"));
  // 2.18 goes on to probe v5 after the same v6 line (src/net.cc:186 @ v2.18.1-1): no finding.
  EXPECT_TRUE(log_rule(kId, log_text("NCCL version 2.18.1+cuda12.1\nh:1:2 [0] NCCL INFO "
                                     "NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.\nh:1:2 "
                                     "[0] NCCL INFO NET/Plugin: Loaded net plugin IBext (v5)\n"))
                  .findings.empty());
}

// cuMemImportFromShareableHandle of a FABRIC handle fails with CUDA_ERROR_NOT_PERMITTED when the
// importer lacks the exporter's IMEX channel (CUDA Driver API); NCCL imports FABRIC handles only
// with MNNVL on (src/mnnvl.cc:94, src/transport/p2p.cc:293 @ v2.30.7-1).
TEST(NcclMessage, NotPermittedOnAnMnnvlSystemIsTheImexChannel) {
  const std::string warn =
      "h:1:2 [0] transport/p2p.cc:293 NCCL WARN Cuda failure 800 'operation not permitted'\n";
  const Finding mnnvl = signature(
      "NCCL version 2.27.5+cuda12.9\nh:1:2 [0] NCCL INFO MNNVL 1 cliqueId 7f00 cliqueSize "
      "72 cliqueRank 3 nvlDomainSize 72\n" +
      warn);
  EXPECT_TRUE(HasCause(mnnvl, "\"operation not permitted\" (CUDA_ERROR_NOT_PERMITTED, 800)"));
  EXPECT_TRUE(HasCause(signature("NCCL version 2.27.5+cuda12.9\n" + warn),
                       "P2P or CUDA IPC is not available"));
}

// 2.17 to 2.19 say "ignoring NCCL_ALGO=COLLNET" for NCCL_ALGO=NVLS when CollNet is unavailable
// and no Ring or Tree is left (src/graph/tuning.cc:265-276 @ v2.19.4-1).
TEST(NcclMessage, CollNetIgnoredMessageForAnNvlsSetting) {
  const std::string warn =
      "h:1:2 [0] graph/tuning.cc:261 NCCL WARN CollNet is not supported or fails to initialize, "
      "ignoring NCCL_ALGO=COLLNET\n";
  const Finding nvls = first(
      "NCCL version 2.18.5+cuda12.2\nh:1:2 [0] NCCL INFO NCCL_ALGO set by environment to NVLS\n" +
      warn);
  EXPECT_TRUE(HasCause(nvls, "NCCL_ALGO asked for NVLS or NVLSTree"));
  const Finding collnet = first(
      "NCCL version 2.18.5+cuda12.2\nh:1:2 [0] NCCL INFO NCCL_ALGO set by environment to "
      "CollNetDirect\n" +
      warn);
  EXPECT_TRUE(HasCause(collnet, "No CollNet (SHARP)"));
}

// With NCCL_TOPO_FILE unset NCCL reads /var/run/nvidia-topologyd/virtualTopology.xml when it
// exists (src/graph/topo.cc:681 @ v2.21.5-1): a fault of that file is the file's, whatever
// check it fails.
TEST(NcclMessage, DefaultTopologyFileNamedForEveryTopologyFault) {
  const std::string loading =
      "NCCL version 2.21.5+cuda12.4\nh:1:2 [0] NCCL INFO Loading topology file "
      "/var/run/nvidia-topologyd/virtualTopology.xml\n";
  for (const std::string warn :
       {"h:1:2 [0] graph/xml.h:101 NCCL WARN Attribute busid of node nic not found\n",
        "h:1:2 [0] graph/paths.cc:169 NCCL WARN Error : could not find CPU close to GPU 3\n",
        "h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (3 != "
        "0)\n",
        "h:1:2 [0] graph/xml.h:286 NCCL WARN Error : too many XML nodes (max 1024)\n"}) {
    EXPECT_TRUE(HasCause(first(loading + warn), "The file is NCCL's default topology file"))
        << warn;
    EXPECT_FALSE(StartsWith(first("NCCL version 2.21.5+cuda12.4\n" + warn).cause,
                            "The file is NCCL's default topology file"))
        << warn;
  }
}

// With pointer checking on, a collective checks its buffers before its count
// (src/misc/argcheck.cc:60-71 @ v2.18.3-1): glibc prints a NULL %p as "(nil)".
TEST(NcclMessage, NullBufferUnderPointerChecking) {
  const Finding null = first(
      "NCCL version 2.18.3+cuda12.2\nh:1:2 [0] misc/argcheck.cc:14 NCCL WARN AllReduce : sendbuff "
      "(nil) is not a valid pointer\n");
  EXPECT_TRUE(ReadsAs(null, "enq-invalid-pointer", "The buffer pointer is NULL"));
  const Finding host = first(
      "NCCL version 2.18.3+cuda12.2\nh:1:2 [0] misc/argcheck.cc:14 NCCL WARN AllReduce : sendbuff "
      "0x7f3a2c000000 is not a valid pointer\n");
  EXPECT_FALSE(Contains(host.cause, "The buffer pointer is NULL"));
}

// NVML's wrapper WARNs a missing mandatory symbol (src/misc/nvmlwrap.cc:55 @ v2.11.4-1): 2.4-2.7
// fail init on it (src/graph/xml.cc:661 @ v2.7.8-1), 2.8-2.11 go on without NVML.
TEST(NcclMessage, NvmlSymbolMissingBefore2_12) {
  const std::string warn =
      "h:1:2 [0] misc/nvmlwrap.cc:55 NCCL WARN dlsym failed on nvmlDeviceGetCudaComputeCapability "
      "- "
      "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: undefined symbol: "
      "nvmlDeviceGetCudaComputeCapability\n";
  const Finding later = first("NCCL version 2.11.4+cuda11.4\n" + warn);
  EXPECT_TRUE(ReadsAs(later, "legacy-nvml-symbol-missing", Severity::kWarning));
  const Finding early = first(
      "NCCL version 2.7.8+cuda11.0\n" +
      std::string(
          "h:1:2 [0] misc/nvmlwrap.cc:58 NCCL WARN dlsym failed on nvmlDeviceGetIndex - "
          "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetIndex\n"));
  EXPECT_TRUE(ReadsAs(early, "legacy-nvml-symbol-missing", Severity::kError));
  EXPECT_TRUE(DoesNotRead(later, "gdrcopy-lib-missing"));
}

// RCCL prints hipIpcGetMemHandle where NCCL prints cudaIpcGetMemHandle, and has no cuMem path:
// NCCL_CUMEM_ENABLE=0 is no cause there.
TEST(NcclMessage, HipIpcHandleFailureIsNotACumemSetting) {
  const std::string env = "h:1:2 [0] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0.\n";
  const Finding nvidia = first("NCCL version 2.23.4+cuda12.6\n" + env +
                               "h:1:2 [0] transport/p2p.cc:250 NCCL WARN cudaIpcGetMemHandle "
                               "failed : invalid argument\n");
  EXPECT_TRUE(HasCause(nvidia, "NCCL_CUMEM_ENABLE=0 forces legacy CUDA IPC"));
  const Finding amd = first("RCCL version 2.20.5+hip6.2\n" + env +
                            "h:1:2 [0] transport/p2p.cc:250 NCCL WARN hipIpcGetMemHandle failed : "
                            "invalid argument\n");
  EXPECT_FALSE(Contains(amd.cause, "NCCL_CUMEM_ENABLE=0 forces"));
}

// The checkpoint shim's non-zero ranks wait up to NCCL_CHECKPOINT_KVS_TIMEOUT for the id rank 0
// puts in the store (contrib/nccl_checkpoint/shim_checkpoint.cc:122-132 @ v2.30.7-1).
TEST(NcclMessage, CheckpointRestoreUidWaitIsRankZerosWrite) {
  const Finding uid = first(
      "NCCL version 2.30.7+cuda13.0\nh:1:2 [3] shim_checkpoint.cc:132 NCCL WARN "
      "ncclCheckpointRestore: failed to get uid restore/00000000000000ab/uid\n");
  EXPECT_TRUE(HasCause(uid, "A non-zero rank waited for the restore unique id"));
  const Finding parent = first(
      "NCCL version 2.30.7+cuda13.0\nh:1:2 [3] shim_checkpoint.cc:153 NCCL WARN "
      "ncclCheckpointRestore: split parent 0x5f00 has no real communicator\n");
  EXPECT_FALSE(Contains(parent.cause, "A non-zero rank waited"));
}

}  // namespace
}  // namespace trainready::test
