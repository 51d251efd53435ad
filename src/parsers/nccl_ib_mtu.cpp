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
  std::string_view dev = m.substr(dev_at, port_at - dev_at);
  std::string_view d = dev.substr(dev.find(' ', 1));
  if (!field(d, " ") || !d.empty()) return std::nullopt;  // "IbDev 0" with nothing after it
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
  if (out_.size() >= kCap) return;
  auto key = std::make_tuple(host, std::string(q.port), q.mtu_bytes);
  if (!seen_.insert(key).second) return;
  out_.push_back({host, std::string(q.port), q.mtu_bytes, line()});
}

}  // namespace trainready
