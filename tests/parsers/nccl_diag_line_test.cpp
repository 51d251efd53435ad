// NCCL's diagnostics lines (parsers/nccl_diag_line.h): every format of NVIDIA/nccl v2.31.2-1's
// DIAG_PRINT and rasDiagnosticsReport, the dev branch's 2.31.0a16 wording and 2.32.3's docs.
#include "parsers/nccl_diag_line.h"

#include <gtest/gtest.h>

namespace trainready {
namespace {

using K = NcclDiagReading::Kind;

NcclDiagReading body_of(std::string_view line) {
  const auto d = find_nccl_diag(line);
  EXPECT_TRUE(d.has_value()) << line;
  return d ? read_nccl_diag_body(d->body) : NcclDiagReading{};
}

TEST(NcclDiagLine, HeadWithAndWithoutTheProcess) {
  auto d = find_nccl_diag("node042:12345 NCCL DIAG === RAS Diagnostics ===");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->host, "node042:12345");
  EXPECT_EQ(d->body, "=== RAS Diagnostics ===");
  d = find_nccl_diag("  NCCL DIAG === NCCL Diagnostics ===");  // the docs' form
  ASSERT_TRUE(d);
  EXPECT_EQ(d->host, "");
  // A person's sentence that names the tag is not a line of NCCL's.
  EXPECT_FALSE(find_nccl_diag("grep for NCCL DIAG lines in stdout"));
  EXPECT_FALSE(find_nccl_diag("node0:24563:24563 [0] NCCL INFO Init COMPLETE"));
  // A clock before the tag is no process ("12:34:56 NCCL DIAG ...": host "12:34").
  EXPECT_FALSE(find_nccl_diag("[2026-12-04 12:34:56 NCCL DIAG [OK]   p2p: all 2 directed GPU"));
  EXPECT_FALSE(
      find_nccl_diag("host:12ab NCCL DIAG [OK]   p2p: all 2 directed GPU P2P edges verified"));
}

TEST(NcclDiagLine, ReportFrames) {
  EXPECT_EQ(body_of("h:1 NCCL DIAG === NCCL Diagnostics ===").kind, K::kActiveHeader);
  EXPECT_EQ(body_of("h:1 NCCL DIAG === RAS Diagnostics ===").kind, K::kRasHeader);
  EXPECT_EQ(body_of("h:1 NCCL DIAG NCCL diagnostics completed in 245.3 ms across 8 ranks").kind,
            K::kActiveDone);
  EXPECT_EQ(body_of("h:1 NCCL DIAG RAS diagnostics completed in 12.3 ms across 8 RAS peers").kind,
            K::kRasDone);
}

// p2p.cc:374-381 (2.31) and 2.32.3's diagnostics.rst.
TEST(NcclDiagLine, P2pSummaries) {
  NcclDiagReading r = body_of("h:1 NCCL DIAG [OK]   p2p: all 56 directed GPU P2P edges verified");
  EXPECT_EQ(r.kind, K::kP2pSummary);
  EXPECT_EQ(r.tested, 56u);
  EXPECT_EQ(r.passed, 56u);
  r = body_of(
      "h:1 NCCL DIAG [INFO] p2p: 52/56 directed GPU P2P edges verified (skipped indirect=4)");
  EXPECT_EQ(r.passed, 52u);
  EXPECT_EQ(r.tested, 56u);
  EXPECT_EQ(r.skipped_indirect, 4u);
  r = body_of(
      "NCCL DIAG [OK]   p2p: verified P2P access in both directions between every GPU "
      "pair (56 peer accesses)");
  EXPECT_EQ(r.kind, K::kP2pSummary);
  EXPECT_EQ(r.passed, 56u);
  r = body_of("NCCL DIAG [INFO] p2p: only 52/56 GPU-to-GPU peer accesses passed verification");
  EXPECT_EQ(r.passed, 52u);
  EXPECT_EQ(r.tested, 56u);
}

// p2p.cc:289 and :300-341 at v2.31.2-1; the dev branch's "IPC handle export/import failed".
TEST(NcclDiagLine, FailingEdges) {
  NcclDiagReading r = body_of(
      "h:1 NCCL DIAG [INFO] p2p: write mismatch srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 "
      "dstCudaDev=1 dstNvmlDev=1 path=PXB handle=LEGACY_CUDA_IPC expected=0x4000000000000001 "
      "got=0x0000000000000000 verify=0x0000000000000000; check the affected pair with 'nvidia-smi "
      "topo -p2p p', then check Linux bare-metal IOMMU mode and PCIe ACS settings");
  ASSERT_EQ(r.kind, K::kEdge);
  EXPECT_EQ(r.edge.failure, "write mismatch");
  EXPECT_EQ(r.edge.reason, "writeMismatch");
  EXPECT_EQ(r.edge.src_rank, 0);
  EXPECT_EQ(r.edge.dst_rank, 1);
  EXPECT_EQ(r.edge.dst_dev, 1);
  EXPECT_EQ(r.edge.path, "PXB");
  EXPECT_EQ(r.edge.handle, "LEGACY_CUDA_IPC");
  EXPECT_NE(r.edge.advice.find("PCIe ACS"), std::string::npos);
  r = body_of(
      "h:1 NCCL DIAG [INFO] p2p: IPC handle export/import failed srcRank=2 srcCudaDev=2 "
      "srcNvmlDev=2 dstRank=6 dstCudaDev=6 dstNvmlDev=6 path=NVL handle=CUMEM_POSIX_FD "
      "reason=import");
  ASSERT_EQ(r.kind, K::kEdge);
  EXPECT_EQ(r.edge.reason, "import");
  EXPECT_EQ(r.edge.advice, "");
  EXPECT_EQ(r.edge.src_dev, 2);
  // Fields right after "p2p: " (found by fuzz_nccl_diag_line): no failure text, the fields read.
  r = body_of("h:1 NCCL DIAG [INFO] p2p: srcRank=1 srcCudaDev=1 dstRank=0 dstCudaDev=0 path=NVL");
  ASSERT_EQ(r.kind, K::kEdge);
  EXPECT_EQ(r.edge.failure, "");
  EXPECT_EQ(r.edge.path, "NVL");
}

TEST(NcclDiagLine, TheCheckItself) {
  NcclDiagReading r = body_of("h:1 NCCL DIAG [INFO] p2p: setup failed on rank 3 result=2");
  ASSERT_EQ(r.kind, K::kResult);
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kIncomplete);
  EXPECT_EQ(r.result.ranks, "{3}");
  r = body_of("h:1 NCCL DIAG [INFO] transport detect returned 3");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kP2p);
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kIncomplete);
  r = body_of(
      "h:1 NCCL DIAG [INFO] p2p: temporarily enabled context-wide CUDA peer access rank=0 "
      "cudaDev=0; avoid concurrent CUDA use on this context until diagnostics completes");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kNote);
}

