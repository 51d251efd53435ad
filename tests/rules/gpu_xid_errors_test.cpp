#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/root.h"
#include "parsers/kernel_log.h"
#include "probes/probes.h"
#include "support/paths.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;
namespace fs = std::filesystem;

namespace {

// The fixture's lines placed as of a boot before all of them (the window is not applied: no
// time of reading), so they are judged as current.
NodeFacts with_log(const std::string& rel) {
  NodeFacts n = healthy_nd_h100();
  KernelLogFacts k = parse_kernel_log(read_fixture(rel), rel);
  KernelLogClock clock;
  clock.boot_time = 1;
  place_kernel_log_times(k, clock);
  n.kernel_log = Fact<KernelLogFacts>::present(k, {rel, 0});
  return n;
}

// A snapshot tree as `collect` writes it: /proc/stat (btime 2026-11-28 22:00:00 UTC), the
// manifest (collected 2026-11-29 00:00:00 UTC) and `log` at `path`.
constexpr const char* kBtime = "btime 1795903200\n";
std::string node_tree(const std::string& name, const std::string& path, const std::string& log,
                      bool with_stat = true) {
  const std::string d = temp_dir(name);
  fs::create_directories(d + "/proc");
  fs::create_directories(d + "/trainready/commands");
  fs::create_directories(d + "/var/log");
  if (with_stat)
    std::ofstream(d + "/proc/stat") << "cpu  1 2 3 4 5 6 7 0 0 0\nintr 12 0 0\nctxt 99\n"
                                    << kBtime << "processes 10\n";
  std::ofstream(d + "/trainready/manifest.json")
      << R"({"schema_version": 1, "collected_at": "2026-11-29T00:00:00Z"})"
      << "\n";
  std::ofstream(d + path) << log;
  return d;
}

// /var/log/kern.log as Ubuntu 22.04's rsyslog writes it (RSYSLOG_TraditionalFileFormat: local
// time, UTC on Azure images, the kernel's [seconds] after the tag), across a reboot.
const char* kKernLogAcrossReboot =
    "Nov 27 10:15:02 nd-h100-0007 kernel: [86012.334455] NVRM: Xid (PCI:0000:9b:00): 79, "
    "pid=1842, name=python, GPU has fallen off the bus.\n"
    "Nov 27 10:15:02 nd-h100-0007 kernel: [86012.334460] NVRM: GPU 0000:9b:00.0: GPU has fallen "
    "off the bus.\n"
    "Nov 28 21:59:58 nd-h100-0007 kernel: [    0.000000] Linux version 5.15.0-1061-azure "
    "(buildd@lcy02-amd64-019) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0)\n"
    "Nov 28 22:30:10 nd-h100-0007 kernel: [ 1810.123456] NVRM: Xid (PCI:0000:9b:00): 119, "
    "pid=2024380, name=python, Timeout after 6s of waiting for RPC response from GPU4 GSP! "
    "Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).\n"
    "Nov 28 23:40:00 nd-h100-0007 kernel: [ 6000.000001] NVRM: Xid (PCI:0000:9b:00): 48, "
    "pid=2024380, name=python, An uncorrectable double bit error (DBE) has been detected on GPU "
    "in the framebuffer at partition 4, subpartition 0.\n"
    "Nov 28 23:40:00 nd-h100-0007 kernel: [ 6000.000001] NVRM: Xid (PCI:0000:9b:00): 48, "
    "pid=2024380, name=python, An uncorrectable double bit error (DBE) has been detected on GPU "
    "in the framebuffer at partition 4, subpartition 0.\n";

const Finding* find_code(const RuleOutcome& o, const std::string& prefix) {
  for (const Finding& f : o.findings)
    if (f.message.rfind(prefix, 0) == 0) return &f;
  return nullptr;
}

}  // namespace

