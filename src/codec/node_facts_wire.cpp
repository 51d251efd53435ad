#include "codec/node_facts_wire.h"

#include "codec/host_health_wire.h"
#include "codec/wire_in.h"

#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace trainready {
namespace {

using nlohmann::json;

using namespace wire;

json ib_enc(const IbFacts& ib) {
  json devs = json::array();
  for (const IbDevice& d : ib.devices) {
    json ports = json::array();
    for (const IbPort& p : d.ports) {
      ports.push_back({{"n", p.number},
                       {"state", fact(p.state, str_enc)},
                       {"phys", fact(p.phys_state, str_enc)},
                       {"rate", fact(p.rate_gbps, [](double x) { return json(x); })},
                       {"rate_text", p.rate_text},
                       {"width", p.link_width},
                       {"layer", fact(p.link_layer, str_enc)},
                       {"pkey0", fact(p.pkey0, str_enc)},
                       {"lid", fact(p.lid, str_enc)},
                       {"w", prov(p.where)}});
    }
    devs.push_back({{"name", d.name},
                    {"hca", d.hca_type},
                    {"model", d.model},
                    {"fw", d.fw_ver},
                    {"guid", d.node_guid},
                    {"pci", d.pci_address},
                    {"ports", std::move(ports)},
                    {"w", prov(d.where)}});
  }
  return devs;
}

IbFacts ib_dec(const In& in) {
  IbFacts ib;
  for (const In& d : in.items()) {
    IbDevice dev;
    dev.name = d.at("name").str();
    dev.hca_type = d.at("hca").str();
    dev.model = d.at("model").str();
    dev.fw_ver = d.at("fw").str();
    dev.node_guid = d.at("guid").str();
    dev.pci_address = d.at("pci").str();
    dev.where = prov_in(d.at("w"));
    for (const In& p : d.at("ports").items()) {
      IbPort port;
      port.number = p.at("n").int32();
      port.state = fact_in<std::string>(p.at("state"), str_dec);
      port.phys_state = fact_in<std::string>(p.at("phys"), str_dec);
      port.rate_gbps = fact_in<double>(p.at("rate"), [](const In& x) { return x.number(); });
      port.rate_text = p.at("rate_text").str();
      port.link_width = p.at("width").int32();
      port.link_layer = fact_in<std::string>(p.at("layer"), str_dec);
      port.pkey0 = fact_in<std::string>(p.at("pkey0"), str_dec);
      port.lid = fact_in<std::string>(p.at("lid"), str_dec);
      port.where = prov_in(p.at("w"));
      dev.ports.push_back(std::move(port));
    }
    ib.devices.push_back(std::move(dev));
  }
  return ib;
}

json pci_enc(const PciFacts& pci) {
  json devs = json::array();
  for (const PciDevice& d : pci.devices) {
    devs.push_back({{"addr", d.address},
                    {"vendor", d.vendor},
                    {"device", d.device},
                    {"class", d.class_code},
                    {"kind", static_cast<int>(d.kind)},
                    {"model", d.model},
                    {"vf", d.virtual_function},
                    {"speed", d.link_speed},
                    {"width", d.link_width},
                    {"max_speed", d.max_link_speed},
                    {"max_width", d.max_link_width},
                    {"numa", d.numa_node},
                    {"driver", d.driver},
                    {"w", prov(d.where)}});
  }
  return devs;
}

PciFacts pci_dec(const In& in) {
  PciFacts pci;
  for (const In& d : in.items()) {
    PciDevice x;
    x.address = d.at("addr").str();
    x.vendor = static_cast<std::uint32_t>(d.at("vendor").u64());
    x.device = static_cast<std::uint32_t>(d.at("device").u64());
    x.class_code = static_cast<std::uint32_t>(d.at("class").u64());
    const int kind = d.at("kind").int32();
    if (kind < 0 || kind > static_cast<int>(PciKind::kOther)) d.at("kind").fail("unknown kind");
    x.kind = static_cast<PciKind>(kind);
    x.model = d.at("model").str();
    x.virtual_function = d.at("vf").boolean();
    x.link_speed = d.at("speed").str();
    x.link_width = d.at("width").int32();
    x.max_link_speed = d.at("max_speed").str();
    x.max_link_width = d.at("max_width").int32();
    x.numa_node = d.at("numa").int32();
    x.driver = d.at("driver").str();
    x.where = prov_in(d.at("w"));
    pci.devices.push_back(std::move(x));
  }
  return pci;
}

json modules_enc(const ModuleFacts& m) {
  json mods = json::object();
  for (const auto& [name, info] : m.modules)
    mods[name] = {{"loaded", info.loaded}, {"version", info.version}, {"w", prov(info.where)}};
  return {{"modules", std::move(mods)}, {"nvidia_flavor", fact(m.nvidia_flavor, str_enc)}};
}

ModuleFacts modules_dec(const In& in) {
  ModuleFacts m;
  in.at("modules").each_pair([&](std::string_view key, const In& x) {
    m.modules[std::string(key)] =
        ModuleInfo{x.at("loaded").boolean(), x.at("version").str(), prov_in(x.at("w"))};
  });
  m.nvidia_flavor = fact_in<std::string>(in.at("nvidia_flavor"), str_dec);
  return m;
}

json gpus_enc(const GpuFacts& g) {
  json gpus = json::array();
  for (const Gpu& x : g.gpus) {
    gpus.push_back({{"index", x.index},
                    {"name", x.name},
                    {"uuid", x.uuid},
                    {"serial", x.serial},
                    {"mem", x.memory_total_bytes},
                    {"bus", x.pci_bus_id},
                    {"ecc", opt(x.ecc_enabled)},
                    {"ecc_unc", opt(x.ecc_uncorrected_volatile)},
                    {"remap_pending", opt(x.remap_pending)},
                    {"remap_failure", opt(x.remap_failure)},
                    {"nvl_links", opt(x.nvlink_links)},
                    {"nvl_active", opt(x.nvlink_active)},
                    {"nvl_recovery", opt(x.nvlink_recovery_errors)},
                    {"nvl_crc", opt(x.nvlink_crc_errors)},
                    {"fabric_state", opt(x.fabric_state)},
                    {"fabric_status", opt(x.fabric_status)},
                    {"fabric_uuid", opt(x.fabric_cluster_uuid)},
                    {"fabric_clique", opt(x.fabric_clique_id)},
                    {"clocks", opt(x.clocks_event_reasons)}});
  }
  return {{"driver_loaded", g.driver_loaded},
          {"no_driver_reason", g.no_driver_reason},
          {"driver", g.driver_version},
          {"nvml", g.nvml_version},
          {"gpus", std::move(gpus)}};
}

GpuFacts gpus_dec(const In& in) {
  GpuFacts g;
  g.driver_loaded = in.at("driver_loaded").boolean();
  g.no_driver_reason = in.at("no_driver_reason").str();
  g.driver_version = in.at("driver").str();
  g.nvml_version = in.at("nvml").str();
  auto b = [](const In& x) { return x.boolean(); };
  auto u = [](const In& x) { return x.u64(); };
  auto i = [](const In& x) { return x.int32(); };
  auto s = [](const In& x) { return x.str(); };
  for (const In& x : in.at("gpus").items()) {
    Gpu gpu;
    gpu.index = x.at("index").int32();
    gpu.name = x.at("name").str();
    gpu.uuid = x.at("uuid").str();
    gpu.serial = x.at("serial").str();
    gpu.memory_total_bytes = x.at("mem").u64();
    gpu.pci_bus_id = x.at("bus").str();
    gpu.ecc_enabled = opt_in<bool>(x.at("ecc"), b);
    gpu.ecc_uncorrected_volatile = opt_in<std::uint64_t>(x.at("ecc_unc"), u);
    gpu.remap_pending = opt_in<bool>(x.at("remap_pending"), b);
    gpu.remap_failure = opt_in<bool>(x.at("remap_failure"), b);
    gpu.nvlink_links = opt_in<int>(x.at("nvl_links"), i);
    gpu.nvlink_active = opt_in<int>(x.at("nvl_active"), i);
    gpu.nvlink_recovery_errors = opt_in<std::uint64_t>(x.at("nvl_recovery"), u);
    gpu.nvlink_crc_errors = opt_in<std::uint64_t>(x.at("nvl_crc"), u);
    gpu.fabric_state = opt_in<std::string>(x.at("fabric_state"), s);
    gpu.fabric_status = opt_in<int>(x.at("fabric_status"), i);
    if (x.has("fabric_uuid")) gpu.fabric_cluster_uuid = opt_in<std::string>(x.at("fabric_uuid"), s);
    if (x.has("fabric_clique"))
      gpu.fabric_clique_id = opt_in<std::uint32_t>(
          x.at("fabric_clique"), [](const In& v) { return static_cast<std::uint32_t>(v.u64()); });
    gpu.clocks_event_reasons = opt_in<std::uint64_t>(x.at("clocks"), u);
    g.gpus.push_back(std::move(gpu));
  }
  return g;
}

json nccl_enc(const NcclSettings& s) {
  return {{"env", s.env},
          {"env_source", prov(s.env_source)},
          {"conf", s.conf},
          {"conf_source", prov(s.conf_source)},
          {"conf_error", s.conf_error},
          {"topo_file", s.topo_file},
          {"topo_origin", prov(s.topo_file_origin)},
          {"topo_exists", fact(s.topo_file_exists, [](bool b) { return json(b); })}};
}

NcclSettings nccl_dec(const In& in) {
  NcclSettings s;
  s.env = in.at("env").string_map();
  s.env_source = prov_in(in.at("env_source"));
  s.conf = in.at("conf").string_map();
  s.conf_source = prov_in(in.at("conf_source"));
  s.conf_error = in.at("conf_error").str();
  s.topo_file = in.at("topo_file").str();
  s.topo_file_origin = prov_in(in.at("topo_origin"));
  s.topo_file_exists = fact_in<bool>(in.at("topo_exists"), [](const In& x) { return x.boolean(); });
  return s;
}

json scratch_enc(const ScratchFacts& s) {
  json ns = json::array();
  for (const NvmeNamespace& x : s.namespaces)
    ns.push_back({{"name", x.name},
                  {"model", x.model},
                  {"serial", x.serial},
                  {"size", x.size_bytes},
                  {"local", x.local},
                  {"mount", x.mountpoint},
                  {"md", x.md_array},
                  {"w", prov(x.where)}});
  json md = json::array();
  for (const MdArray& a : s.arrays)
    md.push_back({{"name", a.name},
                  {"level", a.level},
                  {"state", a.state},
                  {"members", a.members},
                  {"mount", a.mountpoint},
                  {"w", prov(a.where)}});
  return {{"namespaces", std::move(ns)}, {"arrays", std::move(md)}};
}

ScratchFacts scratch_dec(const In& in) {
  ScratchFacts s;
  for (const In& x : in.at("namespaces").items())
    s.namespaces.push_back(NvmeNamespace{
        x.at("name").str(), x.at("model").str(), x.at("serial").str(), x.at("size").u64(),
        x.at("local").boolean(), x.at("mount").str(), x.at("md").str(), prov_in(x.at("w"))});
  for (const In& a : in.at("arrays").items())
    s.arrays.push_back(MdArray{a.at("name").str(), a.at("level").str(), a.at("state").str(),
                               a.at("members").strings(), a.at("mount").str(), prov_in(a.at("w"))});
  return s;
}

json topo_enc(const TopoMatrix& t) {
  json rows = json::array();
  for (const TopoMatrix::Row& r : t.rows)
    rows.push_back({{"name", r.name},
                    {"links", r.links},
                    {"cpu", r.cpu_affinity},
                    {"numa", r.numa_affinity},
                    {"w", prov(r.where)}});
  return {{"columns", t.columns}, {"rows", std::move(rows)}};
}

TopoMatrix topo_dec(const In& in) {
  TopoMatrix t;
  t.columns = in.at("columns").strings();
  for (const In& r : in.at("rows").items())
    t.rows.push_back(TopoMatrix::Row{r.at("name").str(), r.at("links").strings(), r.at("cpu").str(),
                                     r.at("numa").str(), prov_in(r.at("w"))});
  return t;
}

json kernel_enc(const KernelLogFacts& k) {
  json x = json::array();
  for (const XidEvent& e : k.xids)
    x.push_back({{"code", e.code},
                 {"pci", e.pci},
                 {"ts", e.timestamp},
                 {"process", e.process},
                 {"detail", e.detail},
                 {"without_xid", e.without_xid},
                 {"w", prov(e.where)},
                 {"t", e.time},
                 {"eb", e.earlier_boot}});
  return {{"source", k.source},       {"boot", k.boot_time}, {"read_at", k.read_at},
          {"time_note", k.time_note}, {"lines", k.lines},    {"first", k.first_timestamp},
          {"last", k.last_timestamp}, {"xids", std::move(x)}};
}

KernelLogFacts kernel_dec(const In& in) {
  KernelLogFacts k;
  k.source = in.at("source").str();
  k.lines = in.at("lines").int32();
  k.first_timestamp = in.at("first").str();
  k.last_timestamp = in.at("last").str();
  for (const In& e : in.at("xids").items())
    k.xids.push_back(XidEvent{e.at("code").int32(), e.at("pci").str(), e.at("ts").str(),
                              e.at("process").str(), e.at("detail").str(),
                              e.at("without_xid").boolean(), prov_in(e.at("w")),
                              e.at("t").integer(), e.at("eb").boolean()});
  k.boot_time = in.at("boot").integer();
  k.read_at = in.at("read_at").integer();
  k.time_note = in.at("time_note").str();
  return k;
}

json ibbw_enc(const IbWriteBwFacts& f) {
  json runs = json::array();
  for (const IbWriteBwRun& r : f.runs)
    runs.push_back({{"device", r.device},
                    {"link_type", r.link_type},
                    {"qps", r.qps},
                    {"gpu_memory", r.gpu_memory},
                    {"gpu_name", r.gpu_name},
                    {"bidirectional", r.bidirectional},
                    {"bytes", r.bytes},
                    {"peak", r.peak_gbps},
                    {"average", r.average_gbps},
                    {"unit", r.unit_text},
                    {"w", prov(r.where)}});
  return runs;
}

IbWriteBwFacts ibbw_dec(const In& in) {
  IbWriteBwFacts f;
  for (const In& r : in.items())
    f.runs.push_back(
        IbWriteBwRun{r.at("device").str(), r.at("link_type").str(), r.at("qps").int32(),
                     r.at("gpu_memory").boolean(), r.at("gpu_name").str(),
                     r.at("bidirectional").boolean(), r.at("bytes").u64(), r.at("peak").number(),
                     r.at("average").number(), r.at("unit").str(), prov_in(r.at("w"))});
  return f;
}

}  // namespace

