// nccl-socket-interface: with NCCL_SOCKET_IFNAME unset, NCCL bootstrapped (or runs its socket
// transport) over an interface other hosts usually cannot reach: link-local IPv6, a VPN or
// tunnel (tailscale, wireguard, Cloudflare WARP), a docker / veth bridge, Wi-Fi.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// Why an interface "name:address" is a poor choice between hosts; empty when it is fine.
std::string suspicious(const std::string& entry) {
  const std::size_t colon = entry.find(':');
  const std::string name = entry.substr(0, colon);
  const std::string addr = colon == std::string::npos ? "" : entry.substr(colon + 1);
  auto pre = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (addr.rfind("fe80:", 0) == 0) return "a link-local IPv6 address (fe80::), not routed";
  if (addr.rfind("169.254.", 0) == 0) return "a link-local IPv4 address (169.254/16)";
  if (pre("tailscale") || pre("wg") || pre("CloudflareWARP") || pre("warp") || pre("zt") ||
      pre("tun") || pre("utun") || pre("ppp"))
    return "a VPN / tunnel interface";
  if (pre("docker") || pre("veth") || pre("br-") || pre("virbr") || pre("cni") || pre("flannel") ||
      pre("cilium") || pre("lxc"))
    return "a container bridge, reachable only from this host";
  if (pre("wl")) return "a Wi-Fi interface";
  if (pre("lo") && name.size() <= 3) return "the loopback interface";
  return "";
}

class NcclSocketInterface : public Rule {
 public:
  std::string_view id() const override { return "nccl-socket-interface"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL chose a link-local, VPN, bridge or Wi-Fi interface between hosts";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // Set on purpose, or a single-node run (the interface carries nothing between hosts, and a
    // single-node run gets no inter-node advice): quiet.
    if (f.env.count("NCCL_SOCKET_IFNAME") || f.single_node()) return {};
    RuleOutcome o;
    std::set<std::string> bad, good, hosts;
    std::vector<Evidence> ev;
    for (const auto& [h, p] : f.host_profiles) {
      std::vector<std::string> cands = p.socket_ifaces;
      for (const auto& b : p.bootstrap_ifaces) {
        std::string entry = b;
        if (!p.addresses.empty()) entry += ":" + *p.addresses.begin();
        cands.push_back(entry);
      }
      for (const std::string& c : cands) {
        std::string why = suspicious(c);
        const std::string name = c.substr(0, c.find(':'));
        if (why.empty()) {
          good.insert(name);
          continue;
        }
        if (bad.insert(name).second && ev.size() < 6)
          ev.push_back({h + ": " + c + " is " + why, p.first.where});
        hosts.insert(h);
      }
    }
    if (bad.empty()) return o;
    for (const auto& b : bad) good.erase(b);
    Finding x = finding("NCCL uses " + join_limited(bad) +
                        " between hosts with "
                        "NCCL_SOCKET_IFNAME unset (" +
                        join_limited(hosts) + ")");
    x.evidence = ev;
    for (const auto& l : f.socket_interfaces)
      if (x.evidence.size() < 8) x.evidence.push_back(evidence(l));
    const bool failed = !f.issues.empty() || !f.timeouts.empty();
    if (failed) x.severity = Severity::kError;
    x.rank = 86;
    x.cause =
        "Without NCCL_SOCKET_IFNAME NCCL takes interfaces in its own order (ib* first, then "
        "anything but lo and docker*), so a VPN, a bridge or a link-local address can carry the "
        "bootstrap or socket traffic; peers on other hosts then time out or are refused.";
    x.fix = good.empty() ? std::string(
                               "Set NCCL_SOCKET_IFNAME to the interface that carries the "
                               "hosts' routable addresses (see `ip -4 addr`), on every "
                               "host.")
                         : "Set NCCL_SOCKET_IFNAME=" + *good.begin() +
                               " (the routable interface the log lists) on every host, or "
                               "exclude the others (NCCL_SOCKET_IFNAME=^" +
                               *bad.begin() + ",lo,docker).";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_socket_interface() {
  return std::make_unique<NcclSocketInterface>();
}

}  // namespace trainready
