// How the knowledge base picks the entry that reads a line: the file that printed it (in_file),
// a bug fixed after the log's release (fixed_in), a framework's copy of NCCL's last WARN, the
// WARN shapes of excerpts and old releases, and the WARN where the failure started.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "knowledge/nccl_hip_names.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "knowledge/nccl_shared_prefixes.h"
#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

const char* kKb = R"(subsystem: test
entries:
- id: generic-invalid-argument
  match: 'invalid argument'
  kind: passthrough
  what: a CUDA call rejected an argument
  severity: error
  rank: 88
  causes:
  - cause: generic
    fix: fix g
    confirm: check g
  source: CUDA runtime API
- id: nvls-cuda
  match: "Cuda failure (\\d+ )?'"
  level: WARN
  in_file: '(^|/)transport/nvls\.cc?:'
  what: an NVLS multicast call failed
  severity: error
  rank: 90
  causes:
  - cause: fabric manager
    fix: fix n
    confirm: check n
  source: src/transport/nvls.cc:60 @ v2.30.7-1
- id: ring-loop
  match: 'does not loop back to start'
  level: WARN
  what: a ring does not close
  severity: error
  rank: 50
  causes:
  - cause: ranks see different topologies
    fix: fix r
    confirm: check r
  source: src/graph/rings.cc:51 @ v2.30.7-1
- id: ring-loop-fixed
  match: 'does not loop back to start'
  level: WARN
  versions: '>=2.6'
  fixed_in: '2.19.4'
  what: a bug fixed in 2.19.4
  severity: error
  rank: 50
  causes:
  - cause: upgrade to 2.19.4
    fix: fix u
    confirm: check u
  source: release note of 2.19.4-1
- id: sysfs-path
  match: 'Could not find real path of '
  level: WARN
  what: a sysfs path is missing
  severity: warning
  rank: 40
  causes:
  - cause: no sysfs
    fix: fix s
    confirm: check s
  source: src/graph/xml.cc:332 @ v2.7.8-1
- id: bind-failed
  match: 'Failed to bind NVLink SHARP \(NVLS\) Multicast memory'
  level: WARN
  what: multicast bind failed
  severity: error
  rank: 90
  causes:
  - cause: fabric manager
    fix: fix b
    confirm: check b
  source: src/transport/nvls.cc:376 @ v2.30.7-1
)";

const NcclKnowledgeBase& kb() {
  static const NcclKnowledgeBase k = NcclKnowledgeBase::parse({{"test.yaml", kKb}});
  return k;
}

// The ids of the entries that read `log`, with the test knowledge base or another.
std::vector<std::string> ids(const std::string& log, const NcclKnowledgeBase& with = kb()) {
  std::vector<std::string> out;
  for (const NcclMessageReading& r : read_nccl_messages(analyze_nccl_log_text(log, "t.log"), with))
    out.push_back(r.entry->id);
  return out;
}

using V = std::vector<std::string>;

// One WARN entry of a knowledge base made for a test: an id, its match (YAML single-quoted) and
// the releases it is for; the rest placeholders.
std::string warn_entry(const std::string& id, const std::string& match,
                       const std::string& versions = "") {
  return "- id: " + id + "\n  match: '" + match + "'\n  level: WARN\n" +
         (versions.empty() ? "" : "  versions: '" + versions + "'\n") +
         "  what: w\n  severity: error\n  causes:\n  - cause: c\n    fix: f\n    confirm: k\n"
         "  source: a.c:1 @ v1\n";
}

NcclKnowledgeBase test_kb(const std::vector<std::string>& entries) {
  std::string yaml = "subsystem: test\nentries:\n";
  for (const std::string& e : entries) yaml += e;
  return NcclKnowledgeBase::parse({{"test.yaml", yaml}});
}

// A cause that carries its own severity sets the reading's when the log shows it (a failure NCCL
// falls back from); otherwise the entry's holds. The built-in knowledge base: NCCL skips an HCA
// it cannot open and goes on (src/transport/net_ib/init.cc:333-335 @ v2.30.7-1).
TEST(NcclKbReading, ACauseTheLogShowsSetsTheSeverity) {
  auto severity_of = [](const std::string& log) {
    const NcclRunFacts f = analyze_nccl_log_text(log, "t.log");
    const auto r = read_nccl_messages(f, NcclKnowledgeBase::builtin());
    return r.empty() ? std::string("none") : std::string(to_string(nccl_kb_severity(r.front())));
  };
  EXPECT_EQ(severity_of("h:1:1 [0] misc/ibvwrap.cc:131 NCCL WARN Call to ibv_open_device failed\n"),
            "warning");
  EXPECT_EQ(severity_of("h:1:1 [0] misc/ibvwrap.cc:200 NCCL WARN Call to ibv_alloc_pd failed\n"),
            "error");
  EXPECT_EQ(severity_of("h:1:1 [0] graph/topo.cc:1757 NCCL WARN NCCL_NET_MERGE_POLICY: unknown "
                        "value 'RAILS', defaulting to ALL\n"),
            "warning");
  // rdma-core's "port active" after a fabric change: NCCL logs it and goes on; "port error" is not.
  EXPECT_EQ(severity_of("h:1:1 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_0:1 Got "
                        "non-fatal async event: port active(9)\n"),
            "info");
  EXPECT_EQ(severity_of("h:1:1 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_0:1 Got "
                        "non-fatal async event: port error(10)\n"),
            "error");
  // aws-ofi-nccl v1.21.1, read from its source (data/nccl-kb/net-plugin-efa.yaml): an exception
  // in one protocol's init is caught and the other protocol tried; one in connect fails it.
  const std::string ofi = "h:1:1 [0] NCCL WARN NET/OFI ";
  EXPECT_EQ(severity_of(ofi + "Caught exception in rdma_init: fi_domain failed\n"), "warning");
  EXPECT_EQ(severity_of(ofi + "Caught exception in plugin connect: fi_av_insert failed\n"),
            "error");
  // A failed tuner setup fails the AWS platform's init, and so does a failed setenv of an NCCL
  // variable (platform-aws.cpp:410-415, 503-507, nccl_ofi_net.cpp:181-183 @ aws-ofi-nccl v1.15.0).
  EXPECT_EQ(severity_of(ofi + "Unable to configure tuner: Invalid argument\n"), "error");
  EXPECT_EQ(severity_of(ofi + "Unable to set NCCL_NVLS_ENABLE\n"), "error");
  // An argument NCCL passed the plugin fails the call; a bad setting is ignored.
  EXPECT_EQ(severity_of(ofi + "Invalid number of receives: 9 (max: 8)\n"), "error");
  EXPECT_EQ(severity_of(ofi + "Invalid value abc provided for OFI_NCCL_PROTOCOL environment "
                              "variable\n"),
            "warning");
  EXPECT_EQ(severity_of(ofi + "fi_open_ops for EFA features failed. RC: -61, ERROR: No data "
                              "available\n"),
            "info");
  // libfabric queues and resends a send the receiver was not ready for (FI_RM_ENABLED).
  EXPECT_EQ(severity_of("libfabric:123:1700000000::efa:cq:efa_rdm_cq_proc():120<warn> "
                        "Destination resource not ready\n"),
            "warning");
}

// The built-in knowledge base's readings of a log given as text.
std::vector<NcclMessageReading> builtin_readings(const std::string& log) {
  return read_nccl_messages(analyze_nccl_log_text(log, "q.log"), NcclKnowledgeBase::builtin());
}

