#include "queries/busbw_expectation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/text.h"

namespace trainready {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f" : "%.1f", v);
  return b;
}

std::string upper_alnum(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      r += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    else
      r += ' ';
  }
  return " " + r + " ";
}

// "40GB" in the device name, if any.
std::optional<double> memory_in_name(const std::string& up) {
  for (std::string_view w : split_ws(up)) {
    if (w.size() > 2 && w.substr(w.size() - 2) == "GB") {
      if (auto v = parse_double(w.substr(0, w.size() - 2))) return *v;
    }
  }
  return std::nullopt;
}

bool gpu_matches(const SkuEntry& s, const std::string& device_name) {
  const std::string dev = upper_alnum(device_name);
  const std::string model = upper_alnum(s.gpu_model);
  auto words = split_ws(model);
  if (words.empty() || dev.find(" " + std::string(words[0]) + " ") == std::string::npos)
    return false;
  for (const char* form : {"PCIE", "NVL"}) {
    const std::string f = std::string(" ") + form + " ";
    if ((model.find(f) != std::string::npos) != (dev.find(f) != std::string::npos)) return false;
  }
  if (auto mem = memory_in_name(dev); mem && s.gpu_memory_gb > 0) {
    if (std::fabs(*mem - s.gpu_memory_gb) > 0.15 * s.gpu_memory_gb) return false;
  }
  return true;
}

}  // namespace

namespace {

// GPUs per host the device lines show: distinct bus ids (a GPU listed by several processes, each
// a job of its own, counts once), or the lines where the version prints no bus id.
int gpus_per_host(const NcclTestsFacts& t) {
  std::map<std::string, int> lines;
  std::map<std::string, std::set<std::string>> ids;
  for (const auto& d : t.devices) {
    ++lines[d.host];
    if (!d.bus_id.empty() && d.bus_id != "0x00") ids[d.host].insert(d.bus_id);
  }
  int per_node = 0;
  for (const auto& [h, n] : lines) {
    const auto id = ids.find(h);
    per_node = std::max(per_node, id == ids.end() ? n : static_cast<int>(id->second.size()));
  }
  // Excerpts elide device lines; a single process reports nThread x nGpus devices.
  if (lines.size() == 1 && t.runs_printed() <= 1) per_node = std::max(per_node, t.ranks());
  return per_node;
}

}  // namespace

const SkuEntry* match_sku_from_devices(const NcclTestsFacts& t, const Catalog& catalog) {
  if (t.devices.empty()) return nullptr;
  const int per_node = gpus_per_host(t);
  const std::string& name = t.devices.front().name;
  for (const auto& d : t.devices) {
    if (d.name != name) return nullptr;  // mixed GPUs: no single size
  }
  for (const SkuEntry& s : catalog.skus()) {
    if (s.gpu_count == per_node && gpu_matches(s, name)) return &s;
  }
  return nullptr;
}

namespace {

std::string network_words(const SkuEntry& sku, const RunOptions& o, double net) {
  if (sku.has_infiniband())
    return std::to_string(sku.ib_ports) + " HCAs x " + fmt(sku.ib_rate_gbits_per_s) +
           " Gb/s / 8 x " + fmt(o.efficiency * 100) + "% = " + fmt(net) + " GB/s";
  return "no InfiniBand: front-end NIC " + fmt(sku.frontend_nic_gbits_per_s) + " Gb/s / 8 x " +
         fmt(o.ethernet_efficiency * 100) + "% (NCCL over TCP sockets) = " + fmt(net) + " GB/s";
}

}  // namespace

