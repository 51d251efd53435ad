#include <gtest/gtest.h>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_recognise.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-known-signature";

TEST(NcclKnownSignature, FiresOnDockerShmWarnWithoutHostPrefix) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/nccl342-docker-shm-posix-fallocate-nccl2.7.3.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("shm-exhausted"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--shm-size"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("NVIDIA/nccl#342"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.front().where.line, 1);
}

// "failed to extend": a full /dev/shm only where the sizing call reserves space (fallocate, 2.19+);
// 2.12-2.18's ftruncate reserves none, and mkstemp's failure, which 2.12-2.21 do not check, is
// named in the confirmation (src/misc/shmutils.cc @ v2.18.1-1, v2.19.3-1).
TEST(NcclKnownSignature, ShmExtendFailureIsReadByTheReleasesSizingCall) {
  const auto cause = [](const std::string& version, const std::string& path) {
    const RuleOutcome o = log_rule(
        kId, log_text(version + "h:1:2 [0] misc/shmutils.cc:71 NCCL WARN Error: failed to extend " +
                      path + " to 9637892 bytes\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(
      cause("NCCL version 2.18.3+cuda12.2\n", "/dev/shm/nccl-abc123").rfind("NCCL 2.12 to 2.18", 0),
      0u);
  EXPECT_EQ(cause("NCCL version 2.19.3+cuda12.2\n", "/dev/shm/nccl-abc123")
                .rfind("NCCL (2.7 and later) puts", 0),
            0u);
}

// 2.30's shared memory is set up in os/linux.cc: a CUDA failure there is the SHM segment's
// registration (cudaHostRegister, src/os/linux.cc:828-831 @ v2.30.7-1).
TEST(NcclKnownSignature, ShmRegistrationIn230IsReadInOsLinux) {
  const RuleOutcome o = log_rule(
      "nccl-message",
      log_text("h:1:2 [0] os/linux.cc:829 NCCL WARN Cuda failure 'operation not supported'\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("shm-cuda-register-failed"), std::string::npos)
      << o.findings[0].message;
}

// NVLS forced with NCCL_NVLS_ENABLE=1 and the bind failed: the fix sets it to 0, since from 2.29
// NCCL enables NVLS by itself and fails on this error with the variable unset too.
TEST(NcclKnownSignature, ForcedNvlsBindFailureIsFixedByZeroNotUnset) {
  const RuleOutcome o = log_rule(
      "nccl-message",
      log_text("h:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 1.\n"
               "h:1:2 [0] transport/nvls.cc:376 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
               "Multicast memory of size 1073741824 : CUDA error 401 'the operation cannot be "
               "performed in the present state'\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_EQ(o.findings[0].cause.rfind("NVLS was forced with NCCL_NVLS_ENABLE=1", 0), 0u)
      << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.rfind("Set NCCL_NVLS_ENABLE=0.", 0), 0u) << o.findings[0].fix;
}

// The AWS builds of aws-ofi-nccl refuse a provider other than EFA (src/nccl_ofi_net.c:1288 @
// v1.3.0-aws): on one instance harmless, a warning, and the init failure after it is read as
// that, not as EFA devices missing from a container (aws/aws-ofi-nccl#174); across instances
// the traffic goes over TCP sockets.
TEST(NcclKnownSignature, OnlyEfaProviderIsNoEfaDeviceHarmlessOnOneInstance) {
  const std::string one =
      "algo-1:249:249 [0] ofi_init:1288 NCCL WARN NET/OFI Only EFA provider is supported\n"
      "algo-1:249:249 [0] ofi_init:1339 NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n";
  RuleOutcome o = log_rule(kId, log_text(one));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[ofi-only-efa-provider]"), std::string::npos);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(o.findings[0].cause.rfind("Harmless on one instance", 0), 0u) << o.findings[0].cause;
  const RuleOutcome init = log_rule("nccl-message", log_text(one));
  ASSERT_EQ(init.findings.size(), 1u);
  EXPECT_EQ(init.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(init.findings[0].cause.rfind("The init failed at the provider check", 0), 0u)
      << init.findings[0].cause;
  // Across instances: TCP sockets between them.
  const RuleOutcome two = log_rule(
      kId, log_text(one + "algo-2:250:250 [0] ofi_init:1288 NCCL WARN NET/OFI Only EFA provider "
                          "is supported\n"));
  ASSERT_EQ(two.findings.size(), 1u);
  EXPECT_EQ(two.findings[0].cause.rfind("Between instances NCCL carries the traffic", 0), 0u)
      << two.findings[0].cause;
  // Without the provider check before it, the init failure keeps its own reading (an error).
  const RuleOutcome alone = log_rule(
      "nccl-message",
      log_text("algo-1:249:249 [0] ofi_init:1339 NCCL WARN NET/OFI aws-ofi-nccl initialization "
               "failed\n"));
  ASSERT_EQ(alone.findings.size(), 1u);
  EXPECT_EQ(alone.findings[0].severity, Severity::kError);
  EXPECT_EQ(alone.findings[0].cause.rfind("The EFA devices are not usable in this process", 0), 0u)
      << alone.findings[0].cause;
}

// A bootstrap connect to Docker's default bridge (172.17.0.0/16: THUDM/GLM#173, two hosts whose
// containers ran with bridge networking) is host networking's fix, not NCCL_SOCKET_IFNAME's; a
// routable peer address keeps the interface reading.
TEST(NcclKnownSignature, ABootstrapConnectToDockersBridgeIsHostNetworking) {
  const auto fix = [](const std::string& addr) {
    const RuleOutcome o = log_rule(
        kId,
        log_text("595d69b310a0:48344:48664 [0] include/socket.h:409 NCCL WARN Net : Connect to " +
                 addr +
                 "<34147> failed : No route to host\n"
                 "595d69b310a0:48344:48664 [0] NCCL INFO bootstrap.cc:360 -> 2\n"
                 "595d69b310a0:48344:48664 [0] NCCL INFO init.cc:501 -> 2\n"));
    return o.findings.empty() ? std::string() : o.findings[0].fix;
  };
  EXPECT_EQ(fix("172.17.0.6").rfind("Run the containers with host networking", 0), 0u)
      << fix("172.17.0.6");
  EXPECT_EQ(fix("10.20.0.6").rfind("Set NCCL_SOCKET_IFNAME", 0), 0u) << fix("10.20.0.6");
  // 172.17.0.0/16 as a routed network of hosts that show no container: the interface reading.
  const RuleOutcome routed = log_rule(
      kId, log_text("gpu-node-07:48344:48664 [0] include/socket.h:409 NCCL WARN Net : Connect to "
                    "172.17.4.21<34147> failed : No route to host\n"
                    "gpu-node-07:48344:48664 [0] NCCL INFO bootstrap.cc:360 -> 2\n"));
  ASSERT_FALSE(routed.findings.empty());
  EXPECT_EQ(routed.findings[0].fix.rfind("Set NCCL_SOCKET_IFNAME", 0), 0u)
      << routed.findings[0].fix;
}

TEST(NcclKnownSignature, ReadsAnInfoLineNoParserPatternKnows) {
  // 2.25.1 on an RTX 5090 prints the decisive line at INFO level.
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/nccltests287-rtx5090-maxsharedmem-nccl2.25.1.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("too old for this GPU"), std::string::npos);
  EXPECT_GT(o.findings[0].rank, 90);
}

TEST(NcclKnownSignature, ReadsPyTorchsLastErrorLine) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/dfine289-pytorch-duplicate-gpu-nccl2.19.3.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("same GPU"), std::string::npos);
}

// The bootstrap-socket reading: a socket error before init completes blames the interface; the
// same trace after a rank completed init is a peer that died, not bootstrap (the entry's first
// cause, selected by `log_has: Init COMPLETE`).
TEST(NcclKnownSignature, SocketTraceIsBootstrapOnlyBeforeInitCompletes) {
  const std::string start =
      "vm-a:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
      "vm-a:100:100 [0] NCCL INFO ncclCommInitRank comm 0x55a1 rank 0 nranks 2 cudaDev 0 "
      "nvmlDev 0 busId 1c000 commId 0x1234 - Init START\n";
  const std::string trace = "vm-a:100:120 [0] NCCL INFO misc/socket.cc:564 -> 6\n";
  NcclRunFacts before = log_text(start + trace);
  RuleOutcome o = log_rule(kId, before);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
  NcclRunFacts after =
      log_text(start +
               "vm-a:100:100 [0] NCCL INFO ncclCommInitRank comm 0x55a1 rank 0 nranks 2 cudaDev 0 "
               "nvmlDev 0 busId 1c000 commId 0x1234 - Init COMPLETE\n" +
               trace);
  o = log_rule(kId, after);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos) << o.findings[0].fix;
  EXPECT_NE(o.findings[0].cause.find("peer process died"), std::string::npos);
}

// CUDA text NCCL passes through (data/nccl-kb/passthrough.yaml) is read with its own source.
TEST(NcclKnownSignature, ReadsCudaTextNcclPassesThrough) {
  RuleOutcome o = log_rule(kId, log_text("vm-a:1:2 [0] enqueue.cc:12 NCCL WARN Cuda failure "
                                         "'system not yet initialized'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("cuda-system-not-ready"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("fabricmanager"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("cudaErrorSystemNotReady"), std::string::npos);
}

// cudaErrorCallRequiresNewerDriver (36) at 2.9.6 / 2.9.8's enqueue.cc:802 is NCCL's CUDA-graph
// query on a pre-R465 driver (fixed in 2.9.9; NVIDIA/nccl#496); elsewhere the runtime is newer
// than the driver.
TEST(NcclKnownSignature, CallRequiresNewerDriverAtTheGraphQueryIsNccl29) {
  const auto first = [](const std::string& place) {
    const RuleOutcome o = log_rule(
        kId, log_text("8470dd07de42:174:239 [0] " + place +
                      " NCCL WARN Cuda failure 'API call is not supported in the installed CUDA "
                      "driver'\n"));
    return o.findings.empty() ? Finding{} : o.findings[0];
  };
  const Finding graph = first("enqueue.cc:802"), other = first("init.cc:120");
  EXPECT_NE(graph.message.find("cuda-err-requires-newer-driver"), std::string::npos)
      << graph.message;
  EXPECT_EQ(graph.cause.rfind("NCCL 2.9.6 and 2.9.8", 0), 0u) << graph.cause;
  EXPECT_NE(graph.fix.find("2.9.9"), std::string::npos);
  EXPECT_EQ(other.cause.rfind("The CUDA runtime NCCL", 0), 0u) << other.cause;
}

// RCCL (ROCm) checks the host at init and warns in NCCL's format (data/nccl-kb/rccl.yaml, its
// src/init.cc); a warning cut where a pasted excerpt ends is still read (ROCm/vllm#390).
TEST(NcclKnownSignature, ReadsRcclsOwnHostChecks) {
  RuleOutcome o = log_rule(
      kId, log_text("supllm:402:402 [0] /opt/rccl/src/init.cc:179 NCCL WARN Missing \"iommu=pt\" "
                    "from\nsupllm:402:402 [0] NCCL INFO RCCL version : 2.22.3-HEAD:271856d\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("rccl-iommu-pt-missing"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("GRUB_CMDLINE_LINUX_DEFAULT"), std::string::npos);
  EXPECT_EQ(o.findings[0].cause.rfind("The host was booted without iommu=pt", 0), 0u);
  o = log_rule(kId, log_text("h:1:1 [0] init.cc:115 NCCL WARN NUMA auto balancing enabled which "
                             "can lead to variability in the RCCL performance! Disable by "
                             "\"sudo sysctl kernel.numa_balancing=0\"\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  // RCCL 2.16.5-2.17.1 read 254 bytes of /proc/cmdline and also asked for amd_iommu=on: there the
  // iommu=pt warning may be false, and the amd_iommu=on one is a note.
  o = log_rule(kId, log_text("g:1:1 [0] init.cpp:120 NCCL WARN Missing \"amd_iommu=on\" from "
                             "kernel command line which can lead to system instablity or hang!\n"
                             "g:1:1 [0] init.cpp:122 NCCL WARN Missing \"iommu=pt\" from kernel "
                             "command line which can lead to system instablity or hang!\n"
                             "RCCL version 2.16.5+hip5.6 HEAD:3dcebc7+\n"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_NE(o.findings[0].message.find("rccl-iommu-pt-missing"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("254 bytes"), std::string::npos);
  EXPECT_NE(o.findings[1].message.find("rccl-amd-iommu-on-missing"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kInfo);
  // NCCL's own IOMMU words are not RCCL's warning.
  o = log_rule(kId, log_text("h:1:1 [0] NCCL INFO Kernel version: 6.8.0 iommu=pt\n"));
  EXPECT_TRUE(o.findings.empty());
}

// The HIP runtime's own texts (data/nccl-kb/hip-runtime.yaml, ROCm/clr's source), and a CUDA text
// HIP shares read with the AMD cause where the log is RCCL's (`when: {rccl: true}`): its version
// line, or a WARN printed from RCCL's hipify/ build directory; NVIDIA's log keeps NVIDIA's cause
// and is not offered the AMD one.
TEST(NcclKnownSignature, ReadsTheHipRuntimesTextsAndRcclsCauses) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] misc/rocmwrap.cc:120 NCCL WARN Cuda failure "
                                         "'no ROCm-capable device is detected'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("hip-no-device"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--device=/dev/kfd"), std::string::npos);
  // The runtime's own line (AMD_LOG_LEVEL=1) has no NCCL head: the CLI reads it through the
  // knowledge base's recogniser, as any producer's text without one.
  const auto runtime = NcclTextRecogniser(NcclKnowledgeBase::builtin())
                           .read(
                               ":1:hip_code_object.cpp      :571 : 2143 us: [pid:77 tid: 0x7f01] "
                               "hipErrorNoBinaryForGpu: Unable to find code object for all "
                               "current devices!");
  ASSERT_TRUE(runtime.has_value());
  EXPECT_EQ(runtime->entry->id, "hip-no-code-object-for-gpu");
  const auto isa = NcclTextRecogniser(NcclKnowledgeBase::builtin())
                       .read(
                           ":1:rocdevice.cpp            :707 : 1234 us: [pid:9 tid: 0x7f] "
                           "Unsupported HSA device gfx1151 (PCI ID 1586) for ISA "
                           "amdgcn-amd-amdhsa--gfx1151");
  ASSERT_TRUE(isa.has_value());
  EXPECT_EQ(isa->entry->id, "hip-unsupported-isa");
  const std::string no_image =
      "NCCL WARN Cuda failure 'no kernel image is available for execution on the device'\n";
  for (const std::string& head :
       {std::string("h:1:1 [0] NCCL INFO RCCL version : 2.20.5-HEAD:abc\nh:1:2 [0] enqueue.cc:9 "),
        std::string("h:1:2 [0] /b/rccl/hipify/src/enqueue.cc:9 ")}) {
    o = log_rule(kId, log_text(head + no_image));
    ASSERT_EQ(o.findings.size(), 1u) << head;
    EXPECT_NE(o.findings[0].message.find("no-kernel-image"), std::string::npos);
    EXPECT_EQ(o.findings[0].cause.rfind("The log is RCCL's", 0), 0u) << head;
  }
  o = log_rule(kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nh:1:2 [0] "
                             "enqueue.cc:9 " +
                             no_image));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("RCCL"), std::string::npos) << o.findings[0].cause;
  EXPECT_NE(o.findings[0].cause.find("NCCL library was built"), std::string::npos);
  // No version, no RCCL place: NVIDIA's cause leads, AMD's stays among the others.
  o = log_rule(kId, log_text("h:1:2 [0] enqueue.cc:9 " + no_image));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.rfind("The NCCL library was built", 0), 0u);
  // RCCL's P2P setup failing with a HIP error CUDA shares ("invalid argument", ROCm/rccl#1454's
  // line): AMD's driver cause; NCCL's p2p.cc keeps NVIDIA's.
  o = log_rule(kId, log_text("U:1:2 [0] /usr/src/debug/rccl/build/hipify/src/transport/p2p.cc:237 "
                             "NCCL WARN Cuda failure 'invalid argument'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("amdgpu-dkms"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  o = log_rule(kId, log_text("h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nh:1:2 [0] "
                             "transport/p2p.cc:237 NCCL WARN Cuda failure 'invalid argument'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("amdgpu"), std::string::npos);
  // An excerpt with no version from another file: AMD's p2p cause is not among the others.
  o = log_rule(kId, log_text("h:1:2 [0] enqueue.cc:70 NCCL WARN Cuda failure 'invalid "
                             "argument'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("amdgpu"), std::string::npos) << o.findings[0].cause;
  // HIP's own text for a GPU the RCCL build has no code for (ROCm/rccl#876's line).
  o = log_rule(kId, log_text("c:7:9 [0] /b/rccl/build/hipify/src/enqueue.cc:66 NCCL WARN Cuda "
                             "failure 'invalid kernel file'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("hip-invalid-kernel-file"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("GPU_TARGETS"), std::string::npos);
  // NCCL's own texts are not HIP's.
  o = log_rule(kId, log_text("h:1:2 [0] NCCL WARN Cuda failure 'no CUDA-capable device is "
                             "detected'\n"));
  for (const Finding& x : o.findings) EXPECT_EQ(x.message.find("hip-"), std::string::npos);
}

// A bug NCCL fixed in a later release (data/nccl-kb/fixed-in.yaml: the 2.19.1-2.21.4 bootstrap
// barrier, "instead of 4") takes its line from the signatures only under a release that has it;
// from the fixed release on, the signature that reads "Message truncated" keeps it.
TEST(NcclKnownSignature, AFixedBugTakesItsLineOnlyBeforeTheFix) {
  auto run = [](const std::string& version) {
    return log_rule(kId, log_text("vm-a:100:100 [0] NCCL INFO NCCL version " + version +
                                  "+cuda12.2\nvm-a:100:120 [0] bootstrap.cc:77 NCCL WARN "
                                  "Message truncated : received 256 bytes instead of 4\n"));
  };
  auto names_it = [](const RuleOutcome& o) {
    for (const Finding& f : o.findings)
      if (f.message.find("collective-mismatch") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(names_it(run("2.19.3")));
  EXPECT_TRUE(names_it(run("2.21.5")));
}

// The dynamic loader's "version `X' not found" that NCCL prints as dlerror: the version's name
// says whose library is too old (rdma-core's libefa / libibverbs, glibc, libfabric), read from the
// line itself; a name none of them owns gets the general cause.
TEST(NcclKnownSignature, LoaderVersionNameSaysWhoseLibraryIsOld) {
  auto cause_of = [](const std::string& lib, const std::string& version,
                     const std::string& by = "/opt/amazon/efa/lib/libfabric.so.1") {
    RuleOutcome o = log_rule(
        kId, log_text("ip-10-0-1-2:1234:1234 [0] NCCL INFO NET/Plugin: Plugin load "
                      "(libnccl-net.so) returned 2 : " +
                      lib + ": version `" + version + "' not found (required by " + by + ")\n"));
    EXPECT_EQ(o.findings.size(), 1u) << version;
    if (o.findings.empty()) return std::string();
    EXPECT_NE(o.findings[0].message.find("loader-symbol-version-not-found"), std::string::npos);
    return o.findings[0].cause;
  };
  EXPECT_EQ(cause_of("/usr/lib/x86_64-linux-gnu/libefa.so.1", "EFA_1.4").find("EFA_x.y"), 0u);
  EXPECT_EQ(cause_of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "IBVERBS_1.14").find("IBVERBS_"),
            0u);
  // A private ABI fails with a newer library as with an older one
  // (NVIDIA-NeMo/Megatron-Bridge#2824: HPC-X's libibverbs under the system's libefa).
  EXPECT_EQ(cause_of("/opt/hpcx/ucx/lib/libibverbs.so.1", "IBVERBS_PRIVATE_34",
                     "/usr/lib/x86_64-linux-gnu/libefa.so.1")
                .find("IBVERBS_PRIVATE_N"),
            0u);
  EXPECT_EQ(cause_of("/lib/x86_64-linux-gnu/libc.so.6", "GLIBC_2.34").find("GLIBC_x.y"), 0u);
  // A paste that wrapped the line after "(required by" is read too (Megatron-Bridge#2824).
  const RuleOutcome wrapped =
      log_rule(kId, log_text("  NCCL INFO NET/Plugin: libnccl-net-ofi.so: /opt/rdma-core/build/lib/"
                             "libibverbs.so.1: version `IBVERBS_PRIVATE_34' not found (required "
                             "by\n  /usr/lib/x86_64-linux-gnu/libefa.so.1)\n"));
  ASSERT_EQ(wrapped.findings.size(), 1u);
  EXPECT_EQ(wrapped.findings[0].cause.find("IBVERBS_PRIVATE_N"), 0u);
  EXPECT_EQ(cause_of("/opt/amazon/efa/lib/libfabric.so.1", "FABRIC_1.7").find("The network plugin"),
            0u);
  EXPECT_EQ(cause_of("/usr/lib/libfoo.so.1", "FOO_2.0", "/usr/lib/libbar.so.2")
                .find("The library named first"),
            0u);
}

// -2147483648 is NCCL_CONFIG_UNDEF_INT, which NCCL_CONFIG_INITIALIZER sets from 2.17: a program
// built against 2.17+'s nccl.h ran on a 2.14-2.16 libnccl (src/nccl.h.in @ v2.17.1-1,
// src/init.cc:1304 @ v2.16.5-1); any other out-of-range value is the program's own.
TEST(NcclKnownSignature, UndefinedConfigValueIsAnOlderLibncclLoaded) {
  const auto cause = [](const std::string& value) {
    const RuleOutcome o =
        log_rule("nccl-message", log_text("h:1:2 [0] init.cc:1305 NCCL WARN Invalid config "
                                          "blocking attribute value " +
                                          value + "\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(cause("-2147483648").rfind("The value -2147483648 is NCCL_CONFIG_UNDEF_INT", 0), 0u)
      << cause("-2147483648");
  EXPECT_EQ(cause("2").find("NCCL_CONFIG_UNDEF_INT"), std::string::npos) << cause("2");
}

// CUDA documents 999 only as "an unknown internal error": the reading asks for an Xid before it
// calls the GPU faulty (NVIDIA/nccl#1653, a WSL 2 desktop); a launch failure is read as a fault.
TEST(NcclKnownSignature, UnknownCudaErrorIsNoProofOfAHardwareFault) {
  const auto cause = [](const std::string& err) {
    const RuleOutcome o =
        log_rule(kId, log_text("h:1:2 [0] include/alloc.h:112 NCCL WARN Cuda failure " + err +
                               "\nh:1:2 [0] NCCL INFO include/alloc.h:120 -> 1\n"));
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  EXPECT_EQ(cause("999 'unknown error'").rfind("\"unknown error\" is cudaErrorUnknown (999)", 0),
            0u)
      << cause("999 'unknown error'");
  const std::string launch = cause("719 'unspecified launch failure'");
  EXPECT_NE(launch.find("Xid"), std::string::npos) << launch;
  EXPECT_EQ(launch.find("cudaErrorUnknown (999), which"), std::string::npos) << launch;
}

TEST(NcclKnownSignature, QuietOnAHealthyRun) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"))
                  .findings.empty());
}

// Family 0 is the mixed-version garbage; family 1 (AF_UNIX) cannot come from this host's settings
// (NCCL keeps only IPv4/IPv6 interfaces and resolves NCCL_COMM_ID with getaddrinfo): the unique id
// or a peer's data, another cause of the same entry.
TEST(NcclKnownSignature, AddressFamilyZeroIsMixedVersionsOthersAreNot) {
  auto run = [](const std::string& family) {
    return log_rule(kId, log_text("h:1:2 [0] misc/socket.cc:710 NCCL WARN ncclSocketInit: "
                                  "connecting to address  with family " +
                                  family + " is neither AF_INET(2) nor AF_INET6(10)\n"));
  };
  RuleOutcome zero = run("0"), one = run("1");
  ASSERT_EQ(zero.findings.size(), 1u);
  ASSERT_EQ(one.findings.size(), 1u);
  EXPECT_NE(zero.findings[0].fix.find("one NCCL version"), std::string::npos);
  EXPECT_EQ(one.findings[0].fix.find("one NCCL version"), std::string::npos);
  EXPECT_NE(one.findings[0].fix.find("ncclUniqueId unchanged"), std::string::npos)
      << one.findings[0].fix;
  // A number no address family has (AF_MAX is 46): bytes that are not an address, the 2.16
  // unique id read by an older rank (NVIDIA/nccl-tests#294's 33621), or an id rank 0's failed
  // ncclGetUniqueId never wrote (NVIDIA/nccl#1837: NCCL_SOCKET_IFNAME naming no interface); 45 is
  // still a family.
  RuleOutcome garbage = run("33621"), mctp = run("45");
  ASSERT_EQ(garbage.findings.size(), 1u);
  EXPECT_EQ(garbage.findings[0].cause.rfind("No address family has that number", 0), 0u)
      << garbage.findings[0].cause;
  EXPECT_EQ(garbage.findings[0].fix.rfind("Use one NCCL release", 0), 0u);
  EXPECT_NE(garbage.findings[0].fix.find("ncclGetUniqueId succeeded"), std::string::npos);
  ASSERT_EQ(mctp.findings.size(), 1u);
  EXPECT_NE(mctp.findings[0].cause.rfind("No address family has that number", 0), 0u);
}

// misc/socket.cc fails for bootstrap, a network transport and the proxy alike: a trail whose
// callers are the NET/Socket transport's is not a bootstrap failure (bootstrap-socket-failure's
// not_via), one through bootstrap.cc is.
TEST(NcclKnownSignature, SocketTrailThroughATransportIsNotBootstrap) {
  const std::string warn =
      "user:16899:16961 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3\n"
      "user:16899:16961 [0] NCCL INFO misc/socket.cc:561 -> 3\n"
      "user:16899:16961 [0] NCCL INFO misc/socket.cc:586 -> 3\n";
  RuleOutcome o = log_rule(
      kId, log_text(warn + "user:16899:16961 [0] NCCL INFO transport/net_socket.cc:378 -> 3\n"));
  for (const Finding& x : o.findings)
    EXPECT_EQ(x.message.find("bootstrap-socket-failure"), std::string::npos) << x.message;
  o = log_rule(kId, log_text(warn + "user:16899:16961 [0] NCCL INFO bootstrap.cc:320 -> 3\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
  // 2.24+: bootstrap is itself called from transport/generic.cc (ring and tree connect): the
  // nearest caller of misc/socket.cc decides, not the ones above it.
  o = log_rule(kId, log_text("h:1:2 [0] NCCL INFO misc/socket.cc:582 -> 6\n"
                             "h:1:2 [0] NCCL INFO misc/socket.cc:809 -> 6\n"
                             "h:1:2 [0] NCCL INFO bootstrap.cc:707 -> 6\n"
                             "h:1:2 [0] NCCL INFO transport.cc:152 -> 6\n"
                             "h:1:2 [0] NCCL INFO transport/generic.cc:19 -> 6\n"
                             "h:1:2 [0] NCCL INFO init.cc:1500 -> 6\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
  // The caller printed its own WARN instead of a trace (the NET/Socket helper thread's "socket
  // progress error", horovod/horovod#3611), even with the paste's host name cut: the same thread.
  o = log_rule(kId, log_text("[15]worker-23:83:2526 [0] misc/socket.cc:503 NCCL WARN Net : Call "
                             "to recv from 100.96.188.199<41468> failed : Connection timed out\n"
                             "[15]worker-23:83:2526 [0] NCCL INFO misc/socket.cc:520 -> 2\n"
                             "[15]23:83:2526 [0] transport/net_socket.cc:219 NCCL WARN "
                             "NET/Socket : socket progress error\n"));
  for (const Finding& x : o.findings)
    EXPECT_EQ(x.message.find("bootstrap-socket-failure"), std::string::npos) << x.message;
  // Another host's thread of the same pid:tid (containers) is not that trail's caller either.
  o = log_rule(kId, log_text("nodeA:83:2526 [0] NCCL INFO misc/socket.cc:520 -> 2\n"
                             "nodeB:83:2526 [0] transport/net_socket.cc:219 NCCL WARN NET/Socket : "
                             "socket progress error\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
  // Another thread's WARN is not that trail's caller.
  o = log_rule(kId, log_text("w1:83:2526 [0] NCCL INFO misc/socket.cc:520 -> 2\n"
                             "w1:83:2999 [0] transport/net_socket.cc:219 NCCL WARN NET/Socket : "
                             "socket progress error\n"));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
}

// EBADF from accept(2): the listening descriptor was closed under the waiting thread (an abort, a
// failure on another thread of a multi-GPU process, a double close), not the network.
TEST(NcclKnownSignature, AcceptOnAClosedDescriptorIsNotTheInterface) {
  const std::string log =
      "u:275204:275658 [4] misc/socket.cc:415 NCCL WARN socketTryAccept: Accept failed: Bad file "
      "descriptor\n"
      "u:275204:275658 [4] NCCL INFO misc/socket.cc:559 -> 2\n"
      "u:275204:275658 [4] NCCL INFO misc/socket.cc:666 -> 2\n"
      "u:275204:275658 [4] NCCL INFO bootstrap.cc:280 -> 2\n";
  RuleOutcome o = log_rule(kId, log_text(log));
  ASSERT_FALSE(o.findings.empty());
  EXPECT_NE(o.findings[0].message.find("bootstrap-socket-failure"), std::string::npos);
  EXPECT_EQ(o.findings[0].cause.rfind("The listening socket was closed", 0), 0u)
      << o.findings[0].cause;
  RuleOutcome m = log_rule("nccl-message", log_text(log));
  ASSERT_FALSE(m.findings.empty());
  EXPECT_NE(m.findings[0].cause.find("EBADF"), std::string::npos) << m.findings[0].cause;
}

// 'invalid argument' from include/alloc.h is NCCL's own cuMem allocation on this GPU
// (ncclCuMemAlloc's cuMemCreate at :102 @ v2.19.3-1; NVIDIA/nccl#1283, one process driving two
// GPUs), not a peer's handle it could not import; the same text from p2p.cc keeps that reading.
TEST(NcclKnownSignature, InvalidArgumentFromAllocIsTheLocalCuMemAllocation) {
  auto run = [](const std::string& where) {
    return log_rule(kId,
                    log_text("n176:2657296:2658232 [0] " + where +
                             " NCCL WARN Cuda failure 1 'invalid argument'\n"
                             "n176:2657296:2658232 [0] NCCL INFO transport/p2p.cc:260 -> 1\n"));
  };
  const RuleOutcome alloc = run("include/alloc.h:102"), p2p = run("transport/p2p.cc:192");
  ASSERT_EQ(alloc.findings.size(), 1u);
  EXPECT_NE(alloc.findings[0].message.find("[cuda-err-invalid-argument]"), std::string::npos);
  EXPECT_EQ(alloc.findings[0].cause.rfind("The failing call is NCCL's own allocation", 0), 0u)
      << alloc.findings[0].cause;
  EXPECT_EQ(alloc.findings[0].fix.rfind("Set NCCL_CUMEM_ENABLE=0", 0), 0u);
  ASSERT_EQ(p2p.findings.size(), 1u);
  EXPECT_EQ(p2p.findings[0].cause.rfind("A memory handle from a peer", 0), 0u)
      << p2p.findings[0].cause;
}

// "No interface found in the same subnet as remote address" is printed only when NCCL_COMM_ID is
// set (ncclFindInterfaceMatchSubnet): its own reading, NCCL_COMM_ID's address, not
// NCCL_SOCKET_IFNAME, which that path does not read (NVIDIA/nccl#929, #331). A bare "no socket
// interface found" keeps the interface-setting reading.
TEST(NcclKnownSignature, CommIdSubnetIsNcclCommIdNotTheSocketInterface) {
  const RuleOutcome id = log_rule(
      kId, log_text("d9be:1791:1791 [0] misc/socket.cc:237 NCCL WARN Net : No interface found in "
                    "the same subnet as remote address 10.1.2.3<1778>\n"
                    "d9be:1791:1791 [0] bootstrap.cc:39 NCCL WARN NET/Socket : No usable "
                    "listening interface found\n"));
  ASSERT_GE(id.findings.size(), 1u);
  EXPECT_NE(id.findings[0].message.find("[socket-comm-id-no-subnet]"), std::string::npos)
      << id.findings[0].message;
  for (const Finding& x : id.findings) {
    EXPECT_NE(x.cause.find("NCCL_COMM_ID"), std::string::npos) << x.cause;
    EXPECT_EQ(x.fix.rfind("Set NCCL_SOCKET_IFNAME", 0), std::string::npos) << x.fix;
  }
  const RuleOutcome bare = log_rule(
      kId, log_text("h:1:1 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found\n"));
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_NE(bare.findings[0].message.find("[no-socket-interface]"), std::string::npos);
  EXPECT_EQ(bare.findings[0].cause.rfind("NCCL_SOCKET_IFNAME", 0), 0u) << bare.findings[0].cause;
}

// 711 "peer mapping resources exhausted" is CUDA's per-GPU peer limit, hit by one process over
// 10 GPUs (NVIDIA/nccl-tests#324, which had NCCL_P2P_DISABLE=1 already), not ACS; 217 keeps the
// P2P-unavailable reading.
TEST(NcclKnownSignature, TooManyPeersIsTheProcessGpuCount) {
  const auto run = [](const std::string& err) {
    return log_rule(kId,
                    log_text("h:1:1 [0] allocator.cc:79 NCCL WARN Cuda failure " + err + "\n"));
  };
  const RuleOutcome many = run("711 'peer mapping resources exhausted'");
  ASSERT_EQ(many.findings.size(), 1u);
  EXPECT_NE(many.findings[0].cause.find("cudaErrorTooManyPeers"), std::string::npos)
      << many.findings[0].cause;
  EXPECT_EQ(many.findings[0].fix.find("NCCL_P2P_DISABLE"), std::string::npos);
  const RuleOutcome peer = run("217 'peer access is not supported between these two devices'");
  ASSERT_EQ(peer.findings.size(), 1u);
  EXPECT_EQ(peer.findings[0].cause.rfind("P2P or CUDA IPC is not available", 0), 0u)
      << peer.findings[0].cause;
  // 800 from MNNVL's FABRIC test allocation (NVIDIA/nccl#1925): the IMEX channel, not PCIe P2P.
  const RuleOutcome imex = log_rule(
      kId, log_text("h:1:1 [0] include/alloc.h:228 NCCL WARN Cuda failure 800 'operation not "
                    "permitted'\n"
                    "h:1:1 [0] mnnvl.cc:67 NCCL WARN MNNVL (cliqueSize 8) is available but not "
                    "working on this system. Check the IMEX channel configuration "
                    "(/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this "
                    "issue.\n"));
  ASSERT_FALSE(imex.findings.empty());
  EXPECT_EQ(imex.findings[0].cause.rfind("The failing call is MNNVL's test allocation", 0), 0u)
      << imex.findings[0].cause;
}

// 217 from NCCL's own P2P transport (ray-project/ray#16979, a worker per GPU): NCCL's IPC mapping,
// whose check it skips for an invisible peer device; the same text from anywhere else keeps the
// reading of a program's own peer mapping.
TEST(NcclKnownSignature, PeerAccessUnsupportedInNcclsP2pIsNcclsIpc) {
  const RuleOutcome nccl = log_rule(
      kId, log_text("dev:34272:34565 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC "
                    "handle : 217 peer access is not supported between these two devices\n"));
  ASSERT_FALSE(nccl.findings.empty());
  EXPECT_EQ(nccl.findings[0].cause.rfind("NCCL's own P2P transport", 0), 0u)
      << nccl.findings[0].cause;
  EXPECT_NE(nccl.findings[0].fix.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  // NCCL 2.3's p2p.cu (horovod/horovod#785: both ranks on device 0 of their own view).
  const RuleOutcome cu = log_rule(
      kId, log_text("h:2753:2762 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle "
                    ": 64 peer access is not supported between these two devices\n"));
  ASSERT_FALSE(cu.findings.empty());
  EXPECT_EQ(cu.findings[0].cause.rfind("NCCL's own P2P transport", 0), 0u) << cu.findings[0].cause;
  const RuleOutcome own = log_rule(
      kId, log_text("dev:34272:34565 [0] NCCL WARN cudaIpcOpenMemHandle failed : 217 peer access "
                    "is not supported between these two devices\n"));
  ASSERT_FALSE(own.findings.empty());
  EXPECT_EQ(own.findings[0].cause.rfind("NCCL's own P2P transport", 0), std::string::npos)
      << own.findings[0].cause;
}

// The proxy's cuMemExportToShareableHandle refused with 'invalid argument' for a peer
// (vllm-project/vllm#5477: vLLM with NCCL_CUMEM_ENABLE=0, the trainer without): the processes
// disagree on cuMem; the legacy import alone keeps the ordinary reading.
TEST(NcclKnownSignature, ProxyCuMemExportRefusedIsACuMemMismatch) {
  const std::string p2p =
      "a5fa:116812:120158 [0] transport/p2p.cc:272 NCCL WARN Cuda failure 'invalid argument'\n";
  // The proxy's WARN as releases before 2.30.7 print it, and as 2.30.7 does, with the function
  // after the place (src/include/debug.h's WARN head).
  for (const std::string head : {"proxy.cc:1336", "proxy.cc:1612 (proxyGetFd)"}) {
    const RuleOutcome both =
        log_rule(kId, log_text("a5fa:116812:120170 [0] " + head +
                               " NCCL WARN Cuda failure 1 'invalid argument'\n" + p2p));
    ASSERT_FALSE(both.findings.empty()) << head;
    EXPECT_EQ(both.findings[0].cause.rfind("Two processes of one communicator disagree", 0), 0u)
        << both.findings[0].cause;
    EXPECT_NE(both.findings[0].fix.find("NCCL_CUMEM_ENABLE"), std::string::npos);
  }
  const RuleOutcome one = log_rule(kId, log_text(p2p));
  ASSERT_FALSE(one.findings.empty());
  EXPECT_EQ(one.findings[0].cause.rfind("Two processes of one communicator disagree", 0),
            std::string::npos)
      << one.findings[0].cause;
}

}  // namespace
}  // namespace trainready::test