// diagnostics_gpu.cc / diagnostics_env.cc / diagnostics_checks_common.cc at v2.31.2-1.
TEST(NcclDiagLine, RasResults) {
  NcclDiagReading r = body_of(
      "h:1 NCCL DIAG [INFO] ECC: uncorrected volatile errors on rank(s) {0,1,2,3,4,5,6,7,...} "
      "(N=12) (worst=5) across 16 ranks in comm 0xabc");
  ASSERT_EQ(r.kind, K::kResult);
  EXPECT_EQ(r.result.check, NcclDiagCheck::kEcc);
  EXPECT_EQ(r.result.what, "uncorrected");
  EXPECT_EQ(r.result.ranks, "{0,1,2,3,4,5,6,7,...} (N=12)");
  r = body_of(
      "h:1 NCCL DIAG [INFO] GPU inventory: model mismatch across 16 ranks in comm 0xabc, rank(s) "
      "{8} differ from rank 0 (NVIDIA H100 80GB HBM3)");
  EXPECT_EQ(r.result.what, "model mismatch");
  EXPECT_EQ(r.result.ranks, "{8}");
  r = body_of("h:1 NCCL DIAG [INFO] CUDA driver version: unavailable across 8 ranks in comm 0x1");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kUnavailable);
  r = body_of(
      "h:1 NCCL DIAG [INFO] NVLink: diagnostics incomplete, gathered 6/8 ranks in comm "
      "0x1/0x2/0x3 (RAS overlay may not be ready)");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kNvlink);
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kIncomplete);
  r = body_of(
      "h:1 NCCL DIAG [OK]   NVLink: 18 links per GPU, all active at consistent speed "
      "across 8 ranks in comm 0x1234");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kOk);
  // A check of 2.32 this reader does not know by name.
  r = body_of("h:1 NCCL DIAG [INFO] Peer fabric: degraded on rank(s) {0,1} in comm 0x1");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kOther);
  EXPECT_EQ(r.result.check_name, "Peer fabric");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kFlagged);
  EXPECT_EQ(body_of("h:1 NCCL DIAG ERROR: diagnostics summary failed (3)").result.verdict,
            NcclDiagVerdict::kIncomplete);
  EXPECT_EQ(body_of("h:1 NCCL DIAG something new").kind, K::kUnknown);
}

