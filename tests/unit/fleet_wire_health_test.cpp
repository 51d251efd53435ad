// The host-health facts (issue 32: processes, services, InfiniBand character devices,
// hypervisor, IOMMU / ATS / ACS, healthagent) travel the fleet's wire field for field, so the
// rules that judge them run on gathered nodes as in `doctor`; a message without them (an older
// rank) leaves them not collected.
#include <gtest/gtest.h>

#include "cli/judge.h"
#include "codec/node_facts_wire.h"
#include "core/root.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_message.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;

namespace {

NodeFacts with_health() {
  FsRoot root(trainready::test::example("nd-h100-healthy"));
  NodeFacts n = probe_node(root, ProbeOptions{});
  ProcessFacts p;
  p.scanned = 412;
  p.zombies.push_back({4242, "defunct-py", 'Z', false, "", {"/proc/4242/status", 3}});
  p.uninterruptible.push_back(
      {777, "python3", 'D', true, "nfs_wait_bit_killable", {"/proc/777/status", 3}});
  p.names = {"python3", "slurmd"};
  p.pid_max = 4194304;
  p.cpus = 96;
  n.processes = Fact<ProcessFacts>::present(p, {"/proc", 0});
  ServiceFacts s;
  s.services.push_back({"slurmd.service",
                        "slurmd",
                        true,
                        true,
                        "/usr/lib/systemd/system/slurmd.service",
                        {"/etc/systemd/system/multi-user.target.wants/slurmd.service", 0},
                        false});
  s.processes_known = true;
  s.processes_why = "";
  n.services = Fact<ServiceFacts>::present(s);
  IbCharDevFacts c;
  c.verbs.push_back({"uverbs0", "mlx5_ib0", 0, true, {"/sys/class/infiniband_verbs/uverbs0", 0}});
  c.mads.push_back({"umad3", "mlx5_ib3", 1, false, {"/sys/class/infiniband_mad/umad3", 0}});
  c.dev_entries = {"uverbs0", "rdma_cm"};
  c.dev_dir_present = true;
  c.dev_where = {"/dev/infiniband", 0};
  n.ib_char_devices = Fact<IbCharDevFacts>::present(c);
  n.virtualization = Fact<VirtInfo>::present(
      {true, true, "Microsoft Hyper-V", "DMI sys_vendor", {"/sys/class/dmi/id/sys_vendor", 1}});
  PciIsolationFacts iso;
  iso.iommu_present = true;
  iso.functions.push_back({"0000:9b:00.0",
                           "gpu",
                           "17",
                           "DMA-FQ",
                           true,
                           std::uint16_t{0x1d},
                           false,
                           {"/sys/bus/pci/devices/0000:9b:00.0/config", 0}});
  iso.functions.push_back(
      {"0000:00:01.0", "bridge", std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, {}});
  n.pci_isolation = Fact<PciIsolationFacts>::present(iso);
  HealthagentCheck hc;
  hc.module = "network";
  hc.name = "NetworkInterfaceCheck";
  hc.status = "Error";
  hc.message = "ib3 down";
  hc.description = "d";
  hc.recommendations = "r";
  hc.ghr_category = "Resource.Hpc.Unhealthy.IBPortDown";
  hc.last_update = "2026-07-13T21:40:08 UTC";
  hc.error_count = 3;
  hc.failed_items = {"ib3"};
  hc.where = {"health -s", 2};
  n.healthagent = Fact<HealthagentStatus>::present({{hc}});
  return n;
}

void expect_same_entry(const ProcessEntry& a, const ProcessEntry& b) {
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.kill_pending, b.kill_pending);
  EXPECT_EQ(a.wchan, b.wchan);
  EXPECT_EQ(a.where.str(), b.where.str());
}

}  // namespace