// A cause the framework decides (`framework`: the names of the frameworks whose lines the log
// holds): a GPU out of memory under XLA is JAX's preallocation; under PyTorch its caching
// allocator.
TEST(NcclKbReading, TheFrameworkSelectsItsAllocatorsCause) {
  const std::string oom = "h:1:2 [0] include/alloc.h:121 NCCL WARN Cuda failure 'out of memory'\n";
  const auto xla = builtin_readings(
      oom +
      "E0101 00:00:00.000000 123 pjrt_stream_executor_client.cc:2000] Execution of replica 0 "
      "failed: INTERNAL: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: "
      "unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n");
  ASSERT_FALSE(xla.empty());
  EXPECT_EQ(xla.front().entry->id, "cuda-out-of-memory");
  ASSERT_NE(xla.front().cause, nullptr);
  EXPECT_NE(xla.front().cause->fix.find("XLA_PYTHON_CLIENT_MEM_FRACTION"), std::string::npos);
  const auto torch = builtin_readings(oom);
  ASSERT_FALSE(torch.empty());
  ASSERT_NE(torch.front().cause, nullptr);
  EXPECT_EQ(torch.front().cause->fix.find("XLA_"), std::string::npos);
  // The key reads its regex from YAML like the others.
  const NcclKnowledgeBase kb = NcclKnowledgeBase::parse(
      {{"t.yaml",
        "subsystem: t\nentries:\n- id: x\n  match: 'y'\n  level: WARN\n  what: w\n  severity: "
        "error\n  causes:\n  - cause: c\n    when: {framework: 'XLA|PyTorch'}\n    fix: f\n    "
        "confirm: k\n  source: a.c:1 @ v1\n"}});
  ASSERT_TRUE(kb.entries().front().causes.front().when.framework);
  EXPECT_EQ(kb.entries().front().causes.front().when.framework->text, "XLA|PyTorch");
}

// An Azure VM with Accelerated Networking has a VF interface (enP<domain>s<n>) enslaved to its
// synthetic eth0, with no address of its own: a connect to its link-local address is that, not a
// generic routing problem (skypilot-org/skypilot#4448).
TEST(NcclKbReading, AnAzureVfLinkLocalAddressIsNamed) {
  const std::string warn =
      "nccl-e9ef-7d4f-1:10479:10520 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect "
      "to fe80::20d:3aff:fef9:4aef%enP43105s1<57649> failed : Software caused connection abort\n";
  const auto azure = builtin_readings(warn);
  ASSERT_FALSE(azure.empty());
  ASSERT_NE(azure.front().cause, nullptr);
  EXPECT_NE(azure.front().cause->fix.find("NCCL_SOCKET_IFNAME=eth0"), std::string::npos);
  EXPECT_NE(azure.front().cause->cause.find("Accelerated Networking"), std::string::npos);
  std::string other = warn;
  other.replace(other.find("%enP43105s1"), 11, "%eth1");
  const auto elsewhere = builtin_readings(other);
  ASSERT_FALSE(elsewhere.empty());
  ASSERT_NE(elsewhere.front().cause, nullptr);
  EXPECT_EQ(elsewhere.front().cause->cause.find("Accelerated Networking"), std::string::npos);
}

// ENOMEM from ibv_reg_dmabuf_mr is the GPU driver failing to map GPU memory for the NIC (BAR1),
// not the locked-memory limit, which a DMA-BUF registration is not charged to; ENOMEM from
// ibv_reg_mr is still read as memlock (vllm-project/vllm#19613: NCCL_BUFFSIZE set too large).
TEST(NcclKbReading, DmaBufEnomemIsTheGpuMappingNotMemlock) {
  const std::string prefix = "kilo:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN Call to ";
  const auto dmabuf =
      builtin_readings(prefix + "ibv_reg_dmabuf_mr failed with error Cannot allocate memory\n");
  ASSERT_FALSE(dmabuf.empty());
  ASSERT_NE(dmabuf.front().cause, nullptr);
  EXPECT_NE(dmabuf.front().cause->cause.find("BAR1"), std::string::npos);
  EXPECT_NE(dmabuf.front().cause->fix.find("NCCL_BUFFSIZE"), std::string::npos);
  for (const NcclKbCause* c : dmabuf.front().others)
    EXPECT_EQ(c->cause.find("ulimit -l) of the process"), std::string::npos)
        << "memlock is ruled out for a DMA-BUF registration";
  const auto host =
      builtin_readings(prefix + "ibv_reg_mr failed with error Cannot allocate memory\n");
  ASSERT_FALSE(host.empty());
  ASSERT_NE(host.front().cause, nullptr);
  EXPECT_NE(host.front().cause->fix.find("ulimit -l"), std::string::npos);
  EXPECT_EQ(host.front().cause->cause.find("BAR1"), std::string::npos);
}

// A queue pair in the error state lists the MTU mismatch among its other causes (NCCL 2.20+ sets
// the two ends' path MTUs apart: NVIDIA/nccl#1524, #2135).
TEST(NcclKbReading, AQueuePairErrorNamesTheMtuMismatch) {
  const auto r = builtin_readings(
      "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async "
      "event : local access violation work queue error\n");
  bool mtu = false;
  for (const auto& reading : r)
    for (const NcclKbCause* c : reading.others)
      mtu = mtu || c->cause.find("different MTUs") != std::string::npos;
  EXPECT_TRUE(mtu);
}

// From 2.23.4 communicator init creates a CUDA memory pool without asking whether the GPU supports
// one: "operation not supported" at that call is a GPU without memory pools (a vGPU with unified
// memory off: NVIDIA/nccl#2101; meta-pytorch/torchtune#2556's CI runners at init.cc:416). The
// same place in a release where it is another call is not read so.
TEST(NcclKbReading, AMemoryPoolTheGpuCannotCreate) {
  const std::string warn =
      "h:1:2 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'\n";
  for (const std::string& log : std::vector<std::string>{
           warn, "h:1:1 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n" + warn,
           "h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\nh:1:2 [0] init.cc:564 NCCL WARN Cuda "
           "failure 'operation not supported'\n",
           "h:1:1 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\nh:1:2 [0] init.cc:417 NCCL WARN Cuda "
           "failure 'operation not supported'\n"}) {
    const auto r = builtin_readings(log);
    ASSERT_FALSE(r.empty()) << log;
    EXPECT_EQ(r.front().entry->id.rfind("cuda-mempool-create-failed", 0), 0u) << log;
    ASSERT_NE(r.front().cause, nullptr);
    EXPECT_NE(r.front().cause->cause.find("vGPU"), std::string::npos) << log;
  }
  // 2.22 has no such call; at 2.28.9 init.cc:417 is cudaEventCreateWithFlags.
  for (const std::string& log :
       std::vector<std::string>{"h:1:1 [0] NCCL INFO NCCL version 2.22.3+cuda12.4\n" + warn,
                                "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\nh:1:2 [0] "
                                "init.cc:417 NCCL WARN Cuda failure 'out of memory'\n"}) {
    const auto other = builtin_readings(log);
    ASSERT_FALSE(other.empty()) << log;
    EXPECT_NE(other.front().entry->id.rfind("cuda-mempool-create-failed", 0), 0u) << log;
  }
}