// 2.32's Xid/SXid scan (src/ras/diagnostics_xid.cc @ v2.32.3-1): every format of
// rasDiagnosticsXidReportFinding and rasDiagnosticsXidSummarize, rendered.
TEST(NcclDiagLine, XidAndSxidEvents) {
  NcclDiagReading r = body_of(
      "gpu-a01:4711 NCCL DIAG [INFO] Xid 79 detected 2 times on host gpu-a01.cluster.local. For "
      "the recommended response, see the NVIDIA Xid documentation: "
      "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html");
  ASSERT_EQ(r.kind, K::kResult);
  EXPECT_EQ(r.result.check, NcclDiagCheck::kXid);
  EXPECT_EQ(r.result.check_name, "Xid/SXid");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kFlagged);
  EXPECT_EQ(r.result.code, 79);
  EXPECT_EQ(r.result.count, "2");
  EXPECT_EQ(r.result.node, "gpu-a01.cluster.local");  // the host's dots kept, the period not
  EXPECT_EQ(r.result.what, "see catalog");
  r = body_of(
      "h:1 NCCL DIAG [INFO] Xid 95 detected at least 65535 times on host b. The NVIDIA Xid "
      "catalog recommends resetting the affected GPU. Follow the documented GPU-reset "
      "capabilities and limitations: https://docs.nvidia.com/deploy/xid-errors/x.html");
  EXPECT_EQ(r.result.what, "reset GPU");
  EXPECT_EQ(r.result.count, "at least 65535");
  EXPECT_EQ(r.result.node, "b");
  r = body_of(
      "h:1 NCCL DIAG [INFO] Xid 13 detected 1 time on host b. Restart the affected application. "
      "For guidance, see the NVIDIA Xid documentation: https://x");
  EXPECT_EQ(r.result.what, "restart application");
  EXPECT_EQ(r.result.count, "1");
  r = body_of(
      "h:1 NCCL DIAG [INFO] Xid 31 detected 3 times on host v. A pre-Ampere GPU was detected on "
      "this host. For guidance, see the archived NVIDIA Xid documentation: https://x");
  EXPECT_EQ(r.result.what, "pre-Ampere");
  r = body_of(
      "h:1 NCCL DIAG [OK]   Xid 63 detected 1 time on host a. No user action or further "
      "investigation is required for this Xid.");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kOk);
  EXPECT_EQ(r.result.what, "no action");
  r = body_of(
      "h:1 NCCL DIAG [INFO] SXid 24007 detected 1 time (NVSwitch driver reported Fatal, link(s) "
      "{3,5}) on host a. See the NVIDIA Fabric Manager documentation for the recommended "
      "response: https://docs.nvidia.com/hgx-platforms/fabric-manager-user-guide/index.html");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kXid);
  EXPECT_EQ(r.result.code, 24007);
  EXPECT_EQ(r.result.what, "fatal");
  EXPECT_EQ(r.result.detail, "links {3,5}");
  EXPECT_EQ(r.result.node, "a");
  r = body_of(
      "h:1 NCCL DIAG [INFO] SXid 12028 detected 4 times (NVSwitch driver reported Non-fatal, "
      "link(s) {0}) on host a. See the NVIDIA Fabric Manager documentation for the recommended "
      "response: https://x");
  EXPECT_EQ(r.result.what, "non-fatal");
  r = body_of(
      "h:1 NCCL DIAG [OK]   SXid 11012 detected 1 time (NVSwitch driver reported Non-fatal, "
      "link(s) {7}) on host a. No user action or further investigation is required for this "
      "SXid.");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kOk);
  r = body_of("h:1 NCCL DIAG [INFO] Xid/SXid: no kernel-log source was available on host c");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kXid);
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kUnavailable);
  EXPECT_EQ(r.result.node, "c");
  r = body_of("h:1 NCCL DIAG [INFO] Xid/SXid: recent-event scan was truncated on host c");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kIncomplete);
  r = body_of(
      "h:1 NCCL DIAG [OK]   Xid/SXid: no events requiring immediate attention across 2 hosts");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kOk);
  // Not an event: no code, or no "detected".
  r = body_of("h:1 NCCL DIAG [INFO] Xid x detected 1 time on host a.");
  EXPECT_NE(r.result.check, NcclDiagCheck::kXid);
  r = body_of("h:1 NCCL DIAG [INFO] Xid/SXid: 1 event on 1 host in comm 0x1");
  EXPECT_EQ(r.result.what, "unread");
}