json node_facts_to_wire(const NodeFacts& n) {
  json j;
  j["label"] = n.label;
  j["root"] = n.root_display;
  j["live"] = n.live;
  j["host"] = fact(n.host, [](const HostInfo& h) {
    return json{{"hostname", h.hostname}, {"kernel", h.kernel}, {"os", h.os}};
  });
  j["dmi"] = fact(n.dmi, [](const DmiInfo& d) {
    return json{{"vendor", d.sys_vendor},
                {"product", d.product_name},
                {"asset_tag", d.chassis_asset_tag},
                {"azure", d.azure}};
  });
  j["imds"] = fact(n.imds, [](const ImdsInfo& i) {
    return json::array({i.vm_size, i.vmss_name, i.placement_group_id, i.platform_fault_domain,
                        i.location, i.name, i.vm_id, i.zone, i.image_publisher, i.image_offer,
                        i.image_sku, i.image_version, i.image_id});
  });
  j["ib"] = fact(n.ib, ib_enc);
  j["pci"] = fact(n.pci, pci_enc);
  j["modules"] = fact(n.modules, modules_enc);
  j["ofed"] = fact(n.ofed_version, str_enc);
  j["gpus"] = fact(n.gpus, gpus_enc);
  j["nccl"] = fact(n.nccl, nccl_enc);
  j["nccl_version"] = fact(n.nccl_version, str_enc);
  j["scratch"] = fact(n.scratch, scratch_enc);
  j["topo"] = fact(n.gpu_topology, topo_enc);
  j["kernel_log"] = fact(n.kernel_log, kernel_enc);
  j["ib_write_bw"] = fact(n.ib_write_bw, ibbw_enc);
  j["image"] = fact(n.image_components, [](const ImageComponents& c) {
    return json{{"versions", c.versions}, {"format", c.format}};
  });
  j["imex"] = json{{"daemon", fact(n.imex_daemon, [](bool b) { return json(b); })},
                   {"channels", fact(n.imex_channels,
                                     [](const std::vector<std::string>& v) { return json(v); })}};
  j["health"] = host_health_to_wire(n);
  return j;
}

