#include "codec/node_facts_json.h"

#include "codec/pretty_json_writer.h"

#include <cstdio>

namespace trainready {
namespace {

using nlohmann::json;

// A fact as a tree, through the same writer call as the text (FactWriter::fact).
template <class T, class F>
json fact_json(const Fact<T>& f, F&& value_to_json) {
  json j;
  TreeWriter w(j);
  w.fact(f, [&](const T& v) { w.any(value_to_json(v)); });
  return j;
}

template <class T>
json plain(const Fact<T>& f) {
  return fact_json(f, [](const T& v) { return json(v); });
}

std::string kind_name(PciKind k) {
  switch (k) {
    case PciKind::kMellanox:
      return "mellanox_nic";
    case PciKind::kNvidiaGpu:
      return "nvidia_gpu";
    case PciKind::kAmdGpu:
      return "amd_gpu";
    case PciKind::kNvSwitch:
      return "nvswitch";
    case PciKind::kNvme:
      return "nvme";
    case PciKind::kOther:
      return "other";
  }
  return "other";
}

}  // namespace

std::string fact_status_name(FactStatus s) {
  switch (s) {
    case FactStatus::kPresent:
      return "present";
    case FactStatus::kMissing:
      return "missing";
    case FactStatus::kUnreadable:
      return "unreadable";
  }
  return "missing";
}

namespace {

// Every member but the three largest (infiniband, pci, gpus), which write_node_facts_json
// writes directly.
json small_members_json(const NodeFacts& n) {
  json j;
  j["label"] = n.label;
  j["root"] = n.root_display;
  j["live"] = n.live;
  j["vm_size"] = plain(n.vm_size());
  j["host"] = fact_json(n.host, [](const HostInfo& h) {
    return json{{"hostname", h.hostname}, {"kernel", h.kernel}, {"os", h.os}};
  });
  j["dmi"] = fact_json(n.dmi, [](const DmiInfo& d) {
    return json{{"sys_vendor", d.sys_vendor},
                {"product_name", d.product_name},
                {"chassis_asset_tag", d.chassis_asset_tag},
                {"azure", d.azure}};
  });
  j["imds"] = fact_json(n.imds, [](const ImdsInfo& i) {
    return json{{"vm_size", i.vm_size},
                {"vm_scale_set_name", i.vmss_name},
                {"placement_group_id", i.placement_group_id},
                {"platform_fault_domain", i.platform_fault_domain},
                {"location", i.location},
                {"name", i.name},
                {"vm_id", i.vm_id},
                {"zone", i.zone},
                {"image",
                 {{"publisher", i.image_publisher},
                  {"offer", i.image_offer},
                  {"sku", i.image_sku},
                  {"version", i.image_version},
                  {"id", i.image_id}}}};
  });
  j["modules"] = fact_json(n.modules, [](const ModuleFacts& m) {
    json o = json::object();
    for (const auto& [name, info] : m.modules) {
      if (!info.loaded && info.version.empty()) continue;
      o[name] = {{"loaded", info.loaded}, {"version", info.version}};
    }
    return o;
  });
  j["ofed_version"] = plain(n.ofed_version);
  j["nccl_settings"] = fact_json(n.nccl, [](const NcclSettings& s) {
    auto pairs = [](const std::map<std::string, std::string>& m) {
      json a = json::array();
      for (const auto& [k, v] : m) a.push_back({{"name", k}, {"value", v}});
      return a;
    };
    json o{{"env", pairs(s.env)},        {"env_source", s.env_source.str()},
           {"conf", pairs(s.conf)},      {"conf_source", s.conf_source.str()},
           {"conf_error", s.conf_error}, {"topo_file", s.topo_file}};
    o["topo_file_exists"] = plain(s.topo_file_exists);
    return o;
  });
  j["nccl_version"] = plain(n.nccl_version);
  j["scratch"] = fact_json(n.scratch, [](const ScratchFacts& s) {
    json ns = json::array();
    for (const auto& x : s.namespaces) {
      ns.push_back({{"name", x.name},
                    {"model", x.model},
                    {"size_bytes", x.size_bytes},
                    {"local", x.local},
                    {"mountpoint", x.mountpoint},
                    {"md_array", x.md_array}});
    }
    json md = json::array();
    for (const auto& a : s.arrays) {
      md.push_back({{"name", a.name},
                    {"level", a.level},
                    {"state", a.state},
                    {"members", a.members},
                    {"mountpoint", a.mountpoint}});
    }
    return json{{"nvme_namespaces", ns}, {"md_arrays", md}};
  });
  j["gpu_topology"] = fact_json(n.gpu_topology, [](const TopoMatrix& t) {
    return json{{"columns", t.columns}, {"gpus", t.gpu_count()}, {"nics", t.nic_count()}};
  });
  j["kernel_log"] = fact_json(n.kernel_log, [](const KernelLogFacts& k) {
    json x = json::array();
    for (const XidEvent& e : k.xids) {
      x.push_back({{"xid", e.code},
                   {"pci", e.pci},
                   {"timestamp", e.timestamp},
                   {"process", e.process},
                   {"detail", e.detail},
                   {"without_xid_line", e.without_xid},
                   {"source", e.where.str()}});
    }
    return json{{"source", k.source},
                {"lines", k.lines},
                {"first_timestamp", k.first_timestamp},
                {"last_timestamp", k.last_timestamp},
                {"xids", x}};
  });
  j["ib_write_bw"] = fact_json(n.ib_write_bw, [](const IbWriteBwFacts& f) {
    json runs = json::array();
    for (const IbWriteBwRun& r : f.runs) {
      runs.push_back({{"device", r.device},
                      {"link_type", r.link_type},
                      {"qps", r.qps},
                      {"gpu_memory", r.gpu_memory},
                      {"gpu_name", r.gpu_name},
                      {"bidirectional", r.bidirectional},
                      {"bytes", r.bytes},
                      {"bw_peak_gbits_per_s", r.peak_gbps},
                      {"bw_average_gbits_per_s", r.average_gbps},
                      {"unit_as_printed", r.unit_text},
                      {"source", r.where.str()}});
    }
    return json{{"runs", runs}};
  });
  j["image_components"] = fact_json(n.image_components, [](const ImageComponents& c) {
    return json{{"format", c.format}, {"versions", c.versions}};
  });
  j["imex_daemon_running"] = plain(n.imex_daemon);
  j["imex_channels"] = plain(n.imex_channels);
  if (!n.capture_sections.empty()) {
    json secs = json::array();
    for (const CaptureSection& c : n.capture_sections) {
      secs.push_back({{"kind", c.kind},
                      {"command", c.command},
                      {"source", c.where.source},
                      {"first_line", c.where.line},
                      {"last_line", c.last_line},
                      {"read", c.read},
                      {"note", c.note}});
    }
    j["capture_sections"] = std::move(secs);
  }
  return j;
}

template <class W>
void write_ib(W& w, const IbFacts& ib) {
  w.open('{');
  w.key("devices");
  w.open('[');
  for (const auto& d : ib.devices) {
    w.element();
    w.open('{');
    w.key("fw_ver");
    w.str(d.fw_ver);
    w.key("hca_type");
    w.str(d.hca_type);
    w.key("model");
    w.str(d.model);
    w.key("name");
    w.str(d.name);
    w.key("node_guid");
    w.str(d.node_guid);
    w.key("pci_address");
    w.str(d.pci_address);
    w.key("ports");
    w.open('[');
    for (const auto& p : d.ports) {
      w.element();
      w.open('{');
      w.key("lid");
      w.plain(p.lid);
      w.key("link_layer");
      w.plain(p.link_layer);
      w.key("phys_state");
      w.plain(p.phys_state);
      w.key("pkey0");
      w.plain(p.pkey0);
      w.key("port");
      w.any(json(p.number));
      w.key("rate_gbits_per_s");
      w.plain(p.rate_gbps);
      w.key("rate_text");
      w.str(p.rate_text);
      w.key("source");
      w.str(p.where.str());
      w.key("state");
      w.plain(p.state);
      w.close('}');
    }
    w.close(']');
    w.close('}');
  }
  w.close(']');
  if (!ib.excerpt.empty()) {
    w.key("excerpt");
    w.str(ib.excerpt);
  }
  w.close('}');
}

template <class W>
void write_pci(W& w, const PciFacts& pci) {
  char hex[16];
  w.open('{');
  w.key("devices");
  w.open('[');
  for (const auto& d : pci.devices) {
    w.element();
    w.open('{');
    w.key("address");
    w.str(d.address);
    w.key("device");
    std::snprintf(hex, sizeof(hex), "0x%04x", d.device);
    w.str(hex);
    w.key("driver");
    w.str(d.driver);
    w.key("kind");
    w.str(kind_name(d.kind));
    w.key("link_speed");
    w.str(d.link_speed);
    w.key("link_width");
    w.any(json(d.link_width));
    w.key("max_link_speed");
    w.str(d.max_link_speed);
    w.key("max_link_width");
    w.any(json(d.max_link_width));
    w.key("model");
    w.str(d.model);
    w.key("numa_node");
    w.any(json(d.numa_node));
    w.key("source");
    w.str(d.where.str());
    w.key("vendor");
    std::snprintf(hex, sizeof(hex), "0x%04x", d.vendor);
    w.str(hex);
    w.key("virtual_function");
    w.any(json(d.virtual_function));
    w.close('}');
  }
  w.close(']');
  if (!pci.excerpt.empty()) {
    w.key("excerpt");
    w.str(pci.excerpt);
  }
  w.close('}');
}

template <class W>
void write_gpus(W& w, const GpuFacts& g) {
  auto opt = [&w](const char* key, const auto& v, bool null_when_absent) {
    if (v) {
      w.key(key);
      w.any(json(*v));
    } else if (null_when_absent) {
      w.key(key);
      w.any(json(nullptr));
    }
  };
  w.open('{');
  w.key("driver_loaded");
  w.boolean(g.driver_loaded);
  w.key("driver_version");
  w.str(g.driver_version);
  w.key("gpus");
  w.open('[');
  for (const auto& x : g.gpus) {
    w.element();
    w.open('{');
    opt("clocks_event_reasons", x.clocks_event_reasons, false);
    opt("ecc_enabled", x.ecc_enabled, true);
    opt("ecc_uncorrected_volatile", x.ecc_uncorrected_volatile, true);
    opt("fabric_clique_id", x.fabric_clique_id, false);
    opt("fabric_cluster_uuid", x.fabric_cluster_uuid, false);
    opt("fabric_state", x.fabric_state, false);
    opt("fabric_status", x.fabric_status, false);
    w.key("index");
    w.any(json(x.index));
    w.key("memory_total_bytes");
    w.any(json(x.memory_total_bytes));
    w.key("name");
    w.str(x.name);
    opt("nvlink_active", x.nvlink_active, false);
    opt("nvlink_crc_errors", x.nvlink_crc_errors, false);
    opt("nvlink_links", x.nvlink_links, false);
    opt("nvlink_recovery_errors", x.nvlink_recovery_errors, false);
    w.key("pci_bus_id");
    w.str(x.pci_bus_id);
    opt("remap_failure", x.remap_failure, true);
    opt("remap_pending", x.remap_pending, true);
    w.key("serial");
    w.str(x.serial);
    w.key("uuid");
    w.str(x.uuid);
    w.close('}');
  }
  w.close(']');
  w.key("no_driver_reason");
  w.str(g.no_driver_reason);
  w.key("nvml_version");
  w.str(g.nvml_version);
  w.close('}');
}

}  // namespace

json gpu_facts_to_json(const GpuFacts& g) {
  json j;
  TreeWriter w(j);
  write_gpus(w, g);
  return j;
}

json to_json(const NodeFacts& n) {
  json j = small_members_json(n);
  TreeWriter ib(j["infiniband"]);
  ib.fact(n.ib, [&ib](const IbFacts& x) { write_ib(ib, x); });
  TreeWriter pci(j["pci"]);
  pci.fact(n.pci, [&pci](const PciFacts& x) { write_pci(pci, x); });
  TreeWriter gpus(j["gpus"]);
  gpus.fact(n.gpus, [&gpus](const GpuFacts& x) { write_gpus(gpus, x); });
  return j;
}

void write_node_facts_json(std::string& out, const NodeFacts& n, unsigned indent) {
  json j = small_members_json(n);
  for (const char* k : {"gpus", "infiniband", "pci"}) j[k] = nullptr;  // their places
  PrettyWriter w(out, indent);
  w.open('{');
  for (auto it = j.begin(); it != j.end(); ++it) {
    w.key(it.key());
    if (it.key() == "gpus") {
      w.fact(n.gpus, [&w](const GpuFacts& g) { write_gpus(w, g); });
    } else if (it.key() == "infiniband") {
      w.fact(n.ib, [&w](const IbFacts& ib) { write_ib(w, ib); });
    } else if (it.key() == "pci") {
      w.fact(n.pci, [&w](const PciFacts& pci) { write_pci(w, pci); });
    } else {
      w.any(it.value());
    }
  }
  w.close('}');
}

}  // namespace trainready
