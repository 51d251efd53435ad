// The analyser's readers of the interfaces and addresses a process's Bootstrap, NET/IB and
// NET/Socket lines name (the host profile: HostProfile's bootstrap_ifaces, socket_ifaces,
// addresses).
#include <algorithm>

#include "parsers/nccl_log_internal.h"

namespace trainready {

namespace {
// "Bootstrap : Using [0]eth0:10.0.0.4<0>", "OOB ib0:10.0.0.1<0>" -> {"eth0", "10.0.0.4"}
std::pair<std::string_view, std::string_view> iface_address(std::string_view e) {
  if (!e.empty() && e[0] == '[') {
    std::size_t b = e.find(']');
    if (b != std::string_view::npos) e.remove_prefix(b + 1);
  }
  std::size_t colon = e.find(':');
  if (colon == std::string_view::npos) return {e, {}};
  std::string_view addr = e.substr(colon + 1);
  addr = addr.substr(0, addr.find('<'));
  return {e.substr(0, colon), addr};
}
}  // namespace

void NcclLogAnalyzer::State::profile_bootstrap(std::string_view m, const NcclStream& s,
                                               std::uint64_t n) {
  std::size_t u = find(m, "Using ");
  if (u == std::string_view::npos) return;
  if (f.bootstrap_interfaces.size() < 8) {
    // Distinct messages (each rank's line differs in its prefix only), kept as socket_line keeps
    // NET/Socket's.
    const std::string q = quote(m);
    if (std::none_of(f.bootstrap_interfaces.begin(), f.bootstrap_interfaces.end(),
                     [&](const LogLine& l) { return l.text == q; }))
      f.bootstrap_interfaces.push_back({q, at(n)});
  }
  std::string_view e = m.substr(u + 6);
  e = e.substr(0, e.find(' '));
  auto [iface, addr] = iface_address(e);
  Proc& p = proc_of(s);
  p.p.init_start_seen = true;
  if (!iface.empty() && p.p.bootstrap_ifaces.size() < 8) p.p.bootstrap_ifaces.emplace(iface);
  if (!addr.empty()) {
    if (p.address.empty()) p.address = std::string(addr);
    if (p.p.addresses.size() < 8) p.p.addresses.emplace(addr);
  }
}

void NcclLogAnalyzer::State::profile_net_ib(std::string_view m, const NcclStream& s) {
  if (has(m, "No device found")) {
    proc_of(s).p.ib_devices = false;
    return;
  }
  if (!has(m, "Using [")) return;
  Proc& p = proc_of(s);
  std::size_t oob = find(m, "OOB ");
  // "NET/IB : Using [RO]; OOB eno1:..." lists no device: IB found nothing usable.
  std::string_view list = m.substr(0, oob);
  const bool any = has(list, "]mlx") || has(list, "]hfi") || has(list, "]irdma") ||
                   has(list, "]bnxt") || has(list, "]ib") || has(list, ":1/") || has(list, ":2/");
  if (!p.p.ib_devices || !*p.p.ib_devices) p.p.ib_devices = any;
  if (oob != std::string_view::npos) {
    std::string_view e = m.substr(oob + 4);
    e = e.substr(0, e.find(' '));
    auto [iface, addr] = iface_address(e);
    if (!addr.empty() && p.address.empty()) {
      p.address = std::string(addr);
      if (p.p.addresses.size() < 8) p.p.addresses.emplace(addr);
    }
    if (!iface.empty() && p.p.bootstrap_ifaces.empty()) p.p.bootstrap_ifaces.emplace(iface);
  }
}

// "NET/Socket : Using [0]eth0:10.0.0.4<0> [1]lo:127.0.0.1<0>": the socket devices, in order
// (device i is NET/Socket/i). NCCL before 2.4 printed one line per interface instead, in the same
// order, the first also the bootstrap's ("NET : Using interface lo:127.0.0.1<0>",
// src/include/socket.h @ v2.3.5-5).
void NcclLogAnalyzer::State::socket_line(std::string_view m, const NcclStream& s, std::uint64_t n) {
  if (!has(m, "Using")) return;
  if (starts(m, "NET : Using interface ")) {
    Proc& p = proc_of(s);
    auto [iface, addr] = iface_address(m.substr(22, m.find(' ', 22) - 22));
    // NET/IB's sideband lookup prints the same line for its first interface (findInterfaces,
    // src/transport/net_ib.cu:92 @ v2.3.5-5): an interface already listed is not a new device.
    const std::string entry = std::string(iface) + ":" + std::string(addr);
    const bool listed = std::find(p.p.socket_ifaces.begin(), p.p.socket_ifaces.end(), entry) !=
                        p.p.socket_ifaces.end();
    if (!iface.empty() && !listed && p.p.socket_ifaces.size() < 16)
      p.p.socket_ifaces.push_back(entry);
    // The bootstrap listens on device 0 (bootstrapListen(0, ...), src/bootstrap.cu:171 @ v2.3.5-5).
    if (!iface.empty() && p.p.bootstrap_ifaces.empty()) p.p.bootstrap_ifaces.emplace(iface);
    p.p.init_start_seen = true;
    if (p.address.empty() && !addr.empty()) {
      p.address = std::string(addr);
      if (p.p.addresses.size() < 8) p.p.addresses.emplace(addr);
    }
  } else {
    profile_socket(m, s);
  }
  if (f.socket_interfaces.size() < 8) {
    bool dup = false;
    for (const auto& l : f.socket_interfaces) dup = dup || l.text == quote(m);
    if (!dup) f.socket_interfaces.push_back({quote(m), at(n)});
  }
}

void NcclLogAnalyzer::State::profile_socket(std::string_view m, const NcclStream& s) {
  Proc& p = proc_of(s);
  if (!p.p.socket_ifaces.empty()) return;
  std::size_t i = 0;
  while ((i = m.find('[', i)) != std::string_view::npos && p.p.socket_ifaces.size() < 16) {
    std::size_t e = m.find(' ', i);
    std::string_view entry = m.substr(i, e == std::string_view::npos ? e : e - i);
    auto [iface, addr] = iface_address(entry);
    if (!iface.empty()) p.p.socket_ifaces.push_back(std::string(iface) + ":" + std::string(addr));
    if (p.address.empty() && !addr.empty() && p.p.socket_ifaces.size() == 1) {
      p.address = std::string(addr);
      if (p.p.addresses.size() < 8) p.p.addresses.emplace(addr);
    }
    if (e == std::string_view::npos) break;
    i = e;
  }
}

}  // namespace trainready
