// nccl-diag-p2p, nccl-diag-ras, nccl-diag-net-bw: NCCL's own diagnostics (2.31+) judged. The
// fixtures are NVIDIA's documented examples; the failing edges are 2.31.2's formats rendered.
#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

// Everything passed: NCCL's docs' example reports.
TEST(NcclDiagRules, QuietWhenEveryCheckPassed) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl-diag-docs-2.31.2-active-and-ras-ok.log");
  EXPECT_EQ(f.diagnostics.active_reports, 1u);
  EXPECT_EQ(f.diagnostics.ras_reports, 1u);
  EXPECT_EQ(f.diagnostics.p2p_tested, 56u);
  EXPECT_EQ(f.diagnostics.results.size(), 5u);
  EXPECT_EQ(f.diagnostics.flagged(), 0u);
  ASSERT_TRUE(f.diagnostics.ras_done);
  for (const char* id : {"nccl-diag-p2p", "nccl-diag-ras", "nccl-diag-net-bw"})
    EXPECT_TRUE(log_rule(id, f).findings.empty()) << id;
}

// NVIDIA's example differs in NCCL_DEBUG only: what NCCL logs, not how it connects (a note).
TEST(NcclDiagRules, RasEnvironmentMismatchNamesTheValues) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl-diag-docs-2.31.2-ras-env-mismatch.log");
  RuleOutcome o = log_rule("nccl-diag-ras", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("(NCCL_DEBUG)"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("NCCL_DEBUG=INFO on rank(s) {0,1,2,3}"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("NCCL_DEBUG=WARN on rank(s) {4,5,6,7}"), std::string::npos);
  EXPECT_TRUE(log_rule("nccl-diag-p2p", f).findings.empty());
}

// A variable that changes what NCCL does is a warning, named first.
TEST(NcclDiagRules, RasEnvironmentMismatchOfATransportSettingWarns) {
  const std::string text =
      "h:1 NCCL DIAG [INFO] NCCL environment: mismatch across 4 ranks in comm 0x1 for "
      "NCCL_DEBUG_FILE\n"
      "h:1 NCCL DIAG [INFO] NCCL environment: mismatch across 4 ranks in comm 0x1 for NCCL_IB_HCA\n"
      "h:1 NCCL DIAG [INFO] NCCL environment: NCCL_IB_HCA=mlx5_0 on rank(s) {0,1}\n"
      "h:1 NCCL DIAG [INFO] NCCL environment: NCCL_IB_HCA=(unset) on rank(s) {2,3}\n";
  RuleOutcome o = log_rule("nccl-diag-ras", log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("NCCL_IB_HCA=(unset) on rank(s) {2,3}"), std::string::npos);
}

// 2.32's wordings of a known check, and checks this tool does not know by name, are quoted as
// notes, not 2.31 findings; so is an Xid/SXid line in no format of 2.32.3's source.
TEST(NcclDiagRules, LaterWordingsAreNotes) {
  const std::string text =
      "h:1 NCCL DIAG [INFO] NVLink: link speed mismatch across 8 ranks in comm 0x1\n"
      "h:1 NCCL DIAG [INFO] Net device mlx5_0:1: reported on only 1 of 2 nodes in comm 0x1\n"
      "h:1 NCCL DIAG [INFO] Xid/SXid: 1 event on 1 host across 8 ranks in comm 0x1\n";
  const NcclRunFacts f = log_text(text);
  RuleOutcome o = log_rule("nccl-diag-ras", f);
  ASSERT_EQ(o.findings.size(), 2u);
  for (const Finding& x : o.findings) EXPECT_EQ(x.severity, Severity::kInfo);
  o = log_rule("nccl-diag-xid", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("wording"), std::string::npos);
}

// 2.32's Xid/SXid scan: events during the job, judged per code, hosts named; an [OK] event and
// the other checks' rules stay quiet about them.
TEST(NcclDiagRules, XidAndSxidEventsDuringTheJob) {
  NcclRunFacts f = log_synthetic("nccl-diag-2.32-xid-sxid.log");
  RuleOutcome o = log_rule("nccl-diag-xid", f);
  ASSERT_EQ(o.findings.size(), 5u);
  auto find = [&](std::string_view s) -> const Finding* {
    for (const Finding& x : o.findings)
      if (x.message.find(s) != std::string::npos) return &x;
    return nullptr;
  };
  const Finding* sxid = find("fatal NVSwitch SXid 24007");
  ASSERT_NE(sxid, nullptr);
  EXPECT_EQ(sxid->severity, Severity::kError);
  EXPECT_NE(sxid->message.find("links {3,5}"), std::string::npos);
  EXPECT_NE(sxid->fix.find("Fabric Manager"), std::string::npos);
  // Xid 79: NCCL points at the catalog; AzNHC and the catalog (RESTART_BM) make it an error.
  const Finding* x79 = find("Xid 79 (GPU has fallen off the bus) on host(s) gpu-a01.cluster.local");
  ASSERT_NE(x79, nullptr);
  EXPECT_EQ(x79->severity, Severity::kError);
  EXPECT_NE(x79->cause.find("2 on gpu-a01.cluster.local"), std::string::npos);
  EXPECT_NE(x79->cause.find("not one left from before a repair"), std::string::npos);
  EXPECT_NE(x79->fix.find("reboot"), std::string::npos);
  // Xid 95: NCCL's own "reset the GPU".
  const Finding* x95 = find("Xid 95");
  ASSERT_NE(x95, nullptr);
  EXPECT_EQ(x95->severity, Severity::kError);
  EXPECT_NE(x95->cause.find("at least 65535 on gpu-a02"), std::string::npos);
  // Xid 13: restart the application, a warning.
  const Finding* x13 = find("Xid 13");
  ASSERT_NE(x13, nullptr);
  EXPECT_EQ(x13->severity, Severity::kWarning);
  // Xid 63 was [OK]: no finding names it.
  EXPECT_EQ(find("Xid 63"), nullptr);
  const Finding* scan = find("could not scan the kernel log");
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->severity, Severity::kInfo);
  EXPECT_NE(scan->message.find("gpu-a03"), std::string::npos);
  EXPECT_TRUE(log_rule("nccl-diag-ras", f).findings.empty());
}