// "Software caused connection abort" from socketStartConnect in 2.16 - 2.24.2 is a retry of a
// refused or timed-out connect on the same socket (fixed in 2.24.3; NVIDIA/nccl#1515); an Azure
// VF's link-local address keeps its own reading, and 2.24.3 does not offer the retry.
TEST(NcclKbReading, AConnectAbortedOnARetryBefore2243) {
  const std::string head = "h:1:1 [0] NCCL INFO NCCL version ";
  const std::string warn =
      "h:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.45.234.83<47527> "
      "failed : Software caused connection abort\n";
  auto r = builtin_readings(head + "2.21.5+cuda12.4\n" + warn);
  ASSERT_FALSE(r.empty());
  ASSERT_NE(r.front().cause, nullptr);
  EXPECT_NE(r.front().cause->cause.find("retry on the same socket"), std::string::npos);
  r = builtin_readings(head + "2.24.3+cuda12.6\n" + warn);
  ASSERT_FALSE(r.empty());
  ASSERT_NE(r.front().cause, nullptr);
  EXPECT_EQ(r.front().cause->cause.find("retry on the same socket"), std::string::npos);
  for (const NcclKbCause* c : r.front().others)
    EXPECT_EQ(c->cause.find("retry on the same socket"), std::string::npos);
  std::string vf = warn;
  vf.replace(vf.find("10.45.234.83"), 12, "fe80::20d:3aff:fef9:4aef%enP43105s1");
  r = builtin_readings(head + "2.21.5+cuda12.4\n" + vf);
  ASSERT_FALSE(r.empty());
  ASSERT_NE(r.front().cause, nullptr);
  EXPECT_NE(r.front().cause->cause.find("Accelerated Networking"), std::string::npos);
}

// A cause the message's own text decides (`line_has`: an errno) is read from the line the entry
// reads, and one that line rules out is not offered among the other causes: ETIMEDOUT from
// ibv_modify_qp is not the ENODEV or EINVAL cause. A second line of the same message with
// another errno brings its cause back.
TEST(NcclKbReading, TheLineItselfRulesCausesOut) {
  const auto read = builtin_readings;
  auto has = [](const NcclMessageReading& r, const std::string& text) {
    for (const NcclKbCause* c : r.others)
      if (c->cause.find(text) != std::string::npos) return true;
    return false;
  };
  const std::string warn = "h:1:2 [5] transport/net_ib.cc:1130 NCCL WARN NET/IB : ";
  auto r = read("h:1:1 [5] NCCL INFO NCCL version 2.27.3+cuda12.9\n" + warn +
                "mlx5_1:1 Call to ibv_modify_qp failed with 110 Connection timed out\n");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].entry->id, "ib-modify-qp-failed");
  EXPECT_TRUE(r[0].cause_seen);
  EXPECT_EQ(r[0].cause->cause.rfind("110 (ETIMEDOUT)", 0), 0u) << r[0].cause->cause;
  EXPECT_FALSE(has(r[0], "ENODEV")) << "the line says 110";
  EXPECT_FALSE(has(r[0], "(EINVAL)"));
  r = read("h:1:1 [5] NCCL INFO NCCL version 2.27.3+cuda12.9\n" + warn +
           "mlx5_1:1 Call to ibv_modify_qp failed with 110 Connection timed out\n" + warn +
           "mlx5_3:1 Call to ibv_modify_qp failed with 19 No such device\n");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].count, 2u);
  EXPECT_TRUE(has(r[0], "ENODEV")) << "the second line says 19";
  EXPECT_FALSE(has(r[0], "(EINVAL)"));
  // An errno no cause is keyed on: the likeliest is the first cause the line does not rule
  // out, not the ETIMEDOUT one.
  r = read("h:1:1 [5] NCCL INFO NCCL version 2.27.3+cuda12.9\n" + warn +
           "mlx5_1:1 Call to ibv_modify_qp failed with 95 Operation not supported\n");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].cause->cause.find("ETIMEDOUT"), std::string::npos) << r[0].cause->cause;
  EXPECT_EQ(r[0].cause->cause.find("ENODEV"), std::string::npos) << r[0].cause->cause;
  // `line_has` reads the line it is given, and holds for no line without one.
  NcclKbWhen w;
  w.line_has = NcclKbRegex("failed with 110 ");
  const NcclRunFacts f =
      analyze_nccl_log_text(warn + "x Call to ibv_modify_qp failed with 110 e\n", "w.log");
  EXPECT_FALSE(nccl_kb_when_holds(w, f)) << "no line: line_has does not hold";
  const auto lines = nccl_kb_lines(f);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(nccl_kb_when_holds(w, f, &lines.back()));
  w.line_has = NcclKbRegex("failed with 19 ");
  EXPECT_FALSE(nccl_kb_when_holds(w, f, &lines.back()));
}

// The transport named in the failing file: CUCHECK's "Cuda failure" from transport/nvls.cc is
// the NVLS reading, ahead of the generic CUDA text; from another file it is not.
TEST(NcclKbReading, TheFailingFileSelectsTheEntry) {
  EXPECT_EQ(ids("h:1:2 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'\n"),
            V{"nvls-cuda"});
  EXPECT_EQ(ids("h:1:2 [2] transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'\n"),
            V{"nvls-cuda"});
  EXPECT_EQ(ids("h:1:2 [2] transport/p2p.cc:244 NCCL WARN Cuda failure 1 'invalid argument'\n"),
            V{"generic-invalid-argument"});
}

// A passed-through CUDA string yields to the NCCL message that quotes it when that message says
// much more (the NVLS bind site); a generic or file-less "Cuda failure" line keeps the CUDA text.
TEST(NcclKbReading, AMessageThatQuotesTheCudaTextSaysMore) {
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size "
                "2097152 : CUDA error 1 'invalid argument'.\n"),
            V{"bind-failed"});
  EXPECT_EQ(ids("h:1:2 [2] misc/strongstream.cc:9 NCCL WARN Cuda failure 1 'invalid argument'\n"),
            V{"generic-invalid-argument"});
  // The built-in CUDA entries also list the error's enum names; the text they name still yields
  // (NVIDIA/nccl#2077: the multicast slots, not the GPU's memory).
  const NcclRunFacts f = analyze_nccl_log_text(
      "h:1:2 [0] NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : "
      "CUDA error 2 'out of memory'.\n",
      "t.log");
  const auto r = read_nccl_messages(f, NcclKnowledgeBase::builtin());
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r.front().entry->id, "nvls-multicast-bind-failed");
}

