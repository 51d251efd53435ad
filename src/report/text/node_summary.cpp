#include "report/text/node_summary.h"

#include <map>

#include "queries/node_queries.h"

namespace trainready {
namespace {

std::string gib(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.0f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return b;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> summarize_node(const NodeFacts& n,
                                                                const RunOptions& options) {
  std::vector<std::pair<std::string, std::string>> out;
  Fact<std::string> size = vm_size_of(n, &options);
  std::string s = size.ok() ? size.value : size.reason;
  if (n.imds.ok()) {
    s += "; scale set " + (n.imds->vmss_name.empty() ? std::string("none") : n.imds->vmss_name);
    if (!n.imds->placement_group_id.empty()) s += ", placement group " + n.imds->placement_group_id;
  }
  out.emplace_back("size", s);
  if (n.dmi.ok()) {
    out.emplace_back(
        "platform",
        (n.dmi->azure ? std::string("Azure VM") : n.dmi->sys_vendor) +
            (n.dmi->product_name.empty() ? "" : " (" + n.dmi->product_name + ")") +
            (n.host.ok() && !n.host->kernel.empty() ? ", kernel " + n.host->kernel : ""));
  }
  if (n.gpus.ok()) {
    if (!n.gpus->driver_loaded) {
      out.emplace_back("GPUs", n.gpus->no_driver_reason);
    } else {
      std::map<std::string, int> models;
      for (const auto& g : n.gpus->gpus)
        ++models[g.name + (g.memory_total_bytes ? " " + gib(g.memory_total_bytes) : "")];
      std::string t;
      for (const auto& [m, c] : models)
        t += (t.empty() ? "" : ", ") + std::to_string(c) + " x " + m;
      if (t.empty()) t = "none";
      out.emplace_back("GPUs", t + ", driver " + n.gpus->driver_version);
    }
  } else {
    out.emplace_back("GPUs", n.gpus.describe());
  }
  if (n.ib.ok()) {
    std::map<std::string, int> ib_states;
    int eth = 0;
    for (const auto& d : n.ib->devices) {
      for (const auto& p : d.ports) {
        if (p.link_layer.ok() && p.link_layer.value == "Ethernet") {
          ++eth;
          continue;
        }
        if (!p.link_layer.ok() || p.link_layer.value != "InfiniBand") continue;
        std::string k = (p.state.ok() ? p.state.value : "?") + "/" +
                        (p.phys_state.ok() ? p.phys_state.value : "?");
        if (p.rate_gbps.ok()) k += " " + fmt_gbps(p.rate_gbps.value);
        ++ib_states[k];
      }
    }
    std::string t;
    int ib = 0;
    for (const auto& [k, c] : ib_states) {
      t += (t.empty() ? "" : ", ") + std::to_string(c) + " " + k;
      ib += c;
    }
    std::string line = std::to_string(ib) + " InfiniBand port" + (ib == 1 ? "" : "s") +
                       (t.empty() ? "" : ": " + t);
    if (eth > 0) line += "; " + std::to_string(eth) + " Ethernet RDMA port" + (eth == 1 ? "" : "s");
    out.emplace_back("InfiniBand", line);
  } else {
    out.emplace_back("InfiniBand", n.ib.describe());
  }
  std::string rdma = n.ofed_version.ok() ? n.ofed_version.value : n.ofed_version.describe();
  if (n.modules.ok()) {
    const bool gdr = n.modules->loaded("nvidia_peermem") || n.modules->loaded("nv_peer_mem");
    rdma += std::string("; GPUDirect RDMA module ") + (gdr ? "loaded" : "not loaded");
  }
  out.emplace_back("RDMA stack", rdma);
  std::string nccl = n.nccl_version.ok() ? "NCCL " + n.nccl_version.value
                                         : "NCCL version " + n.nccl_version.describe();
  if (n.nccl.ok()) {
    std::string vars;
    for (const auto& [k, v] : n.nccl->env) vars += " " + k + "=" + v;
    for (const auto& [k, v] : n.nccl->conf) {
      if (!n.nccl->env.count(k)) vars += " " + k + "=" + v + " (nccl.conf)";
    }
    nccl += vars.empty() ? "; no NCCL_* settings" : ";" + vars;
  }
  out.emplace_back("NCCL", nccl);
  if (n.scratch.ok()) {
    int local = 0;
    std::uint64_t bytes = 0;
    for (const auto& ns : n.scratch->namespaces) {
      if (!ns.local) continue;
      ++local;
      bytes += ns.size_bytes;
    }
    std::string t = std::to_string(local) + " local NVMe (" + gib(bytes) + ")";
    for (const auto& a : n.scratch->arrays) {
      t += "; " + a.name + " " + a.level + " on " +
           (a.mountpoint.empty() ? std::string("(not mounted)") : a.mountpoint);
    }
    out.emplace_back("scratch", t);
  }
  if (n.image_components.ok()) {
    // Azure HPC image: its version and the components training depends on, as the image
    // recorded them (/opt/azurehpc/component_versions.txt).
    const auto& v = n.image_components->versions;
    std::string t;
    for (const char* k :
         {"ImageVersion", "NVIDIA", "CUDA", "DOCA", "OFED", "MOFED", "NCCL", "HPCX"}) {
      if (auto it = v.find(k); it != v.end())
        t += (t.empty() ? "" : ", ") + std::string(k) + " " + it->second;
    }
    t += (t.empty() ? "" : "; ") + std::to_string(v.size()) + " components in " +
         n.image_components.where.str();
    out.emplace_back("HPC image", t);
  }
  if (n.kernel_log.ok() && !n.kernel_log->xids.empty()) {
    out.emplace_back("kernel log", std::to_string(n.kernel_log->xids.size()) + " Xid line" +
                                       (n.kernel_log->xids.size() == 1 ? "" : "s") + " in " +
                                       n.kernel_log->source);
  }
  // `doctor --capture`: what was read of a paste, and the sections it does not read.
  if (!n.capture_sections.empty()) {
    std::string read;
    std::string unread;
    int shown_read = 0;
    int shown_unread = 0;
    int more_read = 0;
    int more_unread = 0;
    for (const CaptureSection& c : n.capture_sections) {
      // A paste of thousands of sections is summarised, not listed (JSON lists them all).
      if ((c.read ? shown_read : shown_unread) >= 8) {
        ++(c.read ? more_read : more_unread);
        continue;
      }
      ++(c.read ? shown_read : shown_unread);
      const std::string lines = c.last_line > c.where.line ? std::to_string(c.where.line) + "-" +
                                                                 std::to_string(c.last_line)
                                                           : std::to_string(c.where.line);
      const std::string what = c.command.empty() ? "" : " `" + c.command + "`";
      if (c.read) {
        read += (read.empty() ? "" : ", ") + c.kind + " (" + c.where.source + ":" + lines +
                (c.note.empty() ? "" : "; " + c.note) + ")";
      } else {
        unread += (unread.empty() ? "" : ", ") + std::string("lines ") + lines + what + " (" +
                  (c.note.empty() ? "not read" : c.note) + ")";
      }
    }
    if (more_read > 0) read += " and " + std::to_string(more_read) + " more";
    if (more_unread > 0) unread += " and " + std::to_string(more_unread) + " more";
    if (!read.empty()) out.emplace_back("captured", read);
    if (!unread.empty()) out.emplace_back("not read", unread);
  }
  if (n.gpu_topology.ok()) {
    out.emplace_back("topology", std::to_string(n.gpu_topology->gpu_count()) + " GPUs, " +
                                     std::to_string(n.gpu_topology->nic_count()) +
                                     " NICs in nvidia-smi topo -m");
  }
  return out;
}

}  // namespace trainready