// 2.32.3's other new RAS checks (src/ras/diagnostics_gpu.cc, diagnostics_pci.cc,
// diagnostics_paths.cc @ v2.32.3-1), rendered.
TEST(NcclDiagLine, RasChecksOf232) {
  auto result = [](std::string_view line) { return body_of(line).result; };
  NcclDiagResult x = result(
      "h:1 NCCL DIAG [INFO] NVLink: inconsistent link speeds on rank(s) {9} across 16 "
      "ranks in comm 0x5a1c");
  EXPECT_EQ(x.check, NcclDiagCheck::kNvlink);
  EXPECT_EQ(x.what, "inconsistent speeds");
  EXPECT_EQ(x.ranks, "{9}");
  EXPECT_EQ(result("h:1 NCCL DIAG [OK]   NVLink: 18 links per GPU, all active at consistent "
                   "speed across 8 ranks in comm 0x1234")
                .verdict,
            NcclDiagVerdict::kOk);
  x = result(
      "h:1 NCCL DIAG [INFO] NVIDIA graphics driver version: mismatch across 16 ranks in comm "
      "0x5a1c, rank(s) {8,9} differ from rank 0 (610.47.03)");
  EXPECT_EQ(x.check, NcclDiagCheck::kGpuDriver);
  EXPECT_EQ(x.what, "mismatch");
  EXPECT_EQ(x.ranks, "{8,9}");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] NVIDIA graphics driver version: unavailable via NVML "
                   "across 8 ranks in comm 0x1")
                .verdict,
            NcclDiagVerdict::kUnavailable);
  EXPECT_EQ(
      result("h:1 NCCL DIAG [INFO] CUDA driver version: no driver installed across 8 ranks in "
             "comm 0x1")
          .verdict,
      NcclDiagVerdict::kUnavailable);
  x = result(
      "h:1 NCCL DIAG [INFO] rdma_topo check: failed on rank(s) {0,1} across 8/8 ranks in comm "
      "0x1; first rank 0 exit 1: FAIL\tACS is enabled on 0000:17:00.0");
  EXPECT_EQ(x.check, NcclDiagCheck::kRdmaTopo);
  EXPECT_EQ(x.what, "failed");
  EXPECT_EQ(x.ranks, "{0,1}");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] rdma_topo check: not usable on 8/8 ranks in comm 0x1 "
                   "(needs root)")
                .verdict,
            NcclDiagVerdict::kUnavailable);
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] rdma_topo check: not usable on 8/8 ranks in comm 0x1 "
                   "(not applicable)")
                .what,
            "not applicable");
  x = result(
      "h:1 NCCL DIAG [INFO] IOMMU mode: enabled (DMA remapping) for 16 relevant device(s) across "
      "8/8 ranks in comm 0x1");
  EXPECT_EQ(x.check, NcclDiagCheck::kIommu);
  EXPECT_EQ(x.what, "DMA remapping");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] IOMMU mode: mismatch across 32 relevant device(s) on "
                   "16/16 ranks in comm 0x1")
                .what,
            "mismatch");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] IOMMU mode: passthrough on 16 device(s); first rank 0 "
                   "device 0000:1b:00.0 in comm 0x1")
                .verdict,
            NcclDiagVerdict::kNote);
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] IOMMU groups: GPU and NIC groups differ on 2 pair(s) "
                   "in comm 0x1; first rank 3 GPU group 40 NIC 0000:1a:00.0 group 41")
                .what,
            "groups differ");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] IOMMU mode: unable to identify relevant GPU/NIC pairs "
                   "on 8/8 ranks in comm 0x1")
                .verdict,
            NcclDiagVerdict::kUnavailable);
  x = result(
      "h:1 NCCL DIAG [INFO] ATS state: disabled on 8 rank/NIC pair(s) across 8/16 ranks in comm "
      "0x1");
  EXPECT_EQ(x.check, NcclDiagCheck::kAts);
  EXPECT_EQ(x.what, "disabled");
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] ATS state: PCIe capabilities require root access on 8 "
                   "rank/NIC pair(s) across 8/8 ranks in comm 0x1")
                .verdict,
            NcclDiagVerdict::kUnavailable);
  EXPECT_EQ(result("h:1 NCCL DIAG [INFO] ATS state: lspci output truncated on rank(s) {3} in "
                   "comm 0x1")
                .verdict,
            NcclDiagVerdict::kIncomplete);
  x = result("h:1 NCCL DIAG [INFO] Paths: self+NVL+SYS(1/16)+NET across 16 ranks in comm 0x1");
  EXPECT_EQ(x.check, NcclDiagCheck::kPaths);
  EXPECT_EQ(x.what, "uneven");
  EXPECT_EQ(x.detail, "self+NVL+SYS(1/16)+NET");
  EXPECT_EQ(result("h:1 NCCL DIAG [OK]   Paths: self+NVL+NET across 16 ranks in comm 0x1").verdict,
            NcclDiagVerdict::kOk);
  // A later development line's check (diagnostics_net.cc, not in 2.32.3): read by name only.
  x = result(
      "h:1 NCCL DIAG [INFO] Net device mlx5_0:1: reported on only 1 of 2 nodes in comm 0x1 "
      "(device may be missing on some nodes)");
  EXPECT_EQ(x.check, NcclDiagCheck::kOther);
}