// Finding 1 of domain-review-3: an Xid 79 from before the reboot is info, not an error; the
// Xid 119 and 48 of this boot within 2 h are errors, the repeated 48 line is counted once.
TEST(GpuXidErrors, OnlyThisBootsRecentXidsAreErrors) {
  const std::string d = node_tree("xid-boot", "/var/log/kern.log", kKernLogAcrossReboot);
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = probe_kernel_log(FsRoot(d));
  ASSERT_TRUE(n.kernel_log.ok()) << n.kernel_log.describe();
  EXPECT_EQ(n.kernel_log->boot_time, 1795903200);
  EXPECT_EQ(n.kernel_log->read_at, 1795910400);
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  const Finding* x79 = find_code(o, "Xid 79 ");
  ASSERT_NE(x79, nullptr);
  EXPECT_EQ(x79->severity, Severity::kInfo);
  EXPECT_NE(x79->message.find("before the current boot"), std::string::npos) << x79->message;
  EXPECT_NE(x79->fix.find("Nothing to do for this boot"), std::string::npos);
  const Finding* x119 = find_code(o, "Xid 119 ");
  ASSERT_NE(x119, nullptr);
  EXPECT_EQ(x119->severity, Severity::kError);
  const Finding* x48 = find_code(o, "Xid 48 ");
  ASSERT_NE(x48, nullptr);
  EXPECT_EQ(x48->severity, Severity::kError);
  EXPECT_NE(x48->message.find("logged 1 time on"), std::string::npos) << x48->message;
  EXPECT_NE(x48->cause.find("counted once"), std::string::npos);

  // --xid-window 1h: the 119 of 22:30 (1.5 h before the snapshot) is past the window: info.
  RunOptions opt;
  opt.xid_window_s = 3600;
  o = run_rule("gpu-xid-errors", n, opt);
  x119 = find_code(o, "Xid 119 ");
  ASSERT_NE(x119, nullptr);
  EXPECT_EQ(x119->severity, Severity::kInfo);
  EXPECT_NE(x119->message.find("more than 60.0 min ago"), std::string::npos) << x119->message;
  EXPECT_EQ(find_code(o, "Xid 48 ")->severity, Severity::kError);
}

// ISO 8601 (Ubuntu 24.04's rsyslog, journalctl -o short-iso) carries its zone: 01:30+02:00 on
// Nov 29 is 23:30 UTC on Nov 28, after the boot; 23:30+02:00 on Nov 28 is 21:30 UTC, before it.
TEST(GpuXidErrors, IsoTimestampsWithTheirZone) {
  const std::string d = node_tree(
      "xid-iso", "/var/log/kern.log",
      "2026-11-28T23:30:00.123456+02:00 nd-h100-0007 kernel: NVRM: Xid (PCI:0000:9b:00): 79, "
      "pid=1, name=python, GPU has fallen off the bus.\n"
      "2026-11-29T01:30:00.000001+02:00 nd-h100-0007 kernel: NVRM: Xid (PCI:0000:9b:00): 94, "
      "pid=1, name=python, Contained: CE User Channel (0x9).\n");
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = probe_kernel_log(FsRoot(d));
  ASSERT_TRUE(n.kernel_log.ok());
  ASSERT_EQ(n.kernel_log->xids.size(), 2u);
  EXPECT_EQ(n.kernel_log->xids[0].time, 1795903200 - 1800);
  EXPECT_EQ(n.kernel_log->xids[1].time, 1795903200 + 5400);
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  EXPECT_EQ(find_code(o, "Xid 79 ")->severity, Severity::kInfo);
  EXPECT_NE(find_code(o, "Xid 94 ")->severity, Severity::kInfo);
}

// dmesg's "[seconds]" is since the boot (a snapshot's commands/dmesg.txt, same boot as its
// /proc/stat); a journal "-- Boot --" marker ends an earlier boot's lines.
TEST(GpuXidErrors, DmesgSecondsAndJournalBootMarkers) {
  const std::string d =
      node_tree("xid-dmesg", "/trainready/commands/dmesg.txt",
                "[ 1810.123456] NVRM: Xid (PCI:0000:9b:00): 79, pid=1, name=python, GPU has "
                "fallen off the bus.\n");
  Fact<KernelLogFacts> k = probe_kernel_log(FsRoot(d));
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k->xids.size(), 1u);
  EXPECT_EQ(k->xids[0].time, 1795903200 + 1810);

  KernelLogFacts j = parse_kernel_log(
      "-- Boot 1c2f0b4ad2cb4fa1a1e4d5ef28e39d1c --\n"
      "Nov 27 10:15:02 nd-h100-0007 kernel: NVRM: Xid (PCI:0000:9b:00): 79, pid=1, name=x, "
      "GPU has fallen off the bus.\n"
      "-- Boot 9a2b6e1f3c5d4e7f8a9b0c1d2e3f4a5b --\n"
      "Nov 28 22:30:10 nd-h100-0007 kernel: NVRM: Xid (PCI:0000:9b:00): 13, pid=1, name=x, "
      "Graphics SM Warp Exception.\n",
      "journalctl -k");
  ASSERT_EQ(j.xids.size(), 2u);
  EXPECT_TRUE(j.xids[0].earlier_boot);
  EXPECT_FALSE(j.xids[1].earlier_boot);
}

// Without a boot time the Xid's time cannot be placed against the boot: said, and a warning at
// most (it may predate a reboot), never an error that drains the node.
TEST(GpuXidErrors, UnplacedTimeIsSaidAndNotAnError) {
  const std::string d = node_tree("xid-nostat", "/var/log/kern.log",
                                  "Nov 28 23:40:00 nd-h100-0007 kernel: NVRM: Xid "
                                  "(PCI:0000:9b:00): 79, pid=1, name=x, GPU has fallen off the "
                                  "bus.\n",
                                  /*with_stat=*/false);
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = probe_kernel_log(FsRoot(d));
  ASSERT_TRUE(n.kernel_log.ok());
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("could not be placed"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("boot time is unknown"), std::string::npos)
      << o.findings[0].cause;
}