// 2.32.3's RAS checks: NVLink speeds, the graphics driver, IOMMU, ATS, paths; rdma_topo that
// needed root is a note that says so.
TEST(NcclDiagRules, RasChecksOf232) {
  const NcclRunFacts f = log_synthetic("nccl-diag-2.32-ras-pci-paths.log");
  RuleOutcome o = log_rule("nccl-diag-ras", f);
  auto find = [&](std::string_view s) -> const Finding* {
    for (const Finding& x : o.findings)
      if (x.message.find(s) != std::string::npos) return &x;
    return nullptr;
  };
  ASSERT_EQ(o.findings.size(), 7u);
  for (const char* s :
       {"NVLink: inconsistent link speeds on rank(s) {9}",
        "NVIDIA graphics driver version: mismatch on rank(s) {8,", "IOMMU mode: DMA remapping",
        "IOMMU mode: mismatch", "Paths: self+NVL+SYS(1/16)+NET"}) {
    const Finding* x = find(s);
    ASSERT_NE(x, nullptr) << s;
    EXPECT_EQ(x->severity, Severity::kWarning) << s;
  }
  EXPECT_NE(find("IOMMU mode: DMA remapping")->fix.find("iommu=pt"), std::string::npos);
  EXPECT_NE(find("IOMMU mode: DMA remapping")->evidence[0].text.find("first rank 8"),
            std::string::npos);
  const Finding* ats = find("ATS state: disabled");
  ASSERT_NE(ats, nullptr);
  EXPECT_EQ(ats->severity, Severity::kInfo);
  EXPECT_EQ(ats->evidence.size(), 2u);  // the summary and its detail line
  const Finding* partial = find("could not check everything");
  ASSERT_NE(partial, nullptr);
  EXPECT_NE(partial->cause.find("needs root"), std::string::npos);
  EXPECT_NE(partial->fix.find("rdma_topo check"), std::string::npos);
  EXPECT_TRUE(log_rule("nccl-diag-xid", f).findings.empty());
}

