#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/kernel_log.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// leptonai/gpud testdata: `dmesg -T` of a Dell XE9680 (H100) whose GPU4 GSP stopped answering.
TEST(KernelLogParser, GpudDmesgXid119) {
  const std::string f = "kernel-log/gpud-dmesg-T-h100-xid-119-gsp-timeout.log";
  KernelLogFacts k = parse_kernel_log(read_fixture(f), f);
  ASSERT_EQ(k.xids.size(), 5u);
  for (const XidEvent& e : k.xids) {
    EXPECT_EQ(e.code, 119);
    EXPECT_EQ(e.pci, "0000:9b:00");
  }
  EXPECT_EQ(k.xids[0].timestamp, "[Sun Feb 23 16:24:18 2025]");
  EXPECT_EQ(k.xids[0].process, "nvidia-smi");
  EXPECT_EQ(k.xids[0].where.line, 3);
  EXPECT_EQ(
      k.xids[0].detail.rfind("Timeout after 6s of waiting for RPC response from GPU4 GSP!", 0), 0u);
  EXPECT_EQ(k.xids[4].process, "gpud");
  EXPECT_EQ(k.first_timestamp, "[Sun Feb 23 16:24:18 2025]");
  EXPECT_EQ(k.last_timestamp, "[Sun Feb 23 16:30:13 2025]");
}

// NVIDIA/nvidia-docker#849: a double-bit error and the page retirement that follows.
TEST(KernelLogParser, DbeAndPageRetirement) {
  const std::string f = "kernel-log/nvidia-docker-849-dmesg-T-xid-48-63.log";
  KernelLogFacts k = parse_kernel_log(read_fixture(f), f);
  ASSERT_EQ(k.xids.size(), 2u);
  EXPECT_EQ(k.xids[0].code, 48);
  EXPECT_EQ(k.xids[1].code, 63);
  EXPECT_EQ(k.xids[0].pci, "0000:8a:00");
  EXPECT_EQ(k.xids[1].detail.rfind("Dynamic Page Retirement", 0), 0u);
}

// leptonai/gpud#46: pid='<unknown>', name=<unknown> is no process name.
TEST(KernelLogParser, UnknownProcessAndTwoCodes) {
  const std::string f = "kernel-log/gpud-46-dmesg-T-xid-13-109.log";
  KernelLogFacts k = parse_kernel_log(read_fixture(f), f);
  ASSERT_EQ(k.xids.size(), 4u);
  EXPECT_EQ(k.xids[0].code, 13);
  EXPECT_EQ(k.xids[0].process, "");
  EXPECT_EQ(k.xids[0].detail.rfind("Graphics SM Warp Exception", 0), 0u);
  EXPECT_EQ(k.xids[3].code, 109);
  EXPECT_EQ(k.xids[3].process, "pt_main_thread");
}

// NVIDIA/NVSentinel#155: the driver says "fallen off the bus" over three lines without an Xid.
TEST(KernelLogParser, FallenOffTheBusWithoutXidCountsAs79) {
  const std::string f = "kernel-log/nvsentinel-155-dmesg-fallen-off-bus-no-xid.log";
  KernelLogFacts k = parse_kernel_log(read_fixture(f), f);
  ASSERT_EQ(k.xids.size(), 1u);
  EXPECT_EQ(k.xids[0].code, 79);
  EXPECT_TRUE(k.xids[0].without_xid);
  EXPECT_EQ(k.xids[0].pci, "0000:b3:00");
  EXPECT_EQ(k.xids[0].where.line, 3);
}

// With an Xid 79 line for the same GPU the follow-up message is not a second event
// (NVIDIA/open-gpu-kernel-modules#1151 prints both).
TEST(KernelLogParser, Xid79AndItsFollowUpAreOneEvent) {
  const std::string text =
      "May 18 19:02:39 kernel: NVRM: GPU at PCI:0000:2b:00: "
      "GPU-0b11d014-1685-04bd-26ed-5fc0bc1c44ae\n"
      "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
      "May 18 19:02:39 kernel: NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.\n";
  KernelLogFacts k = parse_kernel_log(text, "journal");
  ASSERT_EQ(k.xids.size(), 1u);
  EXPECT_EQ(k.xids[0].code, 79);
  EXPECT_FALSE(k.xids[0].without_xid);
  EXPECT_EQ(k.xids[0].timestamp, "May 18 19:02:39");
}

// leptonai/gpud#1209: journalctl -k lines without any NVRM line.
TEST(KernelLogParser, NoNvrmLinesNoXid) {
  const std::string f = "kernel-log/gpud-1209-journalctl-k-no-xid-excerpt.log";
  KernelLogFacts k = parse_kernel_log(read_fixture(f), f);
  EXPECT_TRUE(k.xids.empty());
  EXPECT_EQ(k.lines, 4);
  EXPECT_EQ(k.first_timestamp, "Feb 14 05:03:41");
}

TEST(KernelLogParser, TruncatedAndGarbage) {
  EXPECT_TRUE(parse_kernel_log("", "x").xids.empty());
  EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:9b:00): ", "x").xids.empty());
  EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:9b:00", "x").xids.empty());
  EXPECT_TRUE(parse_kernel_log("NVRM: Xid (", "x").xids.empty());
  EXPECT_TRUE(parse_kernel_log("NVRM: fallen off the bus", "x").xids.size() == 1u);
  EXPECT_THROW(parse_kernel_log(std::string("\x7f"
                                            "ELF\0\0",
                                            6),
                                "x"),
               InputError);
}

// rsyslog pads kern.log with NULs after a hard crash: the Xid before the padding still counts.
TEST(KernelLogParser, NulPaddingAfterACrashIsDropped) {
  std::string log =
      "Dec  1 03:12:44 nd-h100-7 kernel: NVRM: Xid (PCI:0000:9b:00): 79, pid=1234, GPU has "
      "fallen off the bus.\n";
  log += std::string(4096, '\0');
  log += "Dec  1 03:20:01 nd-h100-7 kernel: Linux version 5.15.0-1053-azure\n";
  KernelLogFacts k = parse_kernel_log(log, "kern.log");
  ASSERT_EQ(k.xids.size(), 1u);
  EXPECT_EQ(k.xids[0].code, 79);
}
