// Issue 32, item 4: each new node rule fires on its case and stays quiet on the healthy one.
#include <gtest/gtest.h>

#include "parsers/healthagent_status.h"
#include "support/paths.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

ProcessEntry proc(int pid, const char* name, char state, bool kill_pending = false) {
  ProcessEntry p;
  p.pid = pid;
  p.name = name;
  p.state = state;
  p.kill_pending = kill_pending;
  p.where = {"/proc/" + std::to_string(pid) + "/status", 0};
  return p;
}

NodeFacts with_processes(ProcessFacts p) {
  NodeFacts n = healthy_nd_h100();
  if (p.names.empty()) p.names = {"bash", "nvidia-persiste", "sshd", "systemd"};
  if (p.scanned == 0) p.scanned = 400;
  n.processes = Fact<ProcessFacts>::present(std::move(p), {"/proc/*/status", 0});
  return n;
}

ServiceState svc(const char* unit, const char* process, bool installed, bool enabled,
                 bool running) {
  ServiceState s;
  s.unit = unit;
  s.process = process;
  s.installed = installed;
  s.enabled = enabled;
  s.running = running;
  if (enabled)
    s.enabled_where = {std::string("/etc/systemd/system/multi-user.target.wants/") + unit, 0};
  return s;
}

NodeFacts with_services(std::vector<ServiceState> list) {
  NodeFacts n = with_processes({});
  ServiceFacts f;
  f.processes_known = true;
  f.services = std::move(list);
  n.services = Fact<ServiceFacts>::present(std::move(f), {"/etc/systemd/system", 0});
  return n;
}

// Every IB device of healthy_nd_h100 with its uverbs and umad devices present.
IbCharDevFacts all_char_devs() {
  IbCharDevFacts c;
  c.dev_dir_present = true;
  for (int i = 0; i < 8; ++i) {
    IbCharDev v;
    v.name = "uverbs" + std::to_string(i);
    v.ibdev = "mlx5_ib" + std::to_string(i);
    v.node_present = true;
    c.verbs.push_back(v);
    IbCharDev m = v;
    m.name = "umad" + std::to_string(i);
    m.port = 1;
    c.mads.push_back(m);
    c.dev_entries.push_back(v.name);
    c.dev_entries.push_back(m.name);
  }
  return c;
}

NodeFacts bare_metal_with(std::uint16_t acs, const char* iommu_type) {
  NodeFacts n = healthy_nd_h100();
  VirtInfo v;
  v.known = true;
  v.virtual_machine = false;
  v.evidence = "the CPU flags of /proc/cpuinfo do not include \"hypervisor\"";
  n.virtualization = Fact<VirtInfo>::present(v, {"/proc/cpuinfo", 5});
  PciIsolationFacts p;
  p.iommu_present = true;
  PciIsolation g;
  g.address = "0000:1b:00.0";
  g.role = "gpu";
  g.iommu_group = "17";
  g.iommu_type = iommu_type;
  g.acs_control = 0;
  p.functions.push_back(g);
  PciIsolation b;
  b.address = "0000:1a:00.0";
  b.role = "bridge";
  b.acs_control = acs;
  p.functions.push_back(b);
  n.pci_isolation = Fact<PciIsolationFacts>::present(p, {"/sys/bus/pci/devices", 0});
  return n;
}

NodeFacts with_healthagent(const char* fixture_name) {
  NodeFacts n = healthy_nd_h100();
  const std::string rel = std::string("healthagent/") + fixture_name;
  n.healthagent =
      Fact<HealthagentStatus>::present(parse_healthagent_status(read_fixture(rel), rel), {rel, 0});
  return n;
}

}  // namespace

TEST(ProcessUnkillable, FiresOnDStateWithKillPendingOnly) {
  ProcessFacts p;
  p.uninterruptible.push_back(proc(300, "nvidia-smi", 'D', true));
  p.uninterruptible.back().wchan = "nv_wait_for_gpu";
  RuleOutcome o = run_rule("process-unkillable", with_processes(p));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("waiting in nv_wait_for_gpu"), std::string::npos);
  // D-state without a kill pending is I/O in progress: quiet.
  ProcessFacts io;
  io.uninterruptible.push_back(proc(301, "kworker/u8:2", 'D'));
  EXPECT_TRUE(run_rule("process-unkillable", with_processes(io)).findings.empty());
  EXPECT_TRUE(run_rule("process-unkillable", healthy_nd_h100()).findings.empty());
  NodeFacts unread = healthy_nd_h100();
  unread.processes = Fact<ProcessFacts>::missing("the snapshot records no process states");
  EXPECT_TRUE(run_rule("process-unkillable", unread).skipped);
}

