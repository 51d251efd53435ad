#include "codec/host_health_wire.h"

namespace trainready {
namespace {

using namespace wire;

json process_enc(const ProcessEntry& p) {
  return {{"pid", p.pid},           {"name", p.name},   {"state", std::string(1, p.state)},
          {"kill", p.kill_pending}, {"wchan", p.wchan}, {"w", prov(p.where)}};
}

ProcessEntry process_dec(const In& in) {
  ProcessEntry p;
  p.pid = in.at("pid").int32();
  p.name = in.at("name").str();
  const std::string state = in.at("state").str();
  if (state.size() != 1) in.at("state").fail("expected one character");
  p.state = state[0];
  p.kill_pending = in.at("kill").boolean();
  p.wchan = in.at("wchan").str();
  p.where = prov_in(in.at("w"));
  return p;
}

json processes_enc(const ProcessFacts& f) {
  json z = json::array(), d = json::array();
  for (const ProcessEntry& p : f.zombies) z.push_back(process_enc(p));
  for (const ProcessEntry& p : f.uninterruptible) d.push_back(process_enc(p));
  return {{"scanned", f.scanned},      {"zombies", z},       {"d", d}, {"names", f.names},
          {"pid_max", opt(f.pid_max)}, {"cpus", opt(f.cpus)}};
}

ProcessFacts processes_dec(const In& in) {
  ProcessFacts f;
  f.scanned = in.at("scanned").int32();
  in.at("zombies").each([&](const In& p) { f.zombies.push_back(process_dec(p)); });
  in.at("d").each([&](const In& p) { f.uninterruptible.push_back(process_dec(p)); });
  f.names = in.at("names").strings();
  f.pid_max =
      opt_in<long>(in.at("pid_max"), [](const In& x) { return static_cast<long>(x.integer()); });
  f.cpus = opt_in<int>(in.at("cpus"), [](const In& x) { return x.int32(); });
  return f;
}

json services_enc(const ServiceFacts& f) {
  json a = json::array();
  for (const ServiceState& s : f.services)
    a.push_back({{"unit", s.unit},
                 {"process", s.process},
                 {"installed", s.installed},
                 {"enabled", s.enabled},
                 {"unit_file", s.unit_file},
                 {"enabled_w", prov(s.enabled_where)},
                 {"running", s.running}});
  return {{"services", a}, {"known", f.processes_known}, {"why", f.processes_why}};
}

ServiceFacts services_dec(const In& in) {
  ServiceFacts f;
  in.at("services").each([&](const In& s) {
    ServiceState x;
    x.unit = s.at("unit").str();
    x.process = s.at("process").str();
    x.installed = s.at("installed").boolean();
    x.enabled = s.at("enabled").boolean();
    x.unit_file = s.at("unit_file").str();
    x.enabled_where = prov_in(s.at("enabled_w"));
    x.running = s.at("running").boolean();
    f.services.push_back(std::move(x));
  });
  f.processes_known = in.at("known").boolean();
  f.processes_why = in.at("why").str();
  return f;
}

json chardev_enc(const IbCharDev& d) {
  return {{"name", d.name},
          {"ibdev", d.ibdev},
          {"port", d.port},
          {"node", d.node_present},
          {"w", prov(d.where)}};
}

IbCharDev chardev_dec(const In& in) {
  return IbCharDev{in.at("name").str(), in.at("ibdev").str(), in.at("port").int32(),
                   in.at("node").boolean(), prov_in(in.at("w"))};
}

json chardevs_enc(const IbCharDevFacts& f) {
  json v = json::array(), m = json::array();
  for (const IbCharDev& d : f.verbs) v.push_back(chardev_enc(d));
  for (const IbCharDev& d : f.mads) m.push_back(chardev_enc(d));
  return {{"verbs", v},
          {"mads", m},
          {"dev", f.dev_entries},
          {"dev_dir", f.dev_dir_present},
          {"dev_w", prov(f.dev_where)}};
}

IbCharDevFacts chardevs_dec(const In& in) {
  IbCharDevFacts f;
  in.at("verbs").each([&](const In& d) { f.verbs.push_back(chardev_dec(d)); });
  in.at("mads").each([&](const In& d) { f.mads.push_back(chardev_dec(d)); });
  f.dev_entries = in.at("dev").strings();
  f.dev_dir_present = in.at("dev_dir").boolean();
  f.dev_where = prov_in(in.at("dev_w"));
  return f;
}

json virt_enc(const VirtInfo& v) {
  return {{"vm", v.virtual_machine},
          {"known", v.known},
          {"hypervisor", v.hypervisor},
          {"evidence", v.evidence},
          {"w", prov(v.where)}};
}

VirtInfo virt_dec(const In& in) {
  return VirtInfo{in.at("vm").boolean(), in.at("known").boolean(), in.at("hypervisor").str(),
                  in.at("evidence").str(), prov_in(in.at("w"))};
}

json isolation_enc(const PciIsolationFacts& f) {
  json a = json::array();
  for (const PciIsolation& p : f.functions)
    a.push_back({{"address", p.address},
                 {"role", p.role},
                 {"group", opt(p.iommu_group)},
                 {"type", opt(p.iommu_type)},
                 {"ats", opt(p.ats_enabled)},
                 {"acs", opt(p.acs_control)},
                 {"short", p.config_short},
                 {"w", prov(p.where)}});
  return {{"iommu", f.iommu_present}, {"functions", a}};
}

PciIsolationFacts isolation_dec(const In& in) {
  PciIsolationFacts f;
  f.iommu_present = in.at("iommu").boolean();
  in.at("functions").each([&](const In& p) {
    PciIsolation x;
    x.address = p.at("address").str();
    x.role = p.at("role").str();
    x.iommu_group = opt_in<std::string>(p.at("group"), str_dec);
    x.iommu_type = opt_in<std::string>(p.at("type"), str_dec);
    x.ats_enabled = opt_in<bool>(p.at("ats"), [](const In& b) { return b.boolean(); });
    x.acs_control = opt_in<std::uint16_t>(p.at("acs"), [](const In& v) {
      const std::uint64_t u = v.u64();
      if (u > 0xffff) v.fail("ACS control out of range");
      return static_cast<std::uint16_t>(u);
    });
    x.config_short = p.at("short").boolean();
    x.where = prov_in(p.at("w"));
    f.functions.push_back(std::move(x));
  });
  return f;
}

json healthagent_enc(const HealthagentStatus& h) {
  json a = json::array();
  for (const HealthagentCheck& c : h.checks)
    a.push_back({{"module", c.module},
                 {"name", c.name},
                 {"status", c.status},
                 {"message", c.message},
                 {"description", c.description},
                 {"recommendations", c.recommendations},
                 {"ghr", c.ghr_category},
                 {"last_update", c.last_update},
                 {"errors", opt(c.error_count)},
                 {"failed", c.failed_items},
                 {"w", prov(c.where)}});
  return a;
}

HealthagentStatus healthagent_dec(const In& in) {
  HealthagentStatus h;
  in.each([&](const In& c) {
    HealthagentCheck x;
    x.module = c.at("module").str();
    x.name = c.at("name").str();
    x.status = c.at("status").str();
    x.message = c.at("message").str();
    x.description = c.at("description").str();
    x.recommendations = c.at("recommendations").str();
    x.ghr_category = c.at("ghr").str();
    x.last_update = c.at("last_update").str();
    x.error_count = opt_in<long long>(c.at("errors"), [](const In& v) { return v.integer(); });
    x.failed_items = c.at("failed").strings();
    x.where = prov_in(c.at("w"));
    h.checks.push_back(std::move(x));
  });
  return h;
}

}  // namespace

json host_health_to_wire(const NodeFacts& n) {
  return {{"processes", fact(n.processes, processes_enc)},
          {"services", fact(n.services, services_enc)},
          {"ib_char", fact(n.ib_char_devices, chardevs_enc)},
          {"virt", fact(n.virtualization, virt_enc)},
          {"pci_isolation", fact(n.pci_isolation, isolation_enc)},
          {"healthagent", fact(n.healthagent, healthagent_enc)}};
}

void host_health_from_wire(const In& health, NodeFacts& n) {
  n.processes = fact_in<ProcessFacts>(health.at("processes"), processes_dec);
  n.services = fact_in<ServiceFacts>(health.at("services"), services_dec);
  n.ib_char_devices = fact_in<IbCharDevFacts>(health.at("ib_char"), chardevs_dec);
  n.virtualization = fact_in<VirtInfo>(health.at("virt"), virt_dec);
  n.pci_isolation = fact_in<PciIsolationFacts>(health.at("pci_isolation"), isolation_dec);
  n.healthagent = fact_in<HealthagentStatus>(health.at("healthagent"), healthagent_dec);
}

}  // namespace trainready