// RCCL prints NCCL's messages with HIP names where NCCL's source has CUDA's (hipify-perl renames
// its string literals too): an entry reads the line as printed or in NCCL's spelling
// (data/nccl-kb/hip-names.txt), a word the table does not hold stays as it is.
TEST(NcclKbReading, RcclsHipNamesAreReadInNcclsSpelling) {
  EXPECT_EQ(nccl_cuda_spelling("hipIpcGetMemHandle failed : invalid argument"),
            "cudaIpcGetMemHandle failed : invalid argument");
  EXPECT_EQ(nccl_cuda_spelling("Failed to load CUDA missing symbol hipInit"),
            "Failed to load CUDA missing symbol cuInit");
  EXPECT_EQ(nccl_cuda_spelling("hipInitX and xhipInit: no HIP name"), "");
  EXPECT_EQ(nccl_cuda_spelling("Cuda failure 'invalid argument'"), "");
  const NcclKnowledgeBase k =
      test_kb({warn_entry("driver-version", "cuDriverGetVersion failed with \\d+"),
               warn_entry("hip-ipc", "hipIpcGetMemHandle failed : ")});
  EXPECT_EQ(ids("h:1:2 [0] misc/cudawrap.cc:211 NCCL WARN hipDriverGetVersion failed with 3\n", k),
            V{"driver-version"});
  EXPECT_EQ(ids("h:1:2 [0] misc/cudawrap.cc:211 NCCL WARN cuDriverGetVersion failed with 3\n", k),
            V{"driver-version"});
  EXPECT_EQ(ids("h:1:2 [0] misc/cudawrap.cc:211 NCCL WARN hipDriverGetVersionX failed with 3\n", k),
            V{});
  EXPECT_EQ(ids("h:1:2 [0] transport/p2p.cc:256 NCCL WARN hipIpcGetMemHandle failed : invalid "
                "argument\n",
                k),
            V{"hip-ipc"});
  // The built-in knowledge base: RCCL's own entry, with AMD's causes, reads RCCL's line before
  // the CUDACHECK that repeats its error (ROCm/rccl-tests#162's excerpt, shortened paths).
  const auto r = read_nccl_messages(
      analyze_nccl_log_text(
          "h:5:6 [2] /b/rccl/hipify/src/transport/p2p.cc:256 NCCL WARN hipIpcGetMemHandle failed : "
          "invalid argument\n"
          "h:5:7 [3] /b/rccl/hipify/src/transport/p2p.cc:258 NCCL WARN Cuda failure 'invalid "
          "argument'\n"
          "h:5:7 [3] NCCL INFO /b/rccl/hipify/src/transport/p2p.cc:709 -> 1\n",
          "t.log"),
      NcclKnowledgeBase::builtin());
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r.front().entry->id, "rccl-hip-ipc-get-handle-failed");
  EXPECT_NE(r.front().cause->cause.find("amdgpu-dkms"), std::string::npos);
}

// A WARN cut short where the log's copy ends is read by the one entry whose text begins with
// all of it; not when it is short, when several entries begin so, or when it is not a prefix.
TEST(NcclKbReading, ACutWarnIsReadByTheOneEntryItBegins) {
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN Failed to bind NVLink SHARP (NV\n"), V{"bind-failed"});
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN Could not find real path o\n"), V{"sysfs-path"});
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN Failed to bind NVLink\n"), V{});  // under 24 characters
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN Failed to bind NVLink SHARP (NVX\n"), V{});
  EXPECT_EQ(ids("h:1:2 [0] NCCL INFO Failed to bind NVLink SHARP (NV\n"), V{});  // INFO
  static const NcclKnowledgeBase two =
      test_kb({warn_entry("opt-a", "Couldn''t set FI_OPT_EFA_SENDRECV_A"),
               warn_entry("opt-b", "Couldn''t set FI_OPT_EFA_WRITE_B")});
  auto read = [](const std::string& log) { return ids(log, two); };
  EXPECT_EQ(read("h:1:2 [0] NCCL WARN Couldn't set FI_OPT_EFA_\n"), V{});  // both begin so
  EXPECT_EQ(read("h:1:2 [0] NCCL WARN Couldn't set FI_OPT_EFA_S\n"), V{"opt-a"});
  EXPECT_EQ(read("h:1:2 [0] NCCL WARN Couldn't set FI_OPT_EFA_W\n"), V{"opt-b"});
}

// A cut that two of the messages NCCL and its plugins print begin with is read as neither, though
// the knowledge base holds one of them: net_ib.cc's two completion-error formats (2.19+ with the
// peer, older without) share "NET/IB : Got completion " (tests/data/nccl-sites).
TEST(NcclKbReading, ACutTwoMessagesBeginWithIsNotRead) {
  EXPECT_TRUE(nccl_messages_share_beginning("NET/IB : Got completion "));
  EXPECT_TRUE(nccl_messages_share_beginning("NET/IB : Got complet"));  // within a shared text
  EXPECT_FALSE(nccl_messages_share_beginning("NET/IB : Got completion from peer"));
  EXPECT_FALSE(nccl_messages_share_beginning("Failed to bind NVLink SHARP (NV"));
  static const NcclKnowledgeBase one =
      test_kb({warn_entry("completion-new", "NET/IB : Got completion from peer")});
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN NET/IB : Got completion \n", one), V{});
  EXPECT_EQ(ids("h:1:2 [0] NCCL WARN NET/IB : Got completion from pe\n", one), V{"completion-new"});
}

// A cut WARN is read only by an entry of the releases the log shows, as a whole line is.
TEST(NcclKbReading, ACutWarnKeepsToTheLogsReleases) {
  static const NcclKnowledgeBase old = test_kb({warn_entry(
      "mixing-streams-old", "Error : mixing different streams within a group call is not supported",
      "<2.13")});
  auto read = [](const std::string& log) { return ids(log, old); };
  const std::string cut = "h:1:2 [0] NCCL WARN Error : mixing different streams within a group\n";
  EXPECT_EQ(read("h:1:1 [0] NCCL INFO NCCL version 2.12.12+cuda11.7\n" + cut),
            V{"mixing-streams-old"});
  EXPECT_EQ(read("h:1:1 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n" + cut), V{});
  EXPECT_EQ(read(cut), V{"mixing-streams-old"});  // no version line: every release
}

// A fixed bug reads the line only when the log shows an older release.
TEST(NcclKbReading, AFixedBugNeedsAnOlderRelease) {
  const std::string warn =
      "h:1:2 [7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop "
      "back to start (13 != 15).\n";
  EXPECT_EQ(ids("h:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n" + warn), V{"ring-loop-fixed"});
  EXPECT_EQ(ids("h:1:1 [0] NCCL INFO NCCL version 2.20.3+cuda12.2\n" + warn), V{"ring-loop"});
  EXPECT_EQ(ids("h:1:1 [0] NCCL INFO NCCL version 2.5.6+cuda10.2\n" + warn), V{"ring-loop"});
  EXPECT_EQ(ids(warn), V{"ring-loop"});  // no version line: the ordinary reading
}

// A net plugin without CollNet symbols stays loaded (src/net.cc:466-474 @ v2.21.5-1): the last
// CollNet probe line is the probe's note, not "the plugin is unsupported" (aws/aws-ofi-nccl#889:
// aws-ofi-nccl has no CollNet); the net symbols missing is.
TEST(NcclKbReading, MissingCollNetSymbolsLeaveTheNetPluginLoaded) {
  auto first = [](const std::string& log) {
    const auto r = builtin_readings(log);
    return r.empty() ? std::string() : r.front().entry->id;
  };
  EXPECT_EQ(first("h:79:79 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= "
                  "v5). ncclCollNetPlugin symbols v4 and lower are not supported.\n"),
            "net-plugin-symbol-version-probe");
  EXPECT_EQ(first("h:79:79 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin symbol (>= "
                  "v5). ncclNetPlugin symbols v4 and lower are not supported.\n"),
            "net-plugin-unsupported");
}

// "Attempt to use communicator before the previous operation returned ncclSuccess" reports any
// error already recorded on the communicator (ncclCommEnsureReady keeps it unless it is
// ncclInProgress): an earlier failure, unless the log shows a non-blocking communicator.
TEST(NcclKbReading, ACommunicatorsRecordedErrorIsAnEarlierFailure) {
  auto cause = [](const std::string& log) {
    const auto r = builtin_readings(log);
    return r.empty() || !r.front().cause ? std::string() : r.front().cause->cause;
  };
  const std::string warn =
      "h:9:9 [2] init.cc:303 NCCL WARN Attempt to use communicator before the previous "
      "operation returned ncclSuccess\nh:9:9 [2] NCCL INFO enqueue.cc:1605 -> 512\n";
  EXPECT_EQ(cause(warn).rfind("An earlier failure of this communicator", 0), 0u) << cause(warn);
  const std::string nonblocking =
      "h:9:9 [2] NCCL INFO NCCL_COMM_BLOCKING set by environment to 0.\n";
  EXPECT_EQ(cause(nonblocking + warn).rfind("The communicator is non-blocking", 0), 0u);
  // The fixture as posted (NVIDIA/TensorRT-LLM#1039).
  const NcclRunFacts f =
      analyze_nccl_logs({std::string(TR_TEST_DATA) +
                         "/nccl-shapes/trtllm1039-async-error-512-unknown-result-code.log"});
  const auto r = read_nccl_messages(f, NcclKnowledgeBase::builtin());
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r.front().entry->id, "init-comm-not-ready");
}

// NCCL keeps its last WARN for ncclGetLastError(), which PyTorch prints after "Last error:";
// excerpts without the prefix and releases before 2.4 (no NCCL tag) are WARNs too.
TEST(NcclKbReading, WarnEntriesReadEveryShapeOfAWarn) {
  EXPECT_EQ(ids("torch.distributed.DistBackendError: NCCL error in: x.cpp:93, unhandled cuda "
                "error, NCCL version 2.29.3\n"
                "ncclUnhandledCudaError: Call to CUDA function failed.\n"
                "Last error:\n"
                "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error "
                "401 'the operation cannot be performed in the present state'.\n"),
            V{"bind-failed"});
  const auto f = analyze_nccl_log_text(
      "NCCL WARN Error : ring 0 does not loop back to start\n"
      "graph/xml.cc:332 WARN Could not find real path of /sys/x\n",
      "t.log");
  const auto lines = nccl_kb_lines(f);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].level, NcclKbLevel::kWarn);
  EXPECT_EQ(lines[1].level, NcclKbLevel::kWarn);
  EXPECT_EQ(lines[1].file, "graph/xml.cc:332");
}

