// nccl-host-mismatch: hosts of one run set up NCCL differently (NCCL_* settings, network
// plugin, InfiniBand found or not, GPU model): NCCL cannot connect a socket peer to an IB peer,
// and a setting passed to one node only is a classic multi-node trap.
#include <map>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// Settings whose values legitimately differ per host (device or interface names, paths).
bool per_host_setting(const std::string& name) {
  return name == "NCCL_SOCKET_IFNAME" || name == "NCCL_DEBUG_FILE" || name == "NCCL_TOPO_FILE" ||
         name == "NCCL_TOPO_DUMP_FILE" || name == "NCCL_GRAPH_DUMP_FILE" ||
         name == "NCCL_COMM_ID" || name == "NCCL_HOSTID";
}

class NcclHostMismatch : public Rule {
 public:
  std::string_view id() const override { return "nccl-host-mismatch"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Hosts of one run set up NCCL differently"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // One host: nothing to compare (not a gap in the facts, so no skip).
    if (f.host_profiles.size() < 2) return {};
    // attribute -> value -> hosts
    std::map<std::string, std::map<std::string, std::set<std::string>>> seen;
    std::set<std::string> env_names;
    for (const auto& [h, p] : f.host_profiles)
      for (const auto& [e, v] : p.env) env_names.insert(e);
    std::size_t with_setup = 0;
    for (const auto& [h, p] : f.host_profiles) {
      // Whether the host runs an external net plugin: NCCL's loader said "internal", or a plugin
      // said it loaded (its name from NCCL, or the library nccl-rdma-sharp-plugins prints).
      const bool internal_only =
          p.plugin.size() == 1 && p.plugin.count("internal") && p.plugin_libraries.empty();
      const bool external =
          p.plugin.size() > p.plugin.count("internal") || !p.plugin_libraries.empty();
      // A host that printed its plugin only is compared on that alone: its settings are unknown.
      if (internal_only || external)
        seen["external network plugin"][internal_only ? "none (NCCL's internal network)" : "loaded"]
            .insert(h);
      const bool setup = !p.networks.empty() || p.ib_devices.has_value() || !p.env.empty();
      if (setup || internal_only || external) ++with_setup;
      if (!setup) continue;
      // NCCL prints "NCCL_X set by environment to" where it first reads X, most of them at
      // network setup or later: a host whose lines stop before its network was chosen has not
      // said whether X is set (its log was cut, or it stopped early), so it is not "(not set)".
      // Nor is one whose lines start after its init began: its bootstrap interface ("Bootstrap
      // : Using eth0", bootstrapNetInit) and the net plugin loader's line come before the network
      // is set up and the first settings are read (ncclIbInit reads NCCL_IB_DISABLE, src/
      // transport/net_ib.cc @ v2.8.3-1), so an excerpt without them may have cut the echoes off.
      const bool reached_network = !p.networks.empty() || p.ib_devices.has_value();
      const bool from_start = p.init_start_seen || !p.plugin.empty();
      for (const std::string& e : env_names) {
        if (per_host_setting(e)) continue;
        auto it = p.env.find(e);
        if (it == p.env.end() && (!reached_network || !from_start)) continue;
        seen[e][it == p.env.end() ? "(not set)" : e + "=" + it->second].insert(h);
      }
      if (!p.networks.empty()) seen["network"][join_limited(p.networks)].insert(h);
      if (p.ib_devices)
        seen["InfiniBand"][*p.ib_devices ? "IB devices found" : "no IB device"].insert(h);
      if (!p.gpus.empty()) seen["GPU"][join_limited(p.gpus)].insert(h);
      if (!p.plugin.empty()) seen["network plugin"][join_limited(p.plugin, 3)].insert(h);
      if (!p.loader_releases.empty())
        seen["NCCL release (by its plugin loader's wording)"][join_limited(p.loader_releases)]
            .insert(h);
    }
    if (with_setup < 2) return {};
    // Plugin names that differ already say it.
    if (auto it = seen.find("network plugin"); it != seen.end() && it->second.size() > 1)
      seen.erase("external network plugin");
    RuleOutcome o;
    std::vector<std::string> parts;
    Finding x = finding("");
    for (const auto& [attr, values] : seen) {
      if (values.size() < 2) continue;
      std::string line;
      Provenance where;
      for (const auto& [v, hosts] : values) {
        if (!line.empty()) line += "; ";
        line += "on " + join_limited(hosts, 4) + ": " + v;
        if (where.source.empty()) where = f.host_profiles.at(*hosts.begin()).first.where;
      }
      x.evidence.push_back({attr + " differs: " + line, where});
      parts.push_back(attr);
    }
    if (parts.empty()) return o;
    std::string what;
    for (const auto& p : parts) what += (what.empty() ? "" : ", ") + p;
    x.message = "Hosts differ in " + what + ": one run, " + std::to_string(with_setup) +
                " hosts set up differently";
    x.rank = 94;
    x.cause =
        "NCCL expects every rank to see the same configuration: a host with InfiniBand off (or "
        "no IB device) cannot connect to peers that chose IB, a setting exported on one node "
        "only (mpirun without -x, a per-node env file) changes protocol or transport on that "
        "node, and mixed plugins or GPUs change what each side expects.";
    auto differs = [&](const std::string& attr) {
      auto it = seen.find(attr);
      return it != seen.end() && it->second.size() > 1;
    };
    if (differs("network plugin") || differs("external network plugin"))
      x.cause +=
          " With different net plugins, the handle one rank's plugin hands out to be connected "
          "to (its listen(), exchanged through the bootstrap) is read by the peer's other plugin "
          "(its connect(); src/include/nccl_net.h @ v2.25.1-1): the connection never forms and "
          "init hangs or fails - as with "
          "HPC-X's plugin on some nodes only (NVIDIA/nccl#1634).";
    if (seen.count("NCCL release (by its plugin loader's wording)") &&
        seen["NCCL release (by its plugin loader's wording)"].size() > 1)
      x.cause +=
          " The hosts' plugin loaders print the wording of different NCCL releases, so they "
          "load different libnccl builds (a container or a Python wheel with its own NCCL on "
          "some hosts, LD_LIBRARY_PATH differing); different releases may use different "
          "protocols between ranks and hang or fail to connect. Check the NCCL each host "
          "loads: `python -c \"import torch; print(torch.cuda.nccl.version())\"` or "
          "LD_DEBUG=libs.";
    x.fix =
        "Pass the same NCCL_* environment to every rank (`mpirun -x VAR`, `srun --export`, the "
        "launcher's env file), install the same network plugin and drivers on every host, and "
        "rerun; `trainready doctor` on each host shows its IB state.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_host_mismatch() { return std::make_unique<NcclHostMismatch>(); }

}  // namespace trainready
