#include "queries/busbw_expectation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

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

const SkuEntry* match_sku_from_devices(const NcclTestsFacts& t, const Catalog& catalog) {
  if (t.devices.empty()) return nullptr;
  std::map<std::string, int> per_host;
  for (const auto& d : t.devices) ++per_host[d.host];
  int per_node = 0;
  for (const auto& [h, n] : per_host) per_node = std::max(per_node, n);
  // Excerpts elide device lines; a single process reports nThread x nGpus devices.
  if (per_host.size() == 1) per_node = std::max(per_node, t.ranks());
  const std::string& name = t.devices.front().name;
  for (const auto& d : t.devices) {
    if (d.name != name) return nullptr;  // mixed GPUs: no single size
  }
  for (const SkuEntry& s : catalog.skus()) {
    if (s.gpu_count == per_node && gpu_matches(s, name)) return &s;
  }
  return nullptr;
}

BusbwExpectation expected_busbw(const NcclTestsFacts& t, const Catalog& catalog,
                                const RunOptions& o) {
  BusbwExpectation e;
  e.efficiency = o.efficiency;
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
                          : "no catalog size has " +
                                std::to_string(t.ranks() / std::max(1, t.nodes())) + " x '" +
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
  if (!e.sku->nccl_allreduce_floor_gbytes_per_s) {
    e.why_unknown = "the catalog has no single-VM all-reduce figure for " + e.sku->name;
    return e;
  }
  e.intra_gbytes = *e.sku->nccl_allreduce_floor_gbytes_per_s;
  e.expected_gbytes = e.intra_gbytes;
  e.formula = "one VM: catalog figure " + fmt(e.intra_gbytes) + " GB/s for " + e.sku->name;
  const int domain = e.sku->nvlink_domain_vms;
  if (e.nodes > 1 && e.nodes <= domain) {
    // GB200 NVL72: the VMs of one rack share one NVLink fabric; InfiniBand only joins racks.
    const double ib = vm_network_gbytes_per_s(*e.sku, o.efficiency, o.efficiency);
    e.formula = std::to_string(e.nodes) + " VMs in one NVLink domain (up to " +
                std::to_string(domain) + " VMs, " + std::to_string(e.sku->nvlink_domain_gpus) +
                " GPUs per rack): NVLink between them, one-VM figure " + fmt(e.intra_gbytes) +
                " GB/s; if they span racks, InfiniBand bounds it: min(" + fmt(e.intra_gbytes) +
                ", " + std::to_string(e.sku->ib_ports) + " HCAs x " +
                fmt(e.sku->ib_rate_gbits_per_s) + " Gb/s / 8 x " + fmt(o.efficiency * 100) +
                "% = " + fmt(ib) + ") GB/s";
  } else if (e.nodes > 1) {
    const double net = vm_network_gbytes_per_s(*e.sku, o.efficiency, o.efficiency);
    std::string what;
    if (e.sku->ib_ports > 0) {
      what = std::to_string(e.sku->ib_ports) + " HCAs x " + fmt(e.sku->ib_rate_gbits_per_s) +
             " Gb/s / 8 x " + fmt(o.efficiency * 100) + "% = " + fmt(net) + " GB/s";
    } else {
      what = "no InfiniBand: front-end NIC " + fmt(e.sku->frontend_nic_gbits_per_s) +
             " Gb/s / 8 x " + fmt(o.efficiency * 100) + "% = " + fmt(net) + " GB/s";
    }
    e.inter_gbytes = net;
    e.expected_gbytes = std::min(e.intra_gbytes, net);
    e.formula = std::to_string(e.nodes) + " VMs: min(one-VM figure " + fmt(e.intra_gbytes) +
                " GB/s, " + what + ") = " + fmt(e.expected_gbytes) + " GB/s";
    if (domain > 1)
      e.formula += " (more VMs than one NVLink domain of " + std::to_string(domain) +
                   ": InfiniBand between racks)";
  }
  e.known = true;
  return e;
}

}  // namespace trainready