// The WARN right before the first error trail is where the failure started: its warning-level
// reading is an error, ahead of an earlier warning.
TEST(NcclKbReading, TheWarnBeforeTheFirstTrailStartedTheFailure) {
  const auto f = analyze_nccl_log_text(
      "h:1:1 [0] NCCL INFO NCCL version 2.7.8+cuda11.1\n"
      "h:1:2 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/x\n"
      "h:1:2 [0] NCCL INFO graph/xml.cc:469 -> 2\n",
      "t.log");
  const auto r = read_nccl_messages(f, kb());
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].entry->id, "sysfs-path");
  EXPECT_TRUE(r[0].starts_failure);
  EXPECT_EQ(nccl_kb_severity(r[0]), Severity::kError);
  const auto quiet = read_nccl_messages(
      analyze_nccl_log_text(
          "h:1:2 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/x\n",
          "u.log"),
      kb());
  ASSERT_EQ(quiet.size(), 1u);
  EXPECT_FALSE(quiet[0].starts_failure);
  EXPECT_EQ(nccl_kb_severity(quiet[0]), Severity::kWarning);
}

// An excerpt that starts inside rank 1's trail (horovod/horovod#3871) lost its WARN: rank 0's
// WARN from the file the trail starts in, printed just after on another thread, is the same
// failure. A trail that does not start the excerpt, a WARN from another file, or one far after
// the trail starts nothing.
TEST(NcclKbReading, AnExcerptCutInsideTheFirstTrailStartsAtTheSameFailureElsewhere) {
  const std::string tail =
      "h:687:748 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/x\n"
      "h:687:748 [0] NCCL INFO graph/xml.cc:469 -> 2\n";
  const std::string cut =
      "h:688:745 [1] NCCL INFO graph/xml.cc:469 -> 2\n"
      "h:688:745 [1] NCCL INFO init.cc:540 -> 2\n";
  auto r = read_nccl_messages(analyze_nccl_log_text(cut + tail, "t.log"), kb());
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].entry->id, "sysfs-path");
  EXPECT_TRUE(r[0].starts_failure);
  EXPECT_TRUE(r[0].starts_cut_trail);
  // Not the excerpt's start.
  r = read_nccl_messages(
      analyze_nccl_log_text("h:1:1 [0] NCCL INFO NCCL version 2.7.8+cuda11.1\n"
                            "h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                            "h:1:1 [0] NCCL INFO Using network Socket\n" +
                                cut + tail,
                            "u.log"),
      kb());
  ASSERT_FALSE(r.empty());
  EXPECT_FALSE(r[0].starts_failure);
  // Another file's WARN.
  r = read_nccl_messages(
      analyze_nccl_log_text(cut + "h:687:748 [0] graph/topo.cc:100 NCCL WARN Could not find real "
                                  "path of /sys/class/pci_bus/x\n",
                            "v.log"),
      kb());
  ASSERT_FALSE(r.empty());
  EXPECT_FALSE(r[0].starts_failure);
  // Far after the trail: another failure, not this one's.
  std::string far = cut;
  for (int i = 0; i < 45; ++i) far += "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC\n";
  r = read_nccl_messages(analyze_nccl_log_text(far + tail, "w.log"), kb());
  ASSERT_FALSE(r.empty());
  EXPECT_FALSE(r[0].starts_failure);
}

TEST(NcclKbReading, BadInFileAndFixedInNameTheEntry) {
  std::string bad = kKb;
  bad.replace(bad.find("fixed_in: '2.19.4'"), 18, "fixed_in: 'soon'");
  try {
    NcclKnowledgeBase::parse({{"t.yaml", bad}});
    FAIL() << "accepted fixed_in: soon";
  } catch (const NcclKbError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml: ring-loop-fixed: 'fixed_in'"), std::string::npos)
        << e.what();
  }
  bad = kKb;
  bad.replace(bad.find("in_file: '"), 10, "in_file: '((");
  try {
    NcclKnowledgeBase::parse({{"t.yaml", bad}});
    FAIL() << "accepted a broken in_file regex";
  } catch (const NcclKbError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml: nvls-cuda: 'in_file' is not a valid regex"),
              std::string::npos)
        << e.what();
  }
}

// One line, one finding: the knowledge base's reading of the WARN a dedicated rule cites is
// folded into that finding (its fix appended), not listed again.
TEST(NcclKbReading, TheEngineFoldsAReadingIntoTheFindingThatCitesItsLine) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "h:1:1 [0] NCCL INFO NCCL version 2.27.3+cuda12.8\n"
      "h:1:2 [5] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection "
      "timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3\n",
      "t.log");
  JudgeInputs in;
  in.nccl_log = &f;
  const Evaluation ev = evaluate(in, Catalog::builtin(), {});
  int qp = 0;
  const Finding* dedicated = nullptr;
  for (const Finding& x : ev.findings) {
    for (const Evidence& e : x.evidence) qp += e.where.line == 2 ? 1 : 0;
    if (x.rule_id == "nccl-ibv-modify-qp-failed") dedicated = &x;
  }
  ASSERT_NE(dedicated, nullptr);
  EXPECT_EQ(qp, 1) << "the WARN line is cited by one finding";
  EXPECT_NE(dedicated->fix.find("NCCL_CROSS_NIC=0"), std::string::npos) << dedicated->fix;
  bool support = false;
  for (const Evidence& e : dedicated->evidence)
    support = support || e.text.rfind("supporting reading (nccl-message)", 0) == 0;
  EXPECT_TRUE(support);
}

