#include "parsers/nccl_ib_mtu.h"

#include "core/text_consume.h"

namespace trainready {
namespace {

// " <word> <number>" at the front of `s`: the number, and `s` past it.
std::optional<std::int64_t> field(std::string_view& s, std::string_view word) {
  std::string_view t = s;
  if (!consume_prefix(t, word)) return std::nullopt;
  auto v = consume_int(t);
  if (v) s = t;
  return v;
}

}  // namespace

std::optional<IbQpMtu> parse_ib_qp_mtu(std::string_view m) {
  if (m.substr(0, 6) != "NET/IB") return std::nullopt;
  const std::size_t port_at = m.find(" Port ");
  if (port_at == std::string_view::npos) return std::nullopt;
  // The device before " Port ": "IbDev N" (2.20+) or "Dev N" (before 2.20).
  std::size_t dev_at = m.rfind(" IbDev ", port_at);
  if (dev_at == std::string_view::npos) dev_at = m.rfind(" Dev ", port_at);
  if (dev_at == std::string_view::npos) return std::nullopt;
  // "IbDev 0" with nothing after it (" IbDev Port 1": no number, the blank is Port's).
  std::string_view dev = m.substr(dev_at, port_at - dev_at);
  const std::size_t blank = dev.find(' ', 1);
  if (blank == std::string_view::npos) return std::nullopt;
  std::string_view d = dev.substr(blank);
  if (!field(d, " ") || !d.empty()) return std::nullopt;
  std::string_view s = m.substr(port_at);
  if (!field(s, " Port ")) return std::nullopt;
  const std::size_t port_end = m.size() - s.size();  // "IbDev 0 Port 1" ends here
  if (!field(s, " qpn ") && !field(s, " qp_num ")) return std::nullopt;
  const auto mtu = field(s, " mtu ");
  if (!mtu || *mtu < 1 || *mtu > 5) return std::nullopt;  // enum ibv_mtu: IBV_MTU_256 = 1 .. 4096
  if (!s.empty() && s.front() != ' ') return std::nullopt;
  IbQpMtu out;
  out.port = m.substr(dev_at + 1, port_end - dev_at - 1);
  out.mtu_bytes = 128 << *mtu;
  return out;
}

void NcclIbMtus::add(const std::string& host, const IbQpMtu& q,
                     const std::function<LogLine()>& line) {
  if (!first_of_mtu_.count(q.mtu_bytes))
    first_of_mtu_.emplace(q.mtu_bytes,
                          NcclIbPortMtu{host, std::string(q.port), q.mtu_bytes, line()});
  std::string key = host;
  key += '\n';
  key += q.port;
  auto it = ports_.find(key);
  if (it == ports_.end()) {
    if (ports_.size() >= kPortCap) {
      if (folded_ports_.size() < kPortCap && folded_ports_.insert(std::move(key)).second) ++folded_;
      return;
    }
    ports_.emplace(std::move(key), NcclIbPortMtu{host, std::string(q.port), q.mtu_bytes, line()});
  } else if (q.mtu_bytes > it->second.mtu_bytes) {
    it->second.mtu_bytes = q.mtu_bytes;
    it->second.line = line();
  }
}

std::vector<NcclIbPortMtu> NcclIbMtus::finish() {
  std::vector<NcclIbPortMtu> out;
  std::set<int> kept;
  for (auto& [key, p] : ports_) {
    kept.insert(p.mtu_bytes);
    out.push_back(std::move(p));
  }
  // With ports past the cap: an MTU value no kept port has as its largest, kept with its first
  // line so that the set of values stays whole (a port past the cap printed it, or a kept port
  // did after its device was lowered, 2.29+). Without folded ports a lowered print is not a value
  // of its own: the peer that lowered it printed its MTU itself when its lines are in the log.
  if (folded_ > 0)
    for (auto& [mtu, p] : first_of_mtu_)
      if (!kept.count(mtu)) out.push_back(std::move(p));
  return out;
}

}  // namespace trainready
