// RDMA devices and ports from /sys/class/infiniband (the files LBNL NHC and AzNHC read).
// Every device is listed; ports are told apart by link_layer, never by device name.
#include <cctype>

#include "core/text.h"
#include "core/utf8.h"
#include "parsers/ib_common.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

template <class Norm>
Fact<std::string> normalized(const Root& root, const std::string& path, Norm norm,
                             const char* what) {
  Fact<std::string> raw = read_attr(root, path);
  if (!raw.ok()) return raw;
  if (auto v = norm(raw.value)) return Fact<std::string>::present(*v, raw.where);
  return Fact<std::string>::unreadable(
      "unexpected " + std::string(what) + " \"" + clip_text(raw.value, 40) + "\"", raw.where);
}

IbPort read_port(const Root& root, const std::string& base, int number) {
  IbPort p;
  p.number = number;
  p.where = {root.display(base), 0};
  p.state = normalized(root, base + "/state", normalize_port_state, "port state");
  p.phys_state = normalized(root, base + "/phys_state", normalize_phys_state, "physical state");
  p.link_layer = normalized(root, base + "/link_layer", normalize_link_layer, "link layer");
  Fact<std::string> rate = read_attr(root, base + "/rate");
  if (rate.ok()) {
    p.rate_text = rate.value;
    p.link_width = parse_rate_width(rate.value).value_or(0);
    if (auto r = parse_rate_gbps(rate.value)) {
      p.rate_gbps = Fact<double>::present(*r, rate.where);
    } else {
      p.rate_gbps = Fact<double>::unreadable(
          "unexpected rate \"" + clip_text(rate.value, 40) + "\"", rate.where);
    }
  } else {
    p.rate_gbps = rate.status == FactStatus::kMissing
                      ? Fact<double>::missing(rate.reason, rate.where)
                      : Fact<double>::unreadable(rate.reason, rate.where);
  }
  auto hexish = [](const std::string& v) -> std::optional<std::string> {
    if (v.size() < 3 || v.size() > 10 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
      return std::nullopt;
    for (std::size_t i = 2; i < v.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(v[i]))) return std::nullopt;
    }
    return to_lower(v);
  };
  p.pkey0 = normalized(root, base + "/pkeys/0", hexish, "partition key");
  p.lid = normalized(root, base + "/lid", hexish, "LID");
  return p;
}

}  // namespace

Fact<IbFacts> probe_infiniband(const Root& root) {
  const std::string cls = "/sys/class/infiniband";
  Provenance where{root.display(cls), 0};
  DirList devs = root.list_dir(cls);
  if (devs.status == ReadStatus::kUnreadable) return Fact<IbFacts>::unreadable(devs.error, where);
  IbFacts facts;
  if (devs.status == ReadStatus::kMissing) {
    // No class directory: ib_core is not loaded, which is a fact, unless there is no /sys at all.
    if (!root.list_dir("/sys/class").ok())
      return Fact<IbFacts>::missing("no /sys/class to read", where);
    return Fact<IbFacts>::present(facts, where);
  }
  for (const std::string& name : devs.entries) {
    const std::string base = cls + "/" + name;
    IbDevice d;
    d.name = name;
    d.where = {root.display(base), 0};
    if (auto t = read_attr(root, base + "/hca_type"); t.ok()) {
      d.hca_type = t.value;
      d.model = hca_model_from_type(t.value);
    }
    if (auto f = read_attr(root, base + "/fw_ver"); f.ok()) d.fw_ver = f.value;
    if (auto g = read_attr(root, base + "/node_guid"); g.ok()) d.node_guid = g.value;
    if (LinkRead l = root.read_link(base + "/device"); l.ok())
      d.pci_address = basename_of(l.target);
    DirList ports = root.list_dir(base + "/ports");
    for (const std::string& p : ports.entries) {
      auto n = parse_int(p);
      if (!n || *n <= 0 || *n > 255) continue;
      d.ports.push_back(read_port(root, base + "/ports/" + p, static_cast<int>(*n)));
    }
    facts.devices.push_back(std::move(d));
  }
  return Fact<IbFacts>::present(std::move(facts), where);
}

}  // namespace trainready