// A rule's general fix (nccl-connection-failed's "find the first error ... set
// NCCL_SOCKET_IFNAME") gives way to the folded reading's, chosen by the line's own words, so the
// finding does not say the same advice twice (NVIDIA/nccl-tests#15, NCCL 2.2's "Call to connect
// failed : Connection timed out").
TEST(NcclKbReading, AFoldedReadingsFixReplacesARulesGeneralFix) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "g:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n",
      "t.log");
  JudgeInputs in;
  in.nccl_log = &f;
  const Evaluation ev = evaluate(in, Catalog::builtin(), {});
  const Finding* conn = nullptr;
  for (const Finding& x : ev.findings)
    if (x.rule_id == "nccl-connection-failed") conn = &x;
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->fix.rfind("Set NCCL_SOCKET_IFNAME to the interface the hosts reach", 0), 0u)
      << conn->fix;
  EXPECT_EQ(conn->fix.find("Find the first error in time"), std::string::npos) << conn->fix;
  EXPECT_EQ(conn->fix.find("shm-size"), std::string::npos) << conn->fix;

  // A second line read as well: its fix is added to the first reading's, not put in its place;
  // a reading its context did not decide (a "Broken pipe" recv takes the entry's fall-through)
  // keeps the rule's general fix and adds its own.
  const auto fix_of = [](const std::string& log) {
    const NcclRunFacts g = analyze_nccl_log_text(log, "t.log");
    JudgeInputs gin;
    gin.nccl_log = &g;
    for (const Finding& x : evaluate(gin, Catalog::builtin(), {}).findings)
      if (x.rule_id == "nccl-connection-failed") return x.fix;
    return std::string("(no finding)");
  };
  const std::string two = fix_of(
      "g:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n"
      "g:18553:18612 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from 10.1.1.2<5000> "
      "failed : Connection reset by peer\n");
  EXPECT_EQ(two.rfind("Set NCCL_SOCKET_IFNAME to the interface the hosts reach", 0), 0u) << two;
  EXPECT_NE(two.find("Find the earliest failing rank and fix that failure"), std::string::npos)
      << two;
  const std::string pipe = fix_of(
      "h:1:2 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from 10.1.1.2<5000> failed : "
      "Broken pipe\n");
  EXPECT_EQ(
      pipe.rfind("Find the first error in time across all ranks and in the peer's own log", 0), 0u)
      << pipe;
}

}  // namespace
}  // namespace trainready::test

namespace trainready::test {
namespace {

const char* kTrailKb = R"(subsystem: test
entries:
- id: trail-sys
  match: '-> 2\b'
  level: INFO
  kind: trail
  what: a system call failed
  severity: error
  rank: 30
  causes:
  - cause: gid type
    when: {trail_call: '^ncclIbRoceGetVersionNum$'}
    fix: fix gid
    confirm: check gid
  - cause: generic
    fix: fix s
    confirm: check s
  source: src/include/checks.h @ v2.30.7-1
)";

// `trail_call` reads the call NCCL checks where the first error trail starts, at the log's
// releases (data/nccl-kb/trail-sites.txt): transport/net_ib.cc:282 is the check of
// ncclIbRoceGetVersionNum at 2.21.5 only (NVIDIA/nccl#1332).
TEST(NcclKbReading, TheCallWhereTheTrailStartsDecidesACause) {
  const NcclKnowledgeBase k = NcclKnowledgeBase::parse({{"t.yaml", kTrailKb}});
  const std::string trail =
      "h:1:2 [3] NCCL INFO transport/net_ib.cc:282 -> 2\n"
      "h:1:2 [3] NCCL INFO transport/net_ib.cc:305 -> 2\n";
  auto r = read_nccl_messages(
      analyze_nccl_log_text("h:1:1 [3] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + trail, "a.log"),
      k);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "gid type");
  EXPECT_TRUE(r[0].cause_seen);
  EXPECT_EQ(r[0].call.callee, "ncclIbRoceGetVersionNum");
  EXPECT_EQ(r[0].call.place, "transport/net_ib.cc:282");
  // No version line: the trail's own places tell 2.21.5.
  r = read_nccl_messages(analyze_nccl_log_text(trail, "b.log"), k);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "gid type");
  EXPECT_EQ(r[0].releases.describe(), "2.21.5");
  // A trail that starts at another check (its caller's, ncclUpdateGidIndex) names another call:
  // the cause does not hold, nor is it offered.
  r = read_nccl_messages(analyze_nccl_log_text("h:1:1 [3] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                                               "h:1:2 [3] NCCL INFO transport/net_ib.cc:305 -> 2\n",
                                               "c.log"),
                         k);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "generic");
  EXPECT_TRUE(r[0].others.empty());
  EXPECT_EQ(r[0].call.callee, "ncclUpdateGidIndex");
  // At 2.22.3 no check sits on that line: no call is known, so the cause does not hold but stays
  // among the others (a patched build may have moved it).
  r = read_nccl_messages(
      analyze_nccl_log_text("h:1:1 [3] NCCL INFO NCCL version 2.22.3+cuda12.4\n" + trail, "e.log"),
      k);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "generic");
  EXPECT_FALSE(r[0].call.known());
  EXPECT_EQ(r[0].others.size(), 1u);
  // RCCL's lines are not NCCL's: no call is named.
  r = read_nccl_messages(
      analyze_nccl_log_text("h:1:1 [3] NCCL INFO RCCL version 2.21.5+hip6.2\n" + trail, "d.log"),
      k);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].call.known());
  EXPECT_EQ(r[0].cause->cause, "generic");
}

// The whole pipeline on NVIDIA/nccl#1332's silent trail: nccl-system-error defers to the trail's
// reading, which names the call and the GID cause of 2.21.5 .. 2.22.3.
TEST(NcclKbReading, ASilentTrailIsTheSystemErrorsCause) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "b:11537:11571 [3] NCCL INFO transport/net_ib.cc:282 -> 2\n"
      "b:11537:11571 [3] NCCL INFO transport/net_ib.cc:305 -> 2\n"
      "b:11537:11571 [3] NCCL INFO transport/net_ib.cc:1047 -> 2\n"
      "b: Test NCCL failure common.cu:961 'unhandled system error (run with NCCL_DEBUG=INFO for "
      "details) / '\n",
      "t.log");
  JudgeInputs in;
  in.nccl_log = &f;
  const Evaluation ev = evaluate(in, Catalog::builtin(), {});
  ASSERT_FALSE(ev.findings.empty());
  const Finding& top = ev.findings.front();
  EXPECT_EQ(top.rule_id, "nccl-message");
  EXPECT_NE(top.cause.find("gid_attrs/types"), std::string::npos) << top.cause;
  EXPECT_NE(top.fix.find("NCCL_IB_GID_INDEX"), std::string::npos) << top.fix;
  bool named = false;
  for (const Evidence& e : top.evidence)
    named = named || e.text.rfind(
                         "failing call: ncclIbRoceGetVersionNum(), checked at "
                         "transport/net_ib.cc:282 in ncclUpdateGidIndex",
                         0) == 0;
  EXPECT_TRUE(named);
  const Finding* sys = nullptr;
  for (const Finding& x : ev.findings)
    if (x.rule_id == "nccl-system-error") sys = &x;
  ASSERT_NE(sys, nullptr);
  EXPECT_NE(sys->cause.find("checks ncclIbRoceGetVersionNum()"), std::string::npos) << sys->cause;
  EXPECT_EQ(sys->cause.find("/dev/shm"), std::string::npos) << sys->cause;
}