// healthagent's levels: warning at min(CPUs x 50, 10 % of pid_max), error at 50 % of pid_max.
TEST(ProcessZombiesMany, HealthagentLevels) {
  ProcessFacts p;
  p.cpus = 2;
  p.pid_max = 4194304;
  for (int i = 0; i < 100; ++i) p.zombies.push_back(proc(1000 + i, "defunct-child", 'Z'));
  RuleOutcome o = run_rule("process-zombies-many", with_processes(p));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("warning at 100"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].evidence[1].text.find("defunct-child x100"), std::string::npos);
  p.pid_max = 180;  // 100 >= 50 % of 180
  EXPECT_EQ(run_rule("process-zombies-many", with_processes(p)).findings.at(0).severity,
            Severity::kError);
  p.zombies.resize(99);
  p.pid_max = 4194304;
  EXPECT_TRUE(run_rule("process-zombies-many", with_processes(p)).findings.empty());
}

// Needed by the node's kind only: Fabric Manager on an NVSwitch size (the catalog), slurmd
// and persistenced where enabled, munge where installed on a Slurm node.
TEST(ServiceNotRunning, NeededByTheNodesKindOnly) {
  NodeFacts n = with_services({
      svc("nvidia-fabricmanager.service", "nv-fabricmanage", true, true, false),
      svc("nvidia-persistenced.service", "nvidia-persiste", true, true, true),
      svc("slurmd.service", "slurmd", true, true, false),
      svc("munge.service", "munged", true, true, false),
      svc("slurmctld.service", "slurmctld", false, false, false),
  });
  RuleOutcome o = run_rule("service-not-running", n);
  ASSERT_EQ(o.findings.size(), 3u);
  EXPECT_NE(o.findings[0].message.find("nvidia-fabricmanager.service is not running"),
            std::string::npos);
  EXPECT_NE(o.findings[0].message.find("NVSwitch"), std::string::npos) << o.findings[0].message;
  EXPECT_NE(o.findings[1].message.find("slurmd.service"), std::string::npos);
  EXPECT_NE(o.findings[2].message.find("munge.service"), std::string::npos);

  // Not a Slurm node, no Fabric Manager size (NC A100 v4), nothing enabled: quiet.
  NodeFacts quiet = with_services({
      svc("nvidia-fabricmanager.service", "nv-fabricmanage", false, false, false),
      svc("slurmd.service", "slurmd", false, false, false),
      svc("munge.service", "munged", true, false, false),
  });
  quiet.imds.value.vm_size = "Standard_NC24ads_A100_v4";
  EXPECT_TRUE(run_rule("service-not-running", quiet).findings.empty());
  // All running: quiet.
  NodeFacts ok = with_services({
      svc("nvidia-fabricmanager.service", "nv-fabricmanage", true, true, true),
      svc("slurmd.service", "slurmd", true, true, true),
      svc("munge.service", "munged", true, true, true),
  });
  EXPECT_TRUE(run_rule("service-not-running", ok).findings.empty());
}

TEST(IbCharDeviceMissing, FiresOnMissingUverbsOrUmad) {
  NodeFacts n = healthy_nd_h100();
  IbCharDevFacts c = all_char_devs();
  n.ib_char_devices = Fact<IbCharDevFacts>::present(c, {"/dev/infiniband", 0});
  EXPECT_TRUE(run_rule("ib-char-device-missing", n).findings.empty());
  c.verbs[3].node_present = false;  // registered, no /dev node (a container without --device)
  c.mads.pop_back();                // ib_umad lost mlx5_ib7
  n.ib_char_devices = Fact<IbCharDevFacts>::present(c, {"/dev/infiniband", 0});
  RuleOutcome o = run_rule("ib-char-device-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("1 of 8 InfiniBand devices without a uverbs device, 1 of "
                                       "8 ports without a umad device"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].evidence[0].text.find("/dev/infiniband/uverbs3 does not exist"),
            std::string::npos)
      << o.findings[0].evidence[0].text;
}