TEST(NcclDiagLine, NetBw) {
  NcclDiagReading r = body_of(
      "node0:24563 NCCL DIAG [INFO] net bw: cross-nic rank 3 (node0): 265.1 Gbit/s, >30% off "
      "median 391.5 Gbit/s in comm 0x7a3f9b2c41d05e88");
  EXPECT_EQ(r.result.check, NcclDiagCheck::kNetBw);
  EXPECT_EQ(r.result.what, "outlier");
  EXPECT_EQ(r.result.ranks, "{3}");
  r = body_of("h:1 NCCL DIAG [INFO] net bw: required external tool missing in comm 0x1");
  EXPECT_EQ(r.result.what, "tool missing");
  r = body_of("h:1 NCCL DIAG [OK] net bw: skipped (single host or no network transport)");
  EXPECT_EQ(r.result.verdict, NcclDiagVerdict::kNote);
}

TEST(NcclDiagLine, ClientRefusals) {
  EXPECT_TRUE(is_ras_diag_refusal("BUSY: diagnostics already in progress"));
  EXPECT_TRUE(is_ras_diag_refusal("ERROR: diagnostics failed to start (3)"));
  EXPECT_FALSE(is_ras_diag_refusal("ERROR: something else"));
}

}  // namespace
}  // namespace trainready