// A bootstrap trail after a WARN that starts the failure: the WARN's reading (2.19's bootstrap
// tag bug, NVIDIA/nccl#1176) comes before the trail's undecided signature; a signature its places
// decided (socketFinalizeAccept's magic receive, NVIDIA/nccl#1612) keeps its rank.
TEST(NcclKbReading, ATrailSignatureRanksBelowTheWarnThatStartedIt) {
  const auto first_rule = [](const std::string& log) {
    const NcclRunFacts f = analyze_nccl_log_text(log, "t.log");
    JudgeInputs in;
    in.nccl_log = &f;
    const Evaluation ev = evaluate(in, Catalog::builtin(), {});
    return ev.findings.empty() ? std::string() : ev.findings.front().message;
  };
  const std::string truncated = first_rule(
      "c:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead "
      "of 4\n"
      "c:4827:6900 [4] NCCL INFO bootstrap.cc:554 -> 3\n"
      "c:4827:6900 [4] NCCL INFO transport.cc:204 -> 3\n");
  EXPECT_NE(truncated.find("[fixed-2-21-5-bootstrap-barrier-tag]"), std::string::npos) << truncated;
  const std::string magic = first_rule(
      "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer "
      "10.10.1.3<36138>\n"
      "[0] NCCL INFO misc/socket.cc:80 -> 6\n"
      "[0] NCCL INFO misc/socket.cc:474 -> 6\n"
      "[0] NCCL INFO misc/socket.cc:628 -> 6\n");
  EXPECT_NE(magic.find("[bootstrap-socket-failure]"), std::string::npos) << magic;
}

// Two readings of one line that give one fix: the folded finding says it once.
TEST(NcclKbReading, AFixTwoReadingsShareIsSaidOnce) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer "
      "10.10.1.3<36138>\n"
      "[0] NCCL INFO misc/socket.cc:80 -> 6\n"
      "[0] NCCL INFO misc/socket.cc:474 -> 6\n"
      "[0] NCCL INFO misc/socket.cc:628 -> 6\n",
      "t.log");
  JudgeInputs in;
  in.nccl_log = &f;
  int said = 0;
  for (const Finding& x : evaluate(in, Catalog::builtin(), {}).findings) {
    const std::string once = "Upgrade NCCL to 2.27.3 or later";
    const std::size_t at = x.fix.find(once);
    if (at != std::string::npos) {
      ++said;
      EXPECT_EQ(x.fix.find(once, at + 1), std::string::npos) << x.rule_id << ": " << x.fix;
    }
  }
  EXPECT_GE(said, 1);
}

}  // namespace
}  // namespace trainready::test

namespace trainready::test {
namespace {

// An excerpt that begins inside rank 1's trail (NVIDIA/nccl#1059, NCCL 2.18.1, no version line):
// rank 6's trail starts deeper, at misc/socket.cc:564, and passes bootstrap.cc:270 where rank 1's
// starts; the call is named at 564 (socketPollConnect at 2.18.1, which fails without a WARN).
TEST(NcclKbReading, ACutTrailIsNamedWhereAnotherThreadsStarts) {
  const std::string cut =
      "M: M:10793:11394 [1] NCCL INFO bootstrap.cc:270 -> 2\n"
      "M: M:10799:11392 [6] NCCL INFO misc/socket.cc:564 -> 2\n"
      "M: M:10793:11394 [1] NCCL INFO init.cc:1303 -> 2\n"
      "M: M:10799:11392 [6] NCCL INFO misc/socket.cc:615 -> 2\n"
      "M: M:10793:11394 [1] NCCL INFO group.cc:64 -> 2 [Async thread]\n"
      "M: M:10799:11392 [6] NCCL INFO bootstrap.cc:270 -> 2\n"
      "M: M:10799:11392 [6] NCCL INFO init.cc:1303 -> 2\n";
  const NcclRunFacts f = analyze_nccl_log_text(cut, "t.log");
  ASSERT_TRUE(f.deeper_error_return.has_value());
  EXPECT_NE(f.deeper_error_return->text.find("misc/socket.cc:564"), std::string::npos);
  EXPECT_EQ(f.deeper_error_return->where.line, 2);
  const auto r = read_nccl_messages(f, NcclKnowledgeBase::builtin());
  const NcclMessageReading* first = nullptr;
  for (const NcclMessageReading& x : r)
    if (x.call.known()) first = &x;
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->call.callee, "socketPollConnect");
  EXPECT_EQ(first->call.place, "misc/socket.cc:564");
  EXPECT_EQ(first->call.passes, "bootstrap.cc:270");
  EXPECT_EQ(first->releases.describe(), "2.18.1");
  // A thread whose trail starts at the same place, or that prints something else before it
  // passes it, or rank 1's own trail, is no deeper start.
  EXPECT_FALSE(analyze_nccl_log_text("a:1:1 [1] NCCL INFO bootstrap.cc:270 -> 2\n"
                                     "a:1:2 [6] NCCL INFO bootstrap.cc:270 -> 2\n"
                                     "a:1:2 [6] NCCL INFO init.cc:1303 -> 2\n",
                                     "u.log")
                   .deeper_error_return.has_value());
  EXPECT_FALSE(analyze_nccl_log_text("a:1:1 [1] NCCL INFO bootstrap.cc:270 -> 2\n"
                                     "a:1:2 [6] NCCL INFO misc/socket.cc:564 -> 2\n"
                                     "a:1:2 [6] NCCL INFO Using network Socket\n"
                                     "a:1:2 [6] NCCL INFO bootstrap.cc:270 -> 2\n",
                                     "v.log")
                   .deeper_error_return.has_value());
  EXPECT_FALSE(analyze_nccl_log_text("a:1:1 [1] NCCL INFO misc/socket.cc:564 -> 2\n"
                                     "a:1:1 [1] NCCL INFO bootstrap.cc:270 -> 2\n",
                                     "w.log")
                   .deeper_error_return.has_value());
  // Another result code is another failure; so is a trail a WARN of its thread ended before.
  EXPECT_FALSE(analyze_nccl_log_text("a:1:1 [1] NCCL INFO bootstrap.cc:270 -> 6\n"
                                     "a:1:2 [6] NCCL INFO misc/socket.cc:564 -> 2\n"
                                     "a:1:2 [6] NCCL INFO bootstrap.cc:270 -> 2\n",
                                     "x.log")
                   .deeper_error_return.has_value());
  EXPECT_FALSE(analyze_nccl_log_text("a:1:1 [1] NCCL INFO bootstrap.cc:270 -> 2\n"
                                     "a:1:2 [6] NCCL INFO transport/net_ib.cc:230 -> 2\n"
                                     "a:1:2 [6] misc/socket.cc:1 NCCL WARN a later failure\n"
                                     "a:1:2 [6] NCCL INFO bootstrap.cc:270 -> 2\n",
                                     "y.log")
                   .deeper_error_return.has_value());
  // A first trail after its own WARN is whole: another host's deeper trail through the same
  // place is another failure, and names nothing.
  const auto whole = read_nccl_messages(
      analyze_nccl_log_text("a:1:1 [2] NCCL INFO NCCL version 2.18.1+cuda12.1\n"
                            "a:1:1 [2] misc/socket.cc:513 NCCL WARN socketPollConnect: exceeded "
                            "retries (34000)\n"
                            "a:1:1 [2] NCCL INFO bootstrap.cc:270 -> 2\n"
                            "b:9:9 [6] NCCL INFO misc/socket.cc:564 -> 2\n"
                            "b:9:9 [6] NCCL INFO bootstrap.cc:270 -> 2\n",
                            "z.log"),
      NcclKnowledgeBase::builtin());
  for (const NcclMessageReading& x : whole) EXPECT_TRUE(x.call.passes.empty()) << x.entry->id;
}

// NVIDIA/nccl#1000's cause of 2.16-2.19, a silent socketPollConnect, is not read into a failure
// its WARN names (the retries of a refused connect ran out: -> 6 after "exceeded retries").
TEST(NcclKbReading, ASilentCallsCauseNeedsASilentTrail) {
  const auto cause_of = [](const std::string& log) {
    for (const NcclMessageReading& r :
         read_nccl_messages(analyze_nccl_log_text(log, "t.log"), NcclKnowledgeBase::builtin()))
      if (r.entry->id == "bootstrap-socket-failure") return r.cause->cause.substr(0, 40);
    return std::string("(none)");
  };
  const std::string v = "h:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.1\n";
  EXPECT_EQ(cause_of(v + "h:1:2 [0] NCCL INFO misc/socket.cc:567 -> 2\n"
                         "h:1:2 [0] NCCL INFO misc/socket.cc:618 -> 2\n"),
            "The trail starts, with no WARN before it");
  EXPECT_NE(cause_of(v + "h:1:2 [0] misc/socket.cc:515 NCCL WARN socketPollConnect: exceeded "
                         "retries (34000)\n"
                         "h:1:2 [0] NCCL INFO misc/socket.cc:567 -> 6\n"
                         "h:1:2 [0] NCCL INFO misc/socket.cc:618 -> 6\n"),
            "The trail starts, with no WARN before it");
}

// A line pasted without NCCL's head ("NCCL INFO graph/topo.cc:380 -> 3", NVIDIA/nccl#379) is one
// thread with the next headless lines: the trail goes on, and all its places date the log.
TEST(NcclKbReading, AHeadlessTrailIsOneThread) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found\n"
      "NCCL INFO graph/topo.cc:380 -> 3\n"
      "NCCL INFO graph/topo.cc:466 -> 3\n"
      "NCCL INFO init.cc:581 -> 3\n",
      "t.log");
  ASSERT_TRUE(f.first_error_return.has_value());
  EXPECT_EQ(f.first_error_trail.size(), 2u);
}

