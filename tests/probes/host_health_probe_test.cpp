// Issue 32, item 4: the probes behind process-*, service-not-running, ib-char-device-missing,
// pcie-acs-enabled and iommu-translated read fixture trees through a Root and never judge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/root.h"
#include "probes/probes.h"
#include "support/live_over_root.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;
namespace fs = std::filesystem;

namespace {

void link(const std::string& target, const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  fs::create_symlink(target, path);
}

// A 4096-byte configuration space with extended capabilities at 0x100 (PCIe Base Spec: 32-bit
// header = id | version << 16 | next << 20; ACS id 000Dh and ATS id 000Fh, control at +6).
std::string config_space(std::uint16_t acs_control, bool ats_enabled) {
  std::string c(4096, '\0');
  auto put32 = [&](std::size_t off, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) c[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put32(0x100, 0x000D | (1u << 16) | (0x148u << 20));           // ACS, next at 0x148
  put32(0x104, static_cast<std::uint32_t>(acs_control) << 16);  // capability | control
  put32(0x148, 0x000F | (1u << 16));                            // ATS, last
  put32(0x14C, ats_enabled ? 0x80000000u : 0u);
  return c;
}

}  // namespace

// Real /proc/<pid>/status files (tests/data/SOURCES.md): a zombie, a sleeping process, and a
// D-state one with SIGKILL pending.
TEST(ProcessProbe, ZombiesAndUnkillableFromRealStatusFiles) {
  const std::string d = temp_dir("proc-states");
  write_fixture_file(d + "/proc/100/status", read_fixture("host-health/proc-status-sleeping.txt"));
  write_fixture_file(d + "/proc/200/status", read_fixture("host-health/proc-status-zombie.txt"));
  write_fixture_file(d + "/proc/300/status",
                     read_fixture("host-health/proc-status-dstate-kill-pending.txt"));
  write_fixture_file(d + "/proc/300/wchan", "nv_wait_for_gpu");
  write_fixture_file(d + "/proc/self", "not a pid");
  write_fixture_file(d + "/proc/sys/kernel/pid_max", "4194304\n");
  write_fixture_file(d + "/sys/devices/system/cpu/online", "0-63,128-191\n");
  FsRoot root(d);
  const Fact<ProcessFacts> f = probe_processes(root);
  ASSERT_TRUE(f.ok()) << f.describe();
  EXPECT_EQ(f->scanned, 3);
  ASSERT_EQ(f->zombies.size(), 1u);
  EXPECT_EQ(f->zombies[0].name, "python3");
  EXPECT_EQ(f->zombies[0].pid, 200);
  ASSERT_EQ(f->uninterruptible.size(), 1u);
  EXPECT_TRUE(f->uninterruptible[0].kill_pending);
  EXPECT_EQ(f->uninterruptible[0].wchan, "nv_wait_for_gpu");
  EXPECT_EQ(f->pid_max.value_or(0), 4194304);
  EXPECT_EQ(f->cpus.value_or(0), 128);
  EXPECT_EQ(f->names, (std::vector<std::string>{"nvidia-smi", "python3", "sleep"}));

  std::string name;
  char state = '?';
  bool pending = true;
  EXPECT_TRUE(read_process_status(read_fixture("host-health/proc-status-sleeping.txt"), name, state,
                                  pending));
  EXPECT_EQ(state, 'S');
  EXPECT_FALSE(pending);
  EXPECT_FALSE(probe_processes(FsRoot(temp_dir("proc-none"))).ok());
}

// Installed = a unit file; enabled = a link in a *.wants directory; running = a process of the
// daemon's 15-character name.
TEST(ServiceProbe, InstalledEnabledRunning) {
  const std::string d = temp_dir("services");
  std::string status = read_fixture("host-health/proc-status-sleeping.txt");
  write_fixture_file(d + "/proc/10/status", "Name:\tslurmd\nState:\tS (sleeping)\n");
  write_fixture_file(d + "/proc/11/status", "Name:\tnv-fabricmanage\nState:\tS (sleeping)\n");
  write_fixture_file(d + "/lib/systemd/system/slurmd.service",
                     "[Service]\nExecStart=/usr/sbin/slurmd\n");
  write_fixture_file(d + "/lib/systemd/system/munge.service",
                     "[Service]\nExecStart=/usr/sbin/munged\n");
  link("/lib/systemd/system/slurmd.service",
       d + "/etc/systemd/system/multi-user.target.wants/slurmd.service");
  link("/lib/systemd/system/munge.service",
       d + "/etc/systemd/system/multi-user.target.wants/munge.service");
  FsRoot root(d);
  const Fact<ProcessFacts> procs = probe_processes(root);
  const Fact<ServiceFacts> f = probe_services(root, procs);
  ASSERT_TRUE(f.ok()) << f.describe();
  EXPECT_TRUE(f->processes_known);
  const ServiceState* slurmd = f->find("slurmd.service");
  ASSERT_NE(slurmd, nullptr);
  EXPECT_TRUE(slurmd->installed && slurmd->enabled && slurmd->running);
  const ServiceState* munge = f->find("munge.service");
  ASSERT_NE(munge, nullptr);
  EXPECT_TRUE(munge->installed && munge->enabled);
  EXPECT_FALSE(munge->running);
  const ServiceState* fm = f->find("nvidia-fabricmanager.service");
  ASSERT_NE(fm, nullptr);
  EXPECT_TRUE(fm->running);  // "nv-fabricmanager" as the kernel cuts it
  EXPECT_FALSE(fm->installed);
  EXPECT_FALSE(probe_services(FsRoot(temp_dir("services-none")), procs).ok());
}

// sysfs classes map uverbsN/umadN to HCA and port; the device nodes are listed live, and from
// the listing `collect` writes in a snapshot.
TEST(IbCharDevProbe, LiveAndSnapshot) {
  const std::string d = temp_dir("ib-chardev");
  write_fixture_file(d + "/sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_ib0\n");
  write_fixture_file(d + "/sys/class/infiniband_verbs/uverbs1/ibdev", "mlx5_ib1\n");
  write_fixture_file(d + "/sys/class/infiniband_mad/umad0/ibdev", "mlx5_ib0\n");
  write_fixture_file(d + "/sys/class/infiniband_mad/umad0/port", "1\n");
  write_fixture_file(d + "/dev/infiniband/uverbs0", "");
  write_fixture_file(d + "/dev/infiniband/umad0", "");
  write_fixture_file(d + "/dev/infiniband/rdma_cm", "");
  const Fact<IbCharDevFacts> live = probe_ib_char_devices(LiveOver(d));
  ASSERT_TRUE(live.ok()) << live.describe();
  ASSERT_EQ(live->verbs.size(), 2u);
  EXPECT_EQ(live->verbs[0].ibdev, "mlx5_ib0");
  EXPECT_TRUE(live->verbs[0].node_present);
  EXPECT_FALSE(live->verbs[1].node_present);
  ASSERT_EQ(live->mads.size(), 1u);
  EXPECT_EQ(live->mads[0].port, 1);
  EXPECT_EQ(ib_char_dev_listing(*live), "rdma_cm\numad0\nuverbs0\n");

  // Snapshot: no listing -> missing (not "no devices"); the listing -> the same answer.
  FsRoot snap(d);
  EXPECT_EQ(probe_ib_char_devices(snap).status, FactStatus::kMissing);
  write_fixture_file(d + "/trainready/infiniband-devices", ib_char_dev_listing(*live));
  const Fact<IbCharDevFacts> s = probe_ib_char_devices(snap);
  ASSERT_TRUE(s.ok()) << s.describe();
  EXPECT_TRUE(s->verbs[0].node_present);
  EXPECT_FALSE(s->verbs[1].node_present);
  write_fixture_file(d + "/trainready/infiniband-devices", "(no /dev/infiniband)\n");
  EXPECT_FALSE(probe_ib_char_devices(snap)->dev_dir_present);
}

// Hyper-V by DMI, bare metal by a CPU flags line without "hypervisor", unknown without either.
TEST(VirtualizationProbe, DmiCpuFlagsOrUnknown) {
  const Fact<DmiInfo> azure = Fact<DmiInfo>::present(
      {"Microsoft Corporation", "Virtual Machine", "7783-7084-3265-9085-8269-3286-77", true});
  const std::string d = temp_dir("virt");
  const Fact<VirtInfo> vm = probe_virtualization(FsRoot(d), azure);
  ASSERT_TRUE(vm.ok());
  EXPECT_TRUE(vm->known && vm->virtual_machine);
  EXPECT_EQ(vm->hypervisor, "Microsoft Hyper-V");

  const Fact<DmiInfo> metal = Fact<DmiInfo>::present({"Supermicro", "SYS-821GE-TNHR", "", false});
  write_fixture_file(
      d + "/proc/cpuinfo",
      "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr pae mce "
      "cx8 apic sep mtrr pge vmx smx est\n");
  const Fact<VirtInfo> bm = probe_virtualization(FsRoot(d), metal);
  ASSERT_TRUE(bm.ok());
  EXPECT_TRUE(bm->known);
  EXPECT_FALSE(bm->virtual_machine);
  EXPECT_EQ(bm->where.line, 3);

  write_fixture_file(d + "/proc/cpuinfo",
                     "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n");
  EXPECT_TRUE(probe_virtualization(FsRoot(d), metal)->virtual_machine);

  // Grace (aarch64): "Features", no "flags": unknown, not bare metal.
  write_fixture_file(d + "/proc/cpuinfo",
                     "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1\n");
  const Fact<VirtInfo> arm = probe_virtualization(FsRoot(d), metal);
  ASSERT_TRUE(arm.ok());
  EXPECT_FALSE(arm->known);
}

// IOMMU group type through the iommu_group link; ACS and ATS from the configuration space;
// the bridges above a function from its sysfs path; 256-byte spaces (not root) are "short".
TEST(PciIsolationProbe, IommuAcsAtsAndShortConfig) {
  const std::string d = temp_dir("pci-iso");
  const std::string gpu = "0000:1b:00.0";
  const std::string bridge = "0000:1a:00.0";
  const std::string dev = d + "/sys/devices/pci0000:00/0000:00:01.0/" + bridge + "/" + gpu;
  write_fixture_file(dev + "/config", config_space(0, false));
  write_fixture_file(d + "/sys/devices/pci0000:00/0000:00:01.0/" + bridge + "/config",
                     config_space(0x001d, false));
  write_fixture_file(d + "/sys/devices/pci0000:00/0000:00:01.0/config", std::string(256, '\0'));
  link("../../../devices/pci0000:00/0000:00:01.0/" + bridge + "/" + gpu,
       d + "/sys/bus/pci/devices/" + gpu);
  link("../../../devices/pci0000:00/0000:00:01.0/" + bridge, d + "/sys/bus/pci/devices/" + bridge);
  link("../../../devices/pci0000:00/0000:00:01.0", d + "/sys/bus/pci/devices/0000:00:01.0");
  link("../../../../../kernel/iommu_groups/17", dev + "/iommu_group");
  write_fixture_file(d + "/sys/kernel/iommu_groups/17/type", "DMA-FQ\n");
  write_fixture_file(d + "/sys/class/iommu/dmar0/x", "");
  PciFacts pci;
  PciDevice g;
  g.address = gpu;
  g.kind = PciKind::kNvidiaGpu;
  pci.devices.push_back(g);
  const Fact<PciIsolationFacts> f = probe_pci_isolation(FsRoot(d), Fact<PciFacts>::present(pci));
  ASSERT_TRUE(f.ok()) << f.describe();
  EXPECT_TRUE(f->iommu_present);
  ASSERT_EQ(f->functions.size(), 3u);  // the GPU, then 0000:00:01.0 and the switch port
  EXPECT_EQ(f->functions[0].role, "gpu");
  EXPECT_EQ(f->functions[0].iommu_type.value_or(""), "DMA-FQ");
  EXPECT_EQ(f->functions[0].acs_control.value_or(0xffff), 0);
  EXPECT_FALSE(f->functions[0].ats_enabled.value_or(true));
  EXPECT_EQ(f->functions[1].address, "0000:00:01.0");
  EXPECT_TRUE(f->functions[1].config_short);
  EXPECT_EQ(f->functions[2].address, bridge);
  EXPECT_EQ(f->functions[2].acs_control.value_or(0), 0x001d);

  EXPECT_FALSE(read_pci_ext_caps(std::string(256, '\0')).acs_control);
  // A next pointer that loops back ends the walk.
  std::string loop = config_space(0x1, true);
  loop[0x14A] = static_cast<char>(0x00);
  loop[0x14B] = static_cast<char>(0x10);  // ATS next = 0x100
  const PciExtCaps caps = read_pci_ext_caps(loop);
  EXPECT_EQ(caps.acs_control.value_or(0), 1);
  EXPECT_TRUE(caps.ats_enabled.value_or(false));
}
