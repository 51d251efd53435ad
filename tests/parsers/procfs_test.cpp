#include <gtest/gtest.h>

#include "parsers/procfs.h"

using namespace trainready;

TEST(ProcModules, NamesAndLines) {
  auto m = parse_proc_modules(
      "nvidia_peermem 16384 0 - Live 0x0 (OE)\nmlx5_ib 405504 0 - Live 0x0\nbroken\n");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m["mlx5_ib"], 2);
}

TEST(ProcMounts, OctalEscapes) {
  auto m = parse_proc_mounts("/dev/md0 /mnt/resource\\040nvme xfs rw 0 0\nshort\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].mountpoint, "/mnt/resource nvme");
}

TEST(ProcMdstat, Raid0Members) {
  auto a = parse_proc_mdstat(
      "Personalities : [raid0]\nmd0 : active raid0 nvme1n1[1] nvme0n1[0]\n      7 blocks\n\nunused "
      "devices: <none>\n");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].level, "raid0");
  EXPECT_EQ(a[0].members, (std::vector<std::string>{"nvme1n1", "nvme0n1"}));
  EXPECT_TRUE(parse_proc_mdstat("md").empty());
}

// /proc/driver/nvidia/version as the two flavors print it (NVIDIA driver installation guide,
// "Kernel Modules": open and proprietary flavors since 515).
TEST(NvidiaModuleFlavor, OpenAndProprietary) {
  EXPECT_EQ(
      parse_nvidia_module_flavor(
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  "
          "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n"
          "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
          .value(),
      "open");
  EXPECT_EQ(
      parse_nvidia_module_flavor("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  "
                                 "Thu Oct 19 18:56:32 UTC 2023\n")
          .value(),
      "proprietary");
  EXPECT_FALSE(parse_nvidia_module_flavor("").has_value());
  EXPECT_FALSE(parse_nvidia_module_flavor("GCC version: gcc\n").has_value());
  EXPECT_FALSE(parse_nvidia_module_flavor("NVRM version: something else\n").has_value());
}
