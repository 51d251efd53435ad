#include "codec/node_facts_json.h"

#include "codec/pretty_json_writer.h"

#include <cstdio>

namespace trainready {
namespace {

using nlohmann::json;

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

// A leaf value: a string as the writer copies it, anything else (numbers, booleans, lists and
// maps of them) as nlohmann's text of it.
template <class W>
void val(W& w, const std::string& s) {
  w.str(s);
}
template <class W, class T>
void val(W& w, const T& v) {
  w.any(json(v));
}

// {key: value, ...} of leaves; the keys are the callers', in sorted order.
template <class W>
struct Obj {
  W& w;
  explicit Obj(W& writer) : w(writer) { w.open('{'); }
  ~Obj() { w.close('}'); }
  template <class T>
  Obj& operator()(const char* key, const T& v) {
    w.key(key);
    val(w, v);
    return *this;
  }
};

template <class W>
void write_host(W& w, const HostInfo& h) {
  Obj<W>{w}("hostname", h.hostname)("kernel", h.kernel)("os", h.os);
}

template <class W>
void write_dmi(W& w, const DmiInfo& d) {
  Obj<W>{w}("azure", d.azure)("chassis_asset_tag", d.chassis_asset_tag)(
      "product_name", d.product_name)("sys_vendor", d.sys_vendor);
}

template <class W>
void write_imds(W& w, const ImdsInfo& i) {
  Obj<W> o(w);
  w.key("image");
  Obj<W>{w}("id", i.image_id)("offer", i.image_offer)("publisher", i.image_publisher)(
      "sku", i.image_sku)("version", i.image_version);
  o("location", i.location)("name", i.name)("placement_group_id", i.placement_group_id)(
      "platform_fault_domain", i.platform_fault_domain)("vm_id", i.vm_id)(
      "vm_scale_set_name", i.vmss_name)("vm_size", i.vm_size)("zone", i.zone);
}

template <class W>
void write_modules(W& w, const ModuleFacts& m) {
  Obj<W> o(w);
  for (const auto& [name, info] : m.modules) {  // a std::map: sorted
    if (!info.loaded && info.version.empty()) continue;
    w.key(name);
    Obj<W>{w}("loaded", info.loaded)("version", info.version);
  }
}

template <class W>
void write_nccl_settings(W& w, const NcclSettings& s) {
  auto pairs = [&w](const std::map<std::string, std::string>& m) {
    w.open('[');
    for (const auto& [k, v] : m) {
      w.element();
      Obj<W>{w}("name", k)("value", v);
    }
    w.close(']');
  };
  Obj<W> o(w);
  w.key("conf");
  pairs(s.conf);
  o("conf_error", s.conf_error)("conf_source", s.conf_source.str());
  w.key("env");
  pairs(s.env);
  o("env_source", s.env_source.str())("topo_file", s.topo_file);
  w.key("topo_file_exists");
  w.plain(s.topo_file_exists);
}

template <class W>
void write_scratch(W& w, const ScratchFacts& s) {
  Obj<W> o(w);
  w.key("md_arrays");
  w.open('[');
  for (const auto& a : s.arrays) {
    w.element();
    Obj<W>{w}("level", a.level)("members", a.members)("mountpoint", a.mountpoint)("name", a.name)(
        "state", a.state);
  }
  w.close(']');
  w.key("nvme_namespaces");
  w.open('[');
  for (const auto& x : s.namespaces) {
    w.element();
    Obj<W>{w}("local", x.local)("md_array", x.md_array)("model", x.model)(
        "mountpoint", x.mountpoint)("name", x.name)("size_bytes", x.size_bytes);
  }
  w.close(']');
}

template <class W>
void write_kernel_log(W& w, const KernelLogFacts& k) {
  Obj<W> o(w);
  o("first_timestamp", k.first_timestamp)("last_timestamp", k.last_timestamp)("lines", k.lines)(
      "source", k.source);
  w.key("xids");
  w.open('[');
  for (const XidEvent& e : k.xids) {
    w.element();
    Obj<W>{w}("detail", e.detail)("pci", e.pci)("process", e.process)("source", e.where.str())(
        "timestamp", e.timestamp)("without_xid_line", e.without_xid)("xid", e.code);
  }
  w.close(']');
}

template <class W>
void write_ib_write_bw(W& w, const IbWriteBwFacts& f) {
  Obj<W> o(w);
  w.key("runs");
  w.open('[');
  for (const IbWriteBwRun& r : f.runs) {
    w.element();
    Obj<W>{w}("bidirectional", r.bidirectional)("bw_average_gbits_per_s", r.average_gbps)(
        "bw_peak_gbits_per_s", r.peak_gbps)("bytes", r.bytes)("device", r.device)(
        "gpu_memory", r.gpu_memory)("gpu_name", r.gpu_name)("link_type", r.link_type)("qps", r.qps)(
        "source", r.where.str())("unit_as_printed", r.unit_text);
  }
  w.close(']');
}

template <class W>
void write_capture_sections(W& w, const std::vector<CaptureSection>& secs) {
  w.open('[');
  for (const CaptureSection& c : secs) {
    w.element();
    Obj<W>{w}("command", c.command)("first_line", c.where.line)("kind", c.kind)(
        "last_line", c.last_line)("note", c.note)("read", c.read)("source", c.where.source);
  }
  w.close(']');
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

namespace {

// Every member of a node, in sorted key order: one field list for the tree (to_json) and the text
// (write_node_facts_json).
template <class W>
void write_node(W& w, const NodeFacts& n) {
  w.open('{');
  if (!n.capture_sections.empty()) {
    w.key("capture_sections");
    write_capture_sections(w, n.capture_sections);
  }
  w.key("dmi");
  w.fact(n.dmi, [&w](const DmiInfo& d) { write_dmi(w, d); });
  w.key("gpu_topology");
  w.fact(n.gpu_topology, [&w](const TopoMatrix& t) {
    Obj<W>{w}("columns", t.columns)("gpus", t.gpu_count())("nics", t.nic_count());
  });
  w.key("gpus");
  w.fact(n.gpus, [&w](const GpuFacts& g) { write_gpus(w, g); });
  w.key("host");
  w.fact(n.host, [&w](const HostInfo& h) { write_host(w, h); });
  w.key("ib_write_bw");
  w.fact(n.ib_write_bw, [&w](const IbWriteBwFacts& f) { write_ib_write_bw(w, f); });
  w.key("image_components");
  w.fact(n.image_components,
         [&w](const ImageComponents& c) { Obj<W>{w}("format", c.format)("versions", c.versions); });
  w.key("imds");
  w.fact(n.imds, [&w](const ImdsInfo& i) { write_imds(w, i); });
  w.key("imex_channels");
  w.plain(n.imex_channels);
  w.key("imex_daemon_running");
  w.plain(n.imex_daemon);
  w.key("infiniband");
  w.fact(n.ib, [&w](const IbFacts& ib) { write_ib(w, ib); });
  w.key("kernel_log");
  w.fact(n.kernel_log, [&w](const KernelLogFacts& k) { write_kernel_log(w, k); });
  w.key("label");
  w.str(n.label);
  w.key("live");
  w.boolean(n.live);
  w.key("modules");
  w.fact(n.modules, [&w](const ModuleFacts& m) { write_modules(w, m); });
  w.key("nccl_settings");
  w.fact(n.nccl, [&w](const NcclSettings& s) { write_nccl_settings(w, s); });
  w.key("nccl_version");
  w.plain(n.nccl_version);
  w.key("ofed_version");
  w.plain(n.ofed_version);
  w.key("pci");
  w.fact(n.pci, [&w](const PciFacts& pci) { write_pci(w, pci); });
  w.key("root");
  w.str(n.root_display);
  w.key("scratch");
  w.fact(n.scratch, [&w](const ScratchFacts& s) { write_scratch(w, s); });
  w.key("vm_size");
  w.plain(n.vm_size());
  w.close('}');
}

}  // namespace

json to_json(const NodeFacts& n) {
  json j;
  TreeWriter w(j);
  write_node(w, n);
  return j;
}

void write_node_facts_json(std::string& out, const NodeFacts& n, unsigned indent) {
  PrettyWriter w(out, indent);
  write_node(w, n);
}

}  // namespace trainready