// rdma_topo without a ConnectX DMA Direct function is the usual case, not a gap; a failed check
// is a warning.
TEST(NcclDiagRules, RdmaTopoNotApplicableIsQuietAndFailedWarns) {
  RuleOutcome o =
      log_rule("nccl-diag-ras", log_text("h:1 NCCL DIAG [INFO] rdma_topo check: not usable on 8/8 "
                                         "ranks in comm 0x1 (not applicable)\n"));
  EXPECT_TRUE(o.findings.empty());
  o = log_rule("nccl-diag-ras",
               log_text("h:1 NCCL DIAG [INFO] rdma_topo check: failed on rank(s) {0,1} across "
                        "8/8 ranks in comm 0x1; first rank 0 exit 1: FAIL\tbad\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("rdma_topo check: failed on rank(s) {0,1}"),
            std::string::npos);
}

TEST(NcclDiagRules, XidQuietWhenNcclFoundNothing) {
  const std::string text =
      "h:1 NCCL DIAG [OK]   Xid/SXid: no events requiring immediate attention across 2 hosts\n"
      "h:1 NCCL DIAG [OK]   Xid 106 detected 1 time on host a. No user action or further "
      "investigation is required for this Xid.\n";
  EXPECT_TRUE(log_rule("nccl-diag-xid", log_text(text)).findings.empty());
  EXPECT_TRUE(log_rule("nccl-diag-ras", log_text(text)).findings.empty());
}

TEST(NcclDiagRules, RasEccAndNvlinkAreErrors) {
  const std::string text =
      "node042:12345 NCCL DIAG === RAS Diagnostics ===\n"
      "node042:12345 NCCL DIAG [INFO] ECC: uncorrected volatile errors on rank(s) {3} (worst=2) "
      "across 8 ranks in comm 0x1234\n"
      "node042:12345 NCCL DIAG [INFO] NVLink: inactive link(s) on rank(s) {5,6} across 8 ranks in "
      "comm 0x1234\n"
      "node042:12345 NCCL DIAG [INFO] CUDA driver version: diagnostics incomplete, gathered 6/8 "
      "ranks in comm 0x1234/0x0/0x0 (RAS overlay may not be ready)\n";
  RuleOutcome o = log_rule("nccl-diag-ras", log_text(text));
  ASSERT_EQ(o.findings.size(), 3u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("ECC: uncorrected volatile errors on rank(s) {3}"),
            std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("ROW_REMAPPER"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].message.find("NVLink: inactive links on rank(s) {5,6}"),
            std::string::npos);
  EXPECT_EQ(o.findings[2].severity, Severity::kInfo);
}

// 2.31.2's failing-edge line, as p2p.cc:314-315 prints it for a cuMem POSIX-FD import.
TEST(NcclDiagRules, P2pFailingEdgesNameThePairAndNcclsAdvice) {
  const std::string text =
      "node0:24563:24563 [0] NCCL INFO NCCL version 2.31.2+cuda13.0\n"
      "node0:24563 NCCL DIAG === NCCL Diagnostics ===\n"
      "node0:24563 NCCL DIAG [INFO] p2p: 54/56 directed GPU P2P edges verified\n"
      "node0:24563 NCCL DIAG [INFO] p2p: peer-memory import failed srcRank=3 srcCudaDev=3 "
      "srcNvmlDev=3 dstRank=5 dstCudaDev=5 dstNvmlDev=5 path=NVL handle=CUMEM_POSIX_FD "
      "reason=import; check cuMem POSIX-FD sharing support and process or container permissions\n"
      "node0:24563 NCCL DIAG [INFO] p2p: peer-memory import failed srcRank=5 srcCudaDev=5 "
      "srcNvmlDev=5 dstRank=3 dstCudaDev=3 dstNvmlDev=3 path=NVL handle=CUMEM_POSIX_FD "
      "reason=import; check cuMem POSIX-FD sharing support and process or container permissions\n"
      "node0:24563 NCCL DIAG NCCL diagnostics completed in 245.3 ms across 8 ranks\n";
  NcclRunFacts f = log_text(text);
  EXPECT_EQ(f.diagnostics.edges.size(), 2u);
  RuleOutcome o = log_rule("nccl-diag-p2p", f);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_EQ(x.severity, Severity::kError);
  EXPECT_NE(x.message.find("2 of 56"), std::string::npos);
  EXPECT_NE(x.cause.find("rank 3 (GPU 3) -> rank 5 (GPU 5) over NVL, CUMEM_POSIX_FD, on node0"),
            std::string::npos);
  EXPECT_NE(x.cause.find("file descriptor"), std::string::npos);
  EXPECT_NE(x.fix.find("NCCL's advice: check cuMem POSIX-FD sharing"), std::string::npos);
  EXPECT_NE(x.fix.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  EXPECT_EQ(x.evidence.size(), 2u);  // the summary and the first edge of the kind
  // A second communicator's init checks the same pairs again: still two edges.
  NcclRunFacts again = log_text(text + text.substr(text.find('\n') + 1));
  EXPECT_EQ(again.diagnostics.edges.size(), 2u);
  EXPECT_EQ(again.diagnostics.edge_lines, 2u);
}

// The dev branch's import line prints no advice: 2.31.2's advice for its handle.
TEST(NcclDiagRules, P2pImportWithoutAdviceGetsTheHandlesAdvice) {
  const std::string text =
      "h:7 NCCL DIAG [INFO] p2p: IPC handle export/import failed srcRank=2 srcCudaDev=2 "
      "srcNvmlDev=2 dstRank=6 dstCudaDev=6 dstNvmlDev=6 path=NVL handle=LEGACY_CUDA_IPC "
      "reason=import\n";
  RuleOutcome o = log_rule("nccl-diag-p2p", log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("check CUDA IPC support, GPU visibility"), std::string::npos);
}

// The dev branch's wording prints no advice: the tool gives NCCL 2.31.2's for the path.
TEST(NcclDiagRules, P2pMismatchWithoutAdviceGetsTheReleasesAdvice) {
  const std::string text =
      "h:7 NCCL DIAG [INFO] p2p: 1/2 directed GPU P2P edges verified\n"
      "h:7 NCCL DIAG [INFO] p2p: write mismatch srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 "
      "dstCudaDev=1 dstNvmlDev=1 path=PXB handle=LEGACY_CUDA_IPC expected=0x4000000000000001 "
      "got=0x0000000000000000 verify=0x0000000000000000\n";
  RuleOutcome o = log_rule("nccl-diag-p2p", log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("ACS"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("'nvidia-smi topo -p2p p'"), std::string::npos);
}

TEST(NcclDiagRules, P2pSummaryWithoutTheEdgesAsksForThem) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl-diag-docs-2.32.3-p2p-partial-and-net-bw.log");
  EXPECT_EQ(f.diagnostics.p2p_passed, 52u);
  RuleOutcome o = log_rule("nccl-diag-p2p", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("4 of 56"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("first rank"), std::string::npos);
}

TEST(NcclDiagRules, NetBwOutlierFires) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl-diag-docs-2.32.3-p2p-partial-and-net-bw.log");
  RuleOutcome o = log_rule("nccl-diag-net-bw", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("1 rank(s)"), std::string::npos);
  // Quiet on a same-nic figure within range, and a note when the tool is missing.
  const std::string ok =
      "node0:1 NCCL DIAG [OK] net bw: 376.1/391.5/398.2 Gbit/s min/median/max same-nic bw "
      "(across 8 ranks) in comm 0x7a\n";
  EXPECT_TRUE(log_rule("nccl-diag-net-bw", log_text(ok)).findings.empty());
  o = log_rule("nccl-diag-net-bw",
               log_text(ok + "node0:1 NCCL DIAG [INFO] net bw: required external tool missing in "
                             "comm 0x7a\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].fix.find("perftest"), std::string::npos);
  // A pair's failure from both ends, past 240 characters with long host names: one pair, and
  // the detail read from the whole line; "N more ranks" counts N.
  const std::string host(120, 'h');
  const std::string pair = "mode=same-nic server_rank=0 server_host=" + host +
                           " server_device=mlx5_0 client_rank=8 client_host=" + host +
                           " client_device=mlx5_0";
  o = log_rule("nccl-diag-net-bw",
               log_text("n:1 NCCL DIAG [INFO] net bw: " + pair + " tool missing in comm 0x7a\n" +
                        "n:1 NCCL DIAG [INFO] net bw: " + pair +
                        " memory=cuda+dmabuf tool missing in comm 0x7a\n" +
                        "n:1 NCCL DIAG [INFO] net bw: cross-nic: 3 more ranks >30% off median in "
                        "comm 0x7a\n"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_NE(o.findings[0].message.find("3 rank(s)"), std::string::npos);
  EXPECT_NE(o.findings[1].message.find("1 NIC pair(s)"), std::string::npos);
  EXPECT_NE(o.findings[1].fix.find("perftest"), std::string::npos);
}

// The DIAG lines make a log NCCL output on their own (`ncclras -D` saved to a file).
TEST(NcclDiagRules, DiagLinesAloneAreNcclOutput) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl-diag-docs-2.31.2-ras-env-mismatch.log");
  EXPECT_TRUE(has_nccl_output(f));
  EXPECT_EQ(f.nccl_lines, 10u);
}

}  // namespace
}  // namespace trainready::test