// Bare metal only; a VM is told apart by the hypervisor (DMI, CPU flag) and not judged.
TEST(PcieAcsEnabled, BareMetalOnly) {
  RuleOutcome o = run_rule("pcie-acs-enabled", bare_metal_with(0x001d, "identity"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("ACSCtl 0x001d (SrcValid+ ReqRedir+ "
                                                "CmpltRedir+ UpstreamFwd+)"),
            std::string::npos)
      << o.findings[0].evidence[0].text;
  EXPECT_TRUE(run_rule("pcie-acs-enabled", bare_metal_with(0, "identity")).findings.empty());
  NodeFacts vm = bare_metal_with(0x001d, "identity");
  vm.virtualization.value.virtual_machine = true;
  vm.virtualization.value.hypervisor = "Microsoft Hyper-V";
  RuleOutcome v = run_rule("pcie-acs-enabled", vm);
  EXPECT_TRUE(v.findings.empty());
  EXPECT_NE(v.not_applicable.find("Microsoft Hyper-V"), std::string::npos);
  NodeFacts unknown = bare_metal_with(0x001d, "identity");
  unknown.virtualization.value.known = false;
  EXPECT_TRUE(run_rule("pcie-acs-enabled", unknown).skipped);
  NodeFacts not_root = bare_metal_with(0x001d, "identity");
  for (PciIsolation& p : not_root.pci_isolation.value.functions) p.config_short = true;
  EXPECT_TRUE(run_rule("pcie-acs-enabled", not_root).skipped);
}

TEST(IommuTranslated, FiresOnDmaGroupsQuietOnPassthrough) {
  RuleOutcome o = run_rule("iommu-translated", bare_metal_with(0, "DMA-FQ"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("IOMMU group 17 type DMA-FQ"), std::string::npos);
  EXPECT_TRUE(run_rule("iommu-translated", bare_metal_with(0, "identity")).findings.empty());
  NodeFacts none = bare_metal_with(0, "DMA");
  none.pci_isolation.value.iommu_present = false;
  EXPECT_TRUE(run_rule("iommu-translated", none).findings.empty());
}

// The README's all-OK output agrees with a healthy node; the error output disagrees where
// trainready sees the ports up, slurmd running and no unkillable process.
TEST(HealthagentDisagrees, SaysWhereTheTwoDiffer) {
  NodeFacts agree = with_healthagent("health-s-readme-gpu-network-ok.json");
  EXPECT_TRUE(run_rule("healthagent-disagrees", agree).findings.empty());

  NodeFacts n = with_healthagent("health-s-errors-constructed.json");
  n = [&] {
    NodeFacts x = with_services({svc("slurmd.service", "slurmd", true, true, true)});
    x.healthagent = n.healthagent;
    return x;
  }();
  RuleOutcome o = run_rule("healthagent-disagrees", n);
  ASSERT_EQ(o.findings.size(), 3u);
  EXPECT_NE(o.findings[0].message.find("network error"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("Resource.Hpc.Unhealthy.IBPortDown"),
            std::string::npos);
  EXPECT_NE(o.findings[1].message.find("slurmd.service failed"), std::string::npos);
  EXPECT_NE(o.findings[2].message.find("unkillable"), std::string::npos);

  // healthagent says OK while a port is down here.
  NodeFacts down = with_healthagent("health-s-readme-gpu-network-ok.json");
  down.ib.value.devices[2].ports[0].state.value = "DOWN";
  RuleOutcome d = run_rule("healthagent-disagrees", down);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].message.find("mlx5_ib2/1 DOWN/LinkUp"), std::string::npos)
      << d.findings[0].message;
  // No healthagent output: nothing to compare, not a skip.
  RuleOutcome none = run_rule("healthagent-disagrees", healthy_nd_h100());
  EXPECT_FALSE(none.skipped);
  EXPECT_FALSE(none.not_applicable.empty());
}