// leptonai/gpud testdata: five GSP RPC timeouts on one H100 -> one error (RESET_GPU; AzNHC fails
// the node on 119).
TEST(GpuXidErrors, Xid119IsAnErrorWithResetAdvice) {
  RuleOutcome o =
      run_rule("gpu-xid-errors", with_log("kernel-log/gpud-dmesg-T-h100-xid-119-gsp-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.message, "Xid 119 (GSP RPC Timeout) logged 5 times on 0000:9b:00");
  EXPECT_NE(f.cause.find("RESET_GPU"), std::string::npos);
  EXPECT_NE(f.cause.find("NHC2001"), std::string::npos);
  EXPECT_NE(f.fix.find("nvidia-smi -r"), std::string::npos);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_NE(f.evidence[0].text.find("x5, last [Sun Feb 23 16:30:13 2025]"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.find("cache_mgr_main, gpud, nvidia-smi"), std::string::npos);
}

// Xid 13 (application: warning, restart the job) and 109 (context-switch timeout: reset) on the
// same GPU are two findings with their own severities (leptonai/gpud#46).
TEST(GpuXidErrors, ApplicationCodeIsAWarningBesideAResetCode) {
  RuleOutcome o = run_rule("gpu-xid-errors", with_log("kernel-log/gpud-46-dmesg-T-xid-13-109.log"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].fix.find("Restart the job"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].message.find("Context Switch Timeout"), std::string::npos);
}

// Xid 48 (error: ECC workflow) and 63 (NVIDIA: IGNORE, but Azure's checks fail the node: error).
TEST(GpuXidErrors, AzureStricterThanTheCatalogOnXid63) {
  RuleOutcome o =
      run_rule("gpu-xid-errors", with_log("kernel-log/nvidia-docker-849-dmesg-T-xid-48-63.log"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].fix.find("ROW_REMAPPER"), std::string::npos);
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].cause.find("IGNORE"), std::string::npos);
  EXPECT_NE(o.findings[1].cause.find("Azure's node health checks fail a node"), std::string::npos);
}

// A GPU that fell off the bus is named by its index when NVML knows the bus id.
TEST(GpuXidErrors, FallenOffTheBusNamesTheGpu) {
  NodeFacts n = with_log("kernel-log/nvsentinel-155-dmesg-fallen-off-bus-no-xid.log");
  n.gpus.value.gpus[3].pci_bus_id = "00000000:B3:00.0";
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("Xid 79 (GPU has fallen off the bus)"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("GPU 3 (0000:b3:00)"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("reboot"), std::string::npos);
}

TEST(GpuXidErrors, QuietWithoutXidSkippedWithoutLog) {
  EXPECT_TRUE(
      run_rule("gpu-xid-errors", with_log("kernel-log/gpud-1209-journalctl-k-no-xid-excerpt.log"))
          .findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.kernel_log = Fact<KernelLogFacts>::unreadable("Permission denied", {"/var/log/kern.log", 0});
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("Permission denied"), std::string::npos);
}

// Finding 13: codes the table lacked were "warning, unknown code"; Xid 110 (NVIDIA: reset the
// GPU) is an error with the reset advice, 171 (DRAM detail of an Xid 48) names itself.
TEST(GpuXidErrors, CodesOfTheWholeCatalogAreKnown) {
  NodeFacts n = healthy_nd_h100();
  KernelLogFacts k = parse_kernel_log(
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 110, pid=1, name=python, "
      "Security Fault Error\n"
      "[Sun Feb 23 16:24:19 2025] NVRM: Xid (PCI:0000:9b:00): 171, pid=1, name=python, "
      "Uncorrectable DRAM error\n",
      "dmesg-T");
  KernelLogClock clock;
  clock.boot_time = 1;
  place_kernel_log_times(k, clock);
  n.kernel_log = Fact<KernelLogFacts>::present(k, {"dmesg-T", 0});
  RuleOutcome o = run_rule("gpu-xid-errors", n);
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_EQ(o.findings[0].message, "Xid 110 (Security Fault Error) logged 1 time on 0000:9b:00");
  EXPECT_NE(o.findings[0].fix.find("nvidia-smi -r"), std::string::npos);
  EXPECT_EQ(o.findings[1].message.find("unknown code"), std::string::npos) << o.findings[1].message;
  EXPECT_NE(o.findings[1].cause.find("UNCORRECTABLE_DRAM_ERROR"), std::string::npos);
}
