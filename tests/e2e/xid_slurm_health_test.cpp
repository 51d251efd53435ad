#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;
namespace fs = std::filesystem;

// Finding 1 of domain-review-3: `fleet --slurm-health --drain` on a node whose kernel log holds
// an Xid 79 from before its reboot (a repaired or re-hosted VM: kern.log lives on the OS disk)
// leaves the node in service. The old rule judged the whole log and drained it.
TEST(XidSlurmHealth, AnXidFromBeforeTheBootNeverDrains) {
  const std::string d = temp_dir("xid-slurm");
  fs::copy(example("nd-h100-healthy"), d,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  {
    std::ofstream(d + "/proc/stat") << "cpu  1 2 3 4 5 6 7 0 0 0\nbtime 1795903200\n";
    std::ofstream(d + "/trainready/kernel-log-nvrm.txt")
        << "Nov 27 10:15:02 nd-h100-0007 kernel: [86012.334455] NVRM: Xid (PCI:0000:9b:00): 79, "
           "pid=1842, name=python, GPU has fallen off the bus.\n"
           "Nov 28 22:00:04 nd-h100-0007 kernel: [    4.512345] NVRM: loading NVIDIA UNIX "
           "x86_64 Kernel Module  535.161.08  Release Build\n";
  }
  // A scontrol that says the node is drained by trainready and records what it is asked.
  const std::string bin = d + "/bin";
  fs::create_directories(bin);
  {
    std::ofstream s(bin + "/scontrol");
    s << "#!/bin/sh\necho \"$@\" >> " << d << "/scontrol.calls\n"
      << "echo 'NodeName=n1 State=IDLE Reason=trainready: old [root@2026-11-28T22:00:00]'\n";
  }
  fs::permissions(bin + "/scontrol", fs::perms::owner_all);
  const CliResult r =
      run_trainready({"fleet", "--slurm-health", "--root", d, "--no-imds", "--drain"},
                     "SLURMD_NODENAME=n1 PATH=" + bin + ":/usr/bin:/bin");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("healthy"), std::string::npos) << r.out;
  std::stringstream calls;
  calls << std::ifstream(d + "/scontrol.calls").rdbuf();
  EXPECT_EQ(calls.str().find("update"), std::string::npos) << calls.str();
}