BusbwExpectation expected_busbw(const NcclTestsFacts& t, const Catalog& catalog,
                                const RunOptions& o) {
  BusbwExpectation e;
  e.collective = t.collective.empty() ? "all_reduce" : normalize_collective(t.collective);
  if (o.sku) {
    e.sku = catalog.find(*o.sku);
    if (!e.sku) {
      e.why_unknown = "VM size '" + *o.sku + "' is not in the catalog (see `trainready catalog`)";
      return e;
    }
    e.sku_origin = "--sku";
  } else {
    e.sku = match_sku_from_devices(t, catalog);
    if (!e.sku) {
      e.why_unknown = t.devices.empty()
                          ? "the output has no 'Using devices' lines to tell the GPUs; pass --sku"
                          : "no catalog size has " + std::to_string(gpus_per_host(t)) + " x '" +
                                t.devices.front().name + "' per VM; pass --sku";
      return e;
    }
    e.sku_origin = "the catalog size with the GPUs of 'Using devices' (" + t.devices.front().name +
                   "); --sku overrides";
  }
  if (o.nodes) {
    e.nodes = *o.nodes;
    e.nodes_origin = "--nodes";
  } else if (t.nodes() > 0) {
    e.nodes = t.nodes();
    e.nodes_origin = "hosts in 'Using devices'";
  } else {
    e.why_unknown = "the output does not say how many VMs took part; pass --nodes";
    return e;
  }
  const SkuEntry& sku = *e.sku;
  const int domain = sku.nvlink_domain_vms;
  if (!sku.nccl_allreduce_floor_gbytes_per_s && e.collective == "all_reduce" && e.nodes > 1) {
    // Published two-level levels (Microsoft's ND GB300 v6 baselines): used as published, for
    // the layout they were measured on (VMs of one rack over NVLink, or racks over IB only).
    for (const PublishedThreshold& p : sku.published_thresholds) {
      if (p.metric != "nccl_allreduce_busbw_gbytes_per_s") continue;
      const bool in_domain = domain > 1 && e.nodes <= domain;
      if ((p.applies == "nvlink_domain") != in_domain) continue;
      if (p.applies != "nvlink_domain" && p.applies != "across_domains") continue;
      e.expected_gbytes = p.expected;
      e.intra_gbytes = p.expected;
      e.ring_gbytes = p.expected;
      e.warn_below_gbytes = p.warn_below;
      e.error_below_gbytes = p.ghr_below;
      e.threshold_message = p.message;
      e.efficiency = o.efficiency;
      e.formula = std::to_string(e.nodes) + " VMs, " + p.scope + ": Microsoft's published " +
                  "baseline for " + sku.name + ", expected ~" + fmt(p.expected) +
                  " GB/s, Warn below " + fmt(p.warn_below) + ", GHR (drain, Guest Health " +
                  "Report) below " + fmt(p.ghr_below) + " GB/s at " +
                  (p.message.empty() ? std::string("its message size") : p.message) + " (" +
                  catalog.source_text(p.source) + ")";
      e.known = true;
      return e;
    }
  }
  if (!sku.nccl_allreduce_floor_gbytes_per_s) {
    // No published floor (ND GB200 v6): a planner assumption is never judged as a pass line.
    // Across NVLink domains the network alone still bounds a ring (below).
    const std::string why = sku.no_floor_reason.empty()
                                ? "the catalog has no single-VM all-reduce figure for " + sku.name
                                : "no published floor for " + sku.name + " (" +
                                      catalog.source_text(sku.no_floor_reason) + ")";
    if (!(domain > 1 && e.nodes > domain)) {
      e.why_unknown = why;
      return e;
    }
  }
  e.intra_gbytes = sku.nccl_allreduce_floor_gbytes_per_s.value_or(0);
  e.ring_gbytes = sku.nvlink_ring_allreduce_gbytes_per_s.value_or(e.intra_gbytes);
  const bool all_reduce = e.collective == "all_reduce";
  const bool ring_like = e.collective == "all_gather" || e.collective == "reduce_scatter";
  const bool alltoall = e.collective == "alltoall";
  const bool sendrecv = e.collective == "sendrecv";
  const std::string covered =
      "the catalog's figures are all-reduce busbw (Azure's health checks run all_reduce_perf)";
  if (e.nodes <= 1 || e.nodes <= domain) {
    if (!all_reduce) {
      e.why_unknown = covered + "; " + e.collective + " inside " +
                      (e.nodes <= 1 ? std::string("one VM") : "one NVLink domain") +
                      " has no figure to judge against";
      return e;
    }
    e.expected_gbytes = e.intra_gbytes;
    e.formula = "one VM: catalog figure " + fmt(e.intra_gbytes) + " GB/s for " + sku.name +
                " (Azure's node health check pass line";
    if (sku.nvlink_ring_allreduce_gbytes_per_s)
      e.formula += ", with NVLink SHARP; ring-only about " + fmt(e.ring_gbytes) + " GB/s";
    e.formula += ")";
    if (e.nodes > 1) {
      // GB200 NVL72: the VMs of one rack share one NVLink fabric; InfiniBand only joins racks.
      const double ib = vm_network_gbytes_per_s(sku, o.efficiency, o.ethernet_efficiency);
      e.formula = std::to_string(e.nodes) + " VMs in one NVLink domain (up to " +
                  std::to_string(domain) + " VMs, " + std::to_string(sku.nvlink_domain_gpus) +
                  " GPUs per rack): NVLink between them, one-VM figure " + fmt(e.intra_gbytes) +
                  " GB/s; if they span racks, the network bounds it: min(" + fmt(e.intra_gbytes) +
                  ", " + network_words(sku, o, ib) + ") GB/s";
    }
    e.efficiency = o.efficiency;
    e.known = true;
    return e;
  }
  if (!all_reduce && !ring_like && !alltoall && !sendrecv) {
    e.why_unknown = covered + "; " + e.collective + " across VMs is not modelled";
    return e;
  }
  const double net = vm_network_gbytes_per_s(sku, o.efficiency, o.ethernet_efficiency);
  e.efficiency = sku.has_infiniband() ? o.efficiency : o.ethernet_efficiency;
  e.inter_gbytes = net;
  const std::string vms = std::to_string(e.nodes) + " VMs";
  const std::string racks = domain > 1
                                ? " (more VMs than one NVLink domain of " + std::to_string(domain) +
                                      (sku.has_infiniband() ? ": InfiniBand between racks)"
                                                            : ": the network between racks)")
                                : "";
  if (all_reduce || ring_like) {
    // A ring crosses every VM: each rank's bandwidth is bounded by the ring's NVLink hop and
    // by the VM's share of the network (one ring per rail).
    if (e.ring_gbytes <= 0) {
      // No published NVLink figure (ND GB200 v6): the rack's NVLink is far above its HCAs, so the
      // network alone bounds the ring between racks. A derived bound, not a health-check line.
      e.expected_gbytes = net;
      e.formula = vms + ", " + e.collective + " as a ring between NVLink domains: the network " +
                  "bound alone, " + network_words(sku, o, net) +
                  " (derived; no published floor for " + sku.name + ")" + racks;
      e.known = true;
      return e;
    }
    e.expected_gbytes = std::min(e.ring_gbytes, net);
    std::string ring = "ring NVLink figure " + fmt(e.ring_gbytes) + " GB/s";
    if (sku.nvlink_ring_allreduce_gbytes_per_s)
      ring += " (NVLink SHARP does not span VMs: " + sku.nvlink_ring_source + ")";
    else
      ring += " (the one-VM figure)";
    e.formula = vms + ", " + e.collective + " as a ring: min(" + ring + ", " +
                network_words(sku, o, net) + ") = " + fmt(e.expected_gbytes) + " GB/s" + racks;
  } else {
    const int g = std::max(1, sku.gpu_count);
    const int n = t.ranks() > 0 ? t.ranks() : e.nodes * g;
    const int per_vm = std::max(1, n / e.nodes);
    if (alltoall) {
      // Each rank sends (n - per_vm)/n of its buffer off the VM, all ranks of a VM at once over
      // the VM's network: algbw = n x B_vm / (per_vm x (n - per_vm)); busbw = algbw x (n-1)/n.
      e.expected_gbytes = net * (n - 1) / (static_cast<double>(per_vm) * std::max(1, n - per_vm));
      e.formula = vms + ", alltoall over " + std::to_string(n) + " ranks (" +
                  std::to_string(per_vm) + " per VM): the VM's network shared by what leaves it, " +
                  network_words(sku, o, net) + " x (n-1) / (" + std::to_string(per_vm) + " x (n-" +
                  std::to_string(per_vm) + ")) = " + fmt(e.expected_gbytes) +
                  " GB/s, about one NIC per GPU" + racks;
    } else {
      // sendrecv: each rank exchanges with one neighbour; the pairs that cross VMs get one
      // NIC each (the rail of their GPU).
      e.expected_gbytes = net / per_vm;
      e.formula = vms + ", sendrecv: one NIC per GPU, " + network_words(sku, o, net) + " / " +
                  std::to_string(per_vm) + " GPUs = " + fmt(e.expected_gbytes) + " GB/s" + racks;
    }
  }
  e.known = true;
  return e;
}

}  // namespace trainready