TEST(FleetWireHealth, HostHealthFactsRoundTripFieldForField) {
  const NodeFacts n = with_health();
  const NodeFacts b = node_facts_from_wire(node_facts_to_wire(n));
  ASSERT_TRUE(b.processes.ok());
  EXPECT_EQ(b.processes.where.str(), n.processes.where.str());
  EXPECT_EQ(b.processes->scanned, 412);
  ASSERT_EQ(b.processes->zombies.size(), 1u);
  expect_same_entry(b.processes->zombies[0], n.processes->zombies[0]);
  ASSERT_EQ(b.processes->uninterruptible.size(), 1u);
  expect_same_entry(b.processes->uninterruptible[0], n.processes->uninterruptible[0]);
  EXPECT_EQ(b.processes->names, n.processes->names);
  EXPECT_EQ(b.processes->pid_max, n.processes->pid_max);
  EXPECT_EQ(b.processes->cpus, n.processes->cpus);

  ASSERT_TRUE(b.services.ok());
  ASSERT_EQ(b.services->services.size(), 1u);
  const ServiceState& s = b.services->services[0];
  EXPECT_EQ(s.unit, "slurmd.service");
  EXPECT_EQ(s.process, "slurmd");
  EXPECT_TRUE(s.installed && s.enabled && !s.running);
  EXPECT_EQ(s.unit_file, "/usr/lib/systemd/system/slurmd.service");
  EXPECT_EQ(s.enabled_where.str(), n.services->services[0].enabled_where.str());
  EXPECT_TRUE(b.services->processes_known);

  ASSERT_TRUE(b.ib_char_devices.ok());
  ASSERT_EQ(b.ib_char_devices->mads.size(), 1u);
  EXPECT_EQ(b.ib_char_devices->mads[0].ibdev, "mlx5_ib3");
  EXPECT_EQ(b.ib_char_devices->mads[0].port, 1);
  EXPECT_FALSE(b.ib_char_devices->mads[0].node_present);
  EXPECT_TRUE(b.ib_char_devices->verbs.at(0).node_present);
  EXPECT_EQ(b.ib_char_devices->dev_entries, n.ib_char_devices->dev_entries);
  EXPECT_TRUE(b.ib_char_devices->dev_dir_present);
  EXPECT_EQ(b.ib_char_devices->dev_where.str(), "/dev/infiniband");

  ASSERT_TRUE(b.virtualization.ok());
  EXPECT_TRUE(b.virtualization->virtual_machine && b.virtualization->known);
  EXPECT_EQ(b.virtualization->hypervisor, "Microsoft Hyper-V");
  EXPECT_EQ(b.virtualization->evidence, "DMI sys_vendor");

  ASSERT_TRUE(b.pci_isolation.ok());
  EXPECT_TRUE(b.pci_isolation->iommu_present);
  ASSERT_EQ(b.pci_isolation->functions.size(), 2u);
  const PciIsolation& g = b.pci_isolation->functions[0];
  EXPECT_EQ(g.address, "0000:9b:00.0");
  EXPECT_EQ(g.role, "gpu");
  EXPECT_EQ(g.iommu_group, std::optional<std::string>("17"));
  EXPECT_EQ(g.iommu_type, std::optional<std::string>("DMA-FQ"));
  EXPECT_EQ(g.ats_enabled, std::optional<bool>(true));
  EXPECT_EQ(g.acs_control, std::optional<std::uint16_t>(0x1d));
  const PciIsolation& br = b.pci_isolation->functions[1];
  EXPECT_FALSE(br.iommu_group || br.iommu_type || br.ats_enabled || br.acs_control);
  EXPECT_TRUE(br.config_short);

  ASSERT_TRUE(b.healthagent.ok());
  ASSERT_EQ(b.healthagent->checks.size(), 1u);
  const HealthagentCheck& c = b.healthagent->checks[0];
  const HealthagentCheck& o = n.healthagent->checks[0];
  EXPECT_EQ(c.module, o.module);
  EXPECT_EQ(c.name, o.name);
  EXPECT_EQ(c.status, o.status);
  EXPECT_EQ(c.message, o.message);
  EXPECT_EQ(c.description, o.description);
  EXPECT_EQ(c.recommendations, o.recommendations);
  EXPECT_EQ(c.ghr_category, o.ghr_category);
  EXPECT_EQ(c.last_update, o.last_update);
  EXPECT_EQ(c.error_count, o.error_count);
  EXPECT_EQ(c.failed_items, o.failed_items);
  EXPECT_EQ(c.where.str(), o.where.str());
}

TEST(FleetWireHealth, AnOlderRanksMessageLeavesThemNotCollected) {
  nlohmann::json j = node_facts_to_wire(with_health());
  ASSERT_TRUE(j.contains("health"));
  j.erase("health");
  const NodeFacts b = node_facts_from_wire(j);
  EXPECT_FALSE(b.processes.ok());
  EXPECT_FALSE(b.healthagent.ok());
}

TEST(FleetWireHealth, AWrongTypeNamesTheField) {
  nlohmann::json j = node_facts_to_wire(with_health());
  j["health"]["processes"]["v"]["d"][0]["kill"] = "yes";
  try {
    node_facts_from_wire(j);
    FAIL() << "decoded a kill flag that is a string";
  } catch (const WireError& e) {
    EXPECT_EQ(std::string(e.what()), "health.processes.v.d[0].kill: expected true or false");
  }
}

TEST(FleetWireHealth, TheUnkillableRuleFiresOnAGatheredNode) {
  RankMessage m;
  m.kind = RankMessageKind::kFacts;
  m.tool_version = "0.1.0";
  m.facts = with_health();
  FleetGatherer g(1, "0.1.0");
  g.accept(0, encode_rank_message(m), 0);
  FleetGather out = g.finish(0, 1, "none");
  ASSERT_EQ(out.nodes.size(), 1u);
  SharedFlags flags;
  Report r = start_report("fleet", flags);
  r.nodes = std::move(out.nodes);
  const Evaluation ev = run_rules(r, flags);
  bool fired = false;
  for (const Finding& f : ev.findings)
    fired = fired || (f.rule_id == "process-unkillable" &&
                      f.message == "1 process in uninterruptible sleep with a kill pending");
  EXPECT_TRUE(fired) << "process-unkillable did not judge the gathered node's processes";
}