// NCCL 2.30.7 prints the function between the place and the code (INFO_LOC in checks.h): the
// trail is read, dated and named as before.
TEST(NcclKbReading, TheTrailOf2307WithItsFunctionIsRead) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "h:1:2 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\n"
      "h:1:2 [0] NCCL INFO transport/net_ib/init.cc:510 (ncclIbInitDevices) -> 3\n"
      "h:1:2 [0] NCCL INFO transport/net_ib/init.cc:526 (ncclIbInit) -> 3\n",
      "t.log");
  ASSERT_TRUE(f.first_error_return.has_value());
  EXPECT_EQ(f.first_error_trail.size(), 1u);
  bool named = false;
  for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin()))
    named = named || (r.call.callee == "ncclIbMakeVDeviceInternal" &&
                      r.call.function == "ncclIbInitDevices");
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace trainready::test

namespace trainready::test {
namespace {

// Whether the first trail follows its own thread's WARN is the record just before it, not any
// earlier WARN: an init WARN of that thread with INFO lines between names another thing, so the
// silent trail's cause still holds and the trail signature keeps its rank (the second review's
// S2 log); a WARN right before the trail is the failure's own.
TEST(NcclKbReading, OnlyTheRecordJustBeforeTheTrailIsItsWarn) {
  const std::string v = "a:1:1 [2] NCCL INFO NCCL version 2.18.3+cuda12.2\n";
  const std::string trail =
      "a:1:1 [2] NCCL INFO misc/socket.cc:567 -> 2\n"
      "a:1:1 [2] NCCL INFO misc/socket.cc:618 -> 2\n"
      "a:1:1 [2] NCCL INFO bootstrap.cc:270 -> 2\n";
  const std::string init_warn =
      "a:1:1 [2] transport/net_ib.cc:193 NCCL WARN NET/IB : Unable to open device mlx5_3\n";
  const NcclRunFacts far = analyze_nccl_log_text(
      v + init_warn + "a:1:1 [2] NCCL INFO Using network IB\n" + trail, "s2.log");
  EXPECT_FALSE(far.first_error_after_warn);
  const NcclRunFacts near = analyze_nccl_log_text(v + init_warn + trail, "s3.log");
  EXPECT_TRUE(near.first_error_after_warn);
  const NcclRunFacts other = analyze_nccl_log_text(
      v + "b:2:2 [6] transport/net_ib.cc:193 NCCL WARN NET/IB : Unable to open device\n" + trail,
      "s4.log");
  EXPECT_FALSE(other.first_error_after_warn);
  JudgeInputs in;
  in.nccl_log = &far;
  const Evaluation ev = evaluate(in, Catalog::builtin(), {});
  ASSERT_FALSE(ev.findings.empty());
  EXPECT_NE(ev.findings.front().message.find("[bootstrap-socket-failure]"), std::string::npos)
      << ev.findings.front().message;
  EXPECT_NE(ev.findings.front().cause.find("The trail starts, with no WARN before it"),
            std::string::npos)
      << ev.findings.front().cause;
}

// Lines without a head: a WARN ends the trail, and so does a change of result code - the next
// "-> code" lines are another failure's (the second review's H8 and H9 logs).
TEST(NcclKbReading, AHeadlessTrailEndsAtAWarnOrAnotherCode) {
  const std::string v = "NCCL INFO NCCL version 2.18.3+cuda12.2\n";
  const NcclRunFacts warned =
      analyze_nccl_log_text(v + "NCCL INFO misc/socket.cc:567 -> 2\n"
                                "NCCL WARN NET/IB : Got async event : GID table change\n"
                                "NCCL INFO transport/net_ib.cc:1047 -> 3\n",
                            "h8.log");
  EXPECT_TRUE(warned.first_error_trail.empty());
  JudgeInputs in;
  in.nccl_log = &warned;
  const Evaluation ev = evaluate(in, Catalog::builtin(), {});
  ASSERT_FALSE(ev.findings.empty());
  EXPECT_NE(ev.findings.front().message.find("[bootstrap-socket-failure]"), std::string::npos)
      << ev.findings.front().message;
  const NcclRunFacts recoded =
      analyze_nccl_log_text(v + "NCCL INFO misc/socket.cc:567 -> 2\n"
                                "NCCL INFO transport/net_ib.cc:1047 -> 3\n",
                            "h9.log");
  EXPECT_TRUE(recoded.first_error_trail.empty());
}

// An excerpt cut inside a trail whose WARN another thread printed just after is not silent: the
// socketPollConnect cause does not hold (the second review's C log).
TEST(NcclKbReading, ACutTrailWithItsWarnElsewhereIsNotSilent) {
  const auto r = read_nccl_messages(
      analyze_nccl_log_text(
          "a:2330:2658 [2] NCCL INFO misc/socket.cc:567 -> 2\n"
          "a:2330:2658 [2] NCCL INFO bootstrap.cc:270 -> 2\n"
          "b:4410:4470 [6] misc/socket.cc:508 NCCL WARN Call to getsockopt failed : Bad file "
          "descriptor\n"
          "b:4410:4470 [6] NCCL INFO misc/socket.cc:567 -> 2\n",
          "c.log"),
      NcclKnowledgeBase::builtin());
  for (const NcclMessageReading& x : r)
    if (x.cause) {
      EXPECT_FALSE(x.cause->when.trail_call.has_value()) << x.entry->id;
    }
}

}  // namespace
}  // namespace trainready::test
