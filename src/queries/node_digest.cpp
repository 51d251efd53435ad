#include "queries/node_digest.h"

#include <functional>
#include <map>
#include <set>

#include "queries/node_queries.h"

namespace trainready {
namespace {

DigestValue known(std::string value, const Provenance& where) {
  DigestValue v;
  v.known = true;
  v.value = std::move(value);
  v.where = where;
  return v;
}

DigestValue unknown(std::string why) {
  DigestValue v;
  v.why = std::move(why);
  return v;
}

// "8 x 400 Gb/s" from a multiset of values.
std::string tally(const std::map<std::string, int>& m) {
  std::string s;
  for (const auto& [v, n] : m) s += (s.empty() ? "" : ", ") + std::to_string(n) + " x " + v;
  return s;
}

DigestValue ib_value(const NodeFacts& n,
                     const std::function<void(const PortRef&, std::map<std::string, int>&)>& add) {
  if (!n.ib.ok()) return unknown("InfiniBand devices " + n.ib.describe());
  std::map<std::string, int> m;
  const std::vector<PortRef> ports = infiniband_ports(*n.ib);
  if (ports.empty()) return unknown("no InfiniBand port");
  for (const PortRef& r : ports) add(r, m);
  return known(tally(m), ports.front().device->where);
}

DigestValue pci_value(const NodeFacts& n, PciKind kind, const char* what) {
  if (!n.pci.ok()) return unknown("PCI devices " + n.pci.describe());
  std::map<std::string, int> m;
  Provenance where;
  for (const PciDevice& d : n.pci->devices) {
    if (d.kind != kind || d.virtual_function || d.link_width <= 0) continue;
    ++m["x" + std::to_string(d.link_width) + (d.link_speed.empty() ? "" : " " + d.link_speed)];
    if (where.source.empty()) where = d.where;
  }
  if (m.empty()) return unknown(std::string("no ") + what + " with a PCIe link width");
  return known(tally(m), where);
}

DigestValue pkeys(const NodeFacts& n) {
  if (!n.ib.ok()) return unknown("InfiniBand devices " + n.ib.describe());
  std::set<std::string> keys;
  Provenance where;
  for (const PortRef& r : infiniband_ports(*n.ib)) {
    if (!r.port->pkey0.ok()) continue;
    keys.insert(r.port->pkey0.value);
    if (where.source.empty()) where = r.port->pkey0.where;
  }
  if (keys.empty()) return unknown("no readable pkeys/0 on an InfiniBand port");
  std::string v;
  for (const auto& k : keys) v += (v.empty() ? "" : ",") + k;
  return known(v, where);
}

template <class T>
DigestValue plain(const Fact<T>& f) {
  return f.ok() ? known(f.value, f.where) : unknown(f.describe());
}

void put_str(std::string& out, const std::string& s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

}  // namespace

NodeDigest digest_node(const NodeFacts& n, const RunOptions* options) {
  NodeDigest d;
  d[DigestKey::kHcaFirmware] = ib_value(n, [](const PortRef& r, std::map<std::string, int>& m) {
    if (r.port->number == r.device->ports.front().number) ++m[r.device->fw_ver];
  });
  d[DigestKey::kIbPortRates] = ib_value(n, [](const PortRef& r, std::map<std::string, int>& m) {
    ++m[r.port->rate_gbps.ok() ? fmt_gbps(r.port->rate_gbps.value) : "unknown rate"];
  });
  d[DigestKey::kIbActivePorts] = ib_value(n, [](const PortRef& r, std::map<std::string, int>& m) {
    const bool active = r.port->state.ok() && r.port->state.value.find("ACTIVE") == 0;
    ++m[active ? "ACTIVE" : "not ACTIVE"];
  });
  if (!n.gpus.ok() || !n.gpus->driver_loaded) {
    d[DigestKey::kGpus] =
        unknown(n.gpus.ok() ? n.gpus->no_driver_reason : "GPUs " + n.gpus.describe());
    d[DigestKey::kDriverVersion] =
        unknown(n.gpus.ok() ? n.gpus->no_driver_reason : n.gpus.describe());
  } else {
    std::map<std::string, int> m;
    for (const Gpu& g : n.gpus->gpus) ++m[g.name];
    d[DigestKey::kGpus] = known(m.empty() ? std::string("no GPU") : tally(m), n.gpus.where);
    d[DigestKey::kDriverVersion] = known(n.gpus->driver_version, n.gpus.where);
  }
  d[DigestKey::kGpuPcieLinks] = pci_value(n, PciKind::kNvidiaGpu, "NVIDIA GPU");
  d[DigestKey::kNicPcieLinks] = pci_value(n, PciKind::kMellanox, "Mellanox NIC");
  d[DigestKey::kKernel] = !n.host.ok() || n.host->kernel.empty()
                              ? unknown("kernel " + n.host.describe())
                              : known(n.host->kernel, n.host.where);
  d[DigestKey::kPkeys] = pkeys(n);
  if (!n.imds.ok()) {
    d[DigestKey::kVmssName] = unknown("instance metadata " + n.imds.describe());
    d[DigestKey::kPlacementGroup] = d[DigestKey::kVmssName];
  } else {
    d[DigestKey::kVmssName] = known(n.imds.value.vmss_name, n.imds.where);
    d[DigestKey::kPlacementGroup] = known(n.imds.value.placement_group_id, n.imds.where);
  }
  d[DigestKey::kOfedVersion] = plain(n.ofed_version);
  d[DigestKey::kNcclVersion] = plain(n.nccl_version);
  for (std::size_t i = 0; i < std::size(kImageComponentKeys); ++i) {
    DigestValue& v = d.values[static_cast<std::size_t>(DigestKey::kImageVersion) + i];
    const std::string k = kImageComponentKeys[i];
    if (!n.image_components.ok()) {
      v = unknown(n.image_components.describe());
      continue;
    }
    auto it = n.image_components->versions.find(k);
    v = it == n.image_components->versions.end()
            ? unknown("no " + k + " entry in " + n.image_components.where.str())
            : known(it->second, n.image_components.where);
  }
  const Fact<std::string> size = vm_size_of(n, options);
  d[DigestKey::kVmSize] = size.ok() ? known(size.value, size.where) : unknown(size.reason);
  return d;
}

std::uint32_t ClusterNodesBuilder::intern(NodeDigest d) {
  std::string key;
  for (const DigestValue& v : d.values) {
    key += v.known ? 'k' : 'u';
    put_str(key, v.value);
    put_str(key, v.where.source);
    key += std::to_string(v.where.line);
    put_str(key, v.why);
  }
  auto [it, fresh] = index_.emplace(std::move(key), static_cast<std::uint32_t>(c_.digests.size()));
  if (fresh) c_.digests.push_back(std::move(d));
  return it->second;
}

void ClusterNodesBuilder::add(std::string label, std::uint32_t digest) {
  c_.labels.push_back(std::move(label));
  c_.digest_of.push_back(digest);
}

ClusterNodes cluster_nodes_of(const std::vector<NodeFacts>& nodes, const RunOptions* options) {
  ClusterNodesBuilder b;
  for (const NodeFacts& n : nodes) b.add(n.label, digest_node(n, options));
  return b.take();
}

}  // namespace trainready