namespace {

NodeFacts decode_node(const CborTree& t, std::uint32_t at) {
  const In in(t, at, "");
  NodeFacts n;
  n.label = in.at("label").str();
  n.root_display = in.at("root").str();
  n.live = in.at("live").boolean();
  n.host = fact_in<HostInfo>(in.at("host"), [](const In& h) {
    return HostInfo{h.at("hostname").str(), h.at("kernel").str(), h.at("os").str()};
  });
  n.dmi = fact_in<DmiInfo>(in.at("dmi"), [](const In& d) {
    return DmiInfo{d.at("vendor").str(), d.at("product").str(), d.at("asset_tag").str(),
                   d.at("azure").boolean()};
  });
  n.imds = fact_in<ImdsInfo>(in.at("imds"), [](const In& i) {
    const std::vector<In> v = i.items();
    if (v.size() != 13) i.fail("expected 13 instance-metadata fields");
    return ImdsInfo{v[0].str(),  v[1].str(),  v[2].str(), v[3].str(), v[4].str(),
                    v[5].str(),  v[6].str(),  v[7].str(), v[8].str(), v[9].str(),
                    v[10].str(), v[11].str(), v[12].str()};
  });
  n.ib = fact_in<IbFacts>(in.at("ib"), ib_dec);
  n.pci = fact_in<PciFacts>(in.at("pci"), pci_dec);
  n.modules = fact_in<ModuleFacts>(in.at("modules"), modules_dec);
  n.ofed_version = fact_in<std::string>(in.at("ofed"), str_dec);
  n.gpus = fact_in<GpuFacts>(in.at("gpus"), gpus_dec);
  n.nccl = fact_in<NcclSettings>(in.at("nccl"), nccl_dec);
  n.nccl_version = fact_in<std::string>(in.at("nccl_version"), str_dec);
  n.scratch = fact_in<ScratchFacts>(in.at("scratch"), scratch_dec);
  n.gpu_topology = fact_in<TopoMatrix>(in.at("topo"), topo_dec);
  n.kernel_log = fact_in<KernelLogFacts>(in.at("kernel_log"), kernel_dec);
  n.ib_write_bw = fact_in<IbWriteBwFacts>(in.at("ib_write_bw"), ibbw_dec);
  n.image_components = fact_in<ImageComponents>(in.at("image"), [](const In& c) {
    return ImageComponents{c.at("versions").string_map(), c.at("format").str()};
  });
  if (in.has("imex")) {  // absent from a rank of an older trainready: not collected
    const In imex = in.at("imex");
    n.imex_daemon = fact_in<bool>(imex.at("daemon"), [](const In& b) { return b.boolean(); });
    n.imex_channels = fact_in<std::vector<std::string>>(imex.at("channels"), [](const In& a) {
      std::vector<std::string> v;
      a.each([&](const In& x) { v.push_back(x.str()); });
      return v;
    });
  }
  // Absent from a rank of an older trainready: not collected.
  if (in.has("health")) host_health_from_wire(in.at("health"), n);
  return n;
}

}  // namespace

NodeFacts node_facts_from_wire(const CborTree& t, std::uint32_t at) {
  try {
    return decode_node(t, at);
  } catch (const WireError&) {
    // Again with paths, for a message that names the field at fault.
    struct Track {
      Track() { t_track_paths = true; }
      ~Track() { t_track_paths = false; }
    } track;
    return decode_node(t, at);
  }
}

NodeFacts node_facts_from_wire(const json& doc) {
  const std::vector<std::uint8_t> bytes = json::to_cbor(doc);
  CborTree t;
  t.parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return node_facts_from_wire(t, 0);
}

}  // namespace trainready
