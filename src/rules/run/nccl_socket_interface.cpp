// nccl-socket-interface: with NCCL_SOCKET_IFNAME unset, NCCL bootstrapped (or runs its socket
// transport) over an interface other hosts usually cannot reach: link-local IPv6, a VPN or
// tunnel (tailscale, wireguard, Cloudflare WARP), a docker / veth bridge, Wi-Fi.
#include <cctype>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// NCCL_SOCKET_IFNAME's exclusion list for `bad`, with lo and docker (NCCL's own exclusions).
std::string exclusion(const std::string& bad) {
  std::string out = bad;
  for (const char* x : {"lo", "docker"})
    if (bad != x) out += std::string(",") + x;
  return out;
}

// A global unicast IPv6 address: a full first group of four hex digits in 2000::/3, not the
// documentation prefix 2001:db8::/32 (RFC 3849; Docker's IPv6 examples use it).
bool global_ipv6(const std::string& addr) {
  if (addr.size() < 5 || addr[4] != ':' || (addr[0] != '2' && addr[0] != '3')) return false;
  for (int i = 1; i < 4; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(addr[i]))) return false;
  return addr.compare(0, 9, "2001:db8:") != 0 && addr.compare(0, 9, "2001:0db8") != 0;
}

// Why an interface "name:address" is a poor choice between hosts; empty when it is fine.
// `unreachable` is set when no other host can reach it at all (link-local, bridge, loopback), as
// opposed to a VPN or Wi-Fi, which is routed but the wrong path.
std::string suspicious(const std::string& entry, bool* unreachable = nullptr) {
  bool dummy = false;
  bool& out = unreachable ? *unreachable : dummy;
  out = true;
  const std::size_t colon = entry.find(':');
  const std::string name = entry.substr(0, colon);
  const std::string addr = colon == std::string::npos ? "" : entry.substr(colon + 1);
  auto pre = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (addr.rfind("fe80:", 0) == 0) return "a link-local IPv6 address (fe80::), not routed";
  if (addr.rfind("169.254.", 0) == 0) return "a link-local IPv4 address (169.254/16)";
  if (pre("tailscale") || pre("wg") || pre("CloudflareWARP") || pre("warp") || pre("zt") ||
      pre("tun") || pre("utun") || pre("ppp")) {
    out = false;
    return "a VPN / tunnel interface";
  }
  // A container's own end of a veth pair can hold the container's global IPv6 address, routed
  // like any other (NVIDIA/nccl#529: veth0 with 2a02:..., the one interface the peers could
  // reach); a bridge on the host side keeps its name's reading.
  if (pre("veth") && global_ipv6(addr)) {
    out = false;
    return "";
  }
  if (pre("docker") || pre("veth") || pre("br-") || pre("virbr") || pre("lxc"))
    return "a container bridge, reachable only from this host";
  if (pre("cni") || pre("flannel") || pre("cilium")) {
    out = false;
    return "a container network's bridge or overlay, not the hosts' own network";
  }
  if (pre("lo") && name.size() <= 3) return "the loopback interface";
  out = false;
  if (pre("wl")) return "a Wi-Fi interface";
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
    // Set on purpose: quiet.
    if (f.env.count("NCCL_SOCKET_IFNAME")) return {};
    // A log that shows one host: the interfaces carry nothing between hosts there, so only a
    // bootstrap no other host can reach at all (a link-local address, a container bridge) is
    // named, as a warning for the job that spans hosts the log does not show: its address is
    // the one every peer dials (AWS ECS's ecs-eth0 is 169.254.172.2 on every instance,
    // NVIDIA/nccl#859). Loopback is what NCCL_SOCKET_IFNAME=lo asks for on one host.
    const bool one_host = f.single_node();
    // NCCL itself said every communicator is on one node (nNodes 1, 2.19+): nothing to warn of.
    if (one_host)
      for (const auto& [id, c] : f.comms)
        if (c.nnodes == 1) return {};
    RuleOutcome o;
    std::set<std::string> bad, good, hosts;
    std::vector<Evidence> ev;
    // An interface no other host can reach among NET/Socket's devices (not only the bootstrap's):
    // the socket transport makes every interface it lists a device and may put channels on any.
    bool unreachable_device = false;
    // The NET/Socket devices the connection lines named ("via NET/Socket/1"), and an unreachable
    // one among them: a channel there dials an address no other host can reach.
    std::uint64_t used = 0;
    for (const auto& [k, t] : f.transports)
      if (t.kind == TransportKind::kNetSocket) used |= t.devices;
    std::string used_unreachable;
    // The bootstrap on loopback: the root's address in the unique id is 127.0.0.1, so a rank on
    // another host dials its own loopback and is refused; such a job cannot start.
    bool loopback_bootstrap = false;
    for (const auto& [h, p] : f.host_profiles) {
      std::vector<std::string> cands = p.socket_ifaces;
      const std::size_t n_devices = cands.size();
      for (const auto& b : p.bootstrap_ifaces) {
        std::string entry = b;
        if (!p.addresses.empty()) entry += ":" + *p.addresses.begin();
        cands.push_back(entry);
      }
      for (std::size_t i = 0; i < cands.size(); ++i) {
        const std::string& c = cands[i];
        bool unreachable = false;
        std::string why = suspicious(c, &unreachable);
        // On one host only the bootstrap is judged; a suspicious interface left unjudged is not
        // a routable one to name in the fix either.
        if (one_host && !why.empty() &&
            (i < n_devices || !unreachable || why == "the loopback interface"))
          continue;
        if (i >= n_devices && why == "the loopback interface") loopback_bootstrap = true;
        if (!why.empty() && unreachable && i < n_devices) {
          unreachable_device = true;
          if (i < 64 && (used >> i & 1) && used_unreachable.empty())
            used_unreachable = "NET/Socket/" + std::to_string(i) + " (" + c + ")";
        }
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
    // "Not in the log", not "unset": loopback among several interfaces is only taken when
    // NCCL_SOCKET_IFNAME lets it in (the cause below), so an older NCCL that prints no
    // environment may well have had it set (horovod#584, NCCL 2.3: lo, eth0 and eth1).
    Finding x = finding(
        one_host
            ? "NCCL bootstraps on " + join_limited(bad) +
                  ", which no other host can reach, with no NCCL_SOCKET_IFNAME in the log (the "
                  "log shows one host: " +
                  join_limited(hosts) + ")"
            : "NCCL uses " + join_limited(bad) +
                  " between hosts with no NCCL_SOCKET_IFNAME in the log (" + join_limited(hosts) +
                  ")");
    x.evidence = ev;
    for (const auto& l : f.socket_interfaces)
      if (x.evidence.size() < 8) x.evidence.push_back(evidence(l));
    const bool failed = !f.issues.empty() || !f.timeouts.empty();
    if (!one_host && (failed || !used_unreachable.empty() || loopback_bootstrap))
      x.severity = Severity::kError;
    if (!used_unreachable.empty())
      x.evidence.push_back({"connection lines use " + used_unreachable, {}});
    x.rank = 86;
    x.cause =
        "Without NCCL_SOCKET_IFNAME NCCL takes interfaces in its own order (ib* first, then "
        "anything but lo and docker*), so a VPN, a bridge or a link-local address can carry the "
        "bootstrap or socket traffic; peers on other hosts then time out or are refused.";
    // An unreachable device is an error once a connection line names it or the run failed; the
    // lines a log holds show only some channels, so otherwise it is named as a risk.
    if (unreachable_device)
      x.cause +=
          " Here NET/Socket lists such an interface as one of its devices: the socket transport "
          "makes every interface it lists a network device and may place channels on any of "
          "them, and a peer connects to the address this host listens on for that device "
          "(ncclNetSocketInit, ncclNetSocketListen in src/transport/net_socket.cc @ v2.30.7-1), "
          "an address no other host can reach, so a channel placed there cannot connect.";
    if (!used_unreachable.empty()) x.cause += " The connection lines show channels on it.";
    if (one_host)
      x.cause +=
          " The log shows one host, where this works (the address is this host's own); a job "
          "that spans hosts bootstraps through it too: every rank dials the address the root "
          "and its ring neighbour listen on, which no other host reaches - or, where every host "
          "has the same one (a link-local address a cloud agent sets up), reaches the caller's "
          "own host, where nothing listens, and is refused.";
    const bool comm_id = f.env.count("NCCL_COMM_ID") > 0;
    if (bad.count("lo") && comm_id)
      x.cause +=
          " NCCL_COMM_ID is set: the bootstrap takes the interface in its address's subnet, lo "
          "included, and does not read NCCL_SOCKET_IFNAME (bootstrapNetInit, src/bootstrap.cc:38 "
          "@ v2.18.3-1), so a loopback NCCL_COMM_ID (127.0.0.1, or a host name that resolves to "
          "127.0.1.1) puts it on lo.";
    else if (bad.count("lo"))
      x.cause +=
          " NCCL takes loopback only when NCCL_SOCKET_IFNAME lets it in (its default list leaves "
          "lo "
          "out: ^docker,lo,virbr, ncclFindInterfaces, src/misc/socket.cc:220 @ v2.30.7-1) - set in "
          "the job, "
          "the image or /etc/nccl.conf, where an older NCCL does not print it (\"^docker0\" "
          "excludes docker0 only) - or when the host has no other interface.";
    if (loopback_bootstrap)
      x.cause +=
          " The bootstrap listens on loopback: the address it gives its peers (the root's in the "
          "unique id, every rank's in the bootstrap ring) is 127.0.0.1, so a rank on another host "
          "dials its own loopback and is refused.";
    x.fix = good.empty() ? std::string(
                               "Set NCCL_SOCKET_IFNAME to the interface that carries the "
                               "hosts' routable addresses (see `ip -4 addr`), on every "
                               "host.")
                         : "Set NCCL_SOCKET_IFNAME=" + *good.begin() +
                               " (the routable interface the log lists) on every host, or "
                               "exclude the others (NCCL_SOCKET_IFNAME=^" +
                               exclusion(*bad.begin()) + ").";
    if (comm_id && bad.count("lo"))
      x.fix =
          "Set NCCL_COMM_ID to rank 0's routable address (host:port, the address of an "
          "interface the other hosts reach), not a loopback one; NCCL_SOCKET_IFNAME does not "
          "change the bootstrap's interface while NCCL_COMM_ID is set.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_socket_interface() {
  return std::make_unique<NcclSocketInterface>();
}

}  // namespace trainready
