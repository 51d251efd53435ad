#include "parsers/nccl_ring_claims.h"

#include <charconv>
#include <map>
#include <set>

namespace trainready {
namespace {

bool eat(std::string_view& s, std::string_view p) {
  if (s.substr(0, p.size()) != p) return false;
  s.remove_prefix(p.size());
  return true;
}

// "12" -> 12; false unless one or more decimal digits come first.
bool number(std::string_view& s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec != std::errc() || out < 0) return false;
  s.remove_prefix(static_cast<std::size_t>(r.ptr - s.data()));
  return true;
}

// "6[6]": a rank and, in brackets, a CUDA device number (at most 3 digits; a bus id, 2.5+, is
// hexadecimal with 4 digits or more).
bool rank_dev(std::string_view& s, int& rank, int& dev) {
  if (!number(s, rank) || !eat(s, "[")) return false;
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close == 0 || close > 3) return false;
  std::string_view d = s.substr(0, close);
  if (!number(d, dev) || !d.empty()) return false;
  s.remove_prefix(close + 1);
  return true;
}

}  // namespace

std::optional<RingConnection> parse_ring_connection(std::string_view m) {
  RingConnection c;
  int ring = 0;
  if (!eat(m, "Ring ") || !number(m, ring) || !eat(m, " : ")) return std::nullopt;
  if (!rank_dev(m, c.rank, c.dev) || !eat(m, " -> ") || !rank_dev(m, c.peer, c.peer_dev) ||
      !eat(m, " via "))
    return std::nullopt;
  c.intra_node = m.substr(0, 3) == "P2P" || m.substr(0, 3) == "SHM" ||
                 m.substr(0, 20) == "direct shared memory";
  return c;
}

void NcclRingClaims::add(const RingConnection& c, const NcclStream* s, const LogLine& line) {
  if (!c.intra_node) return;
  auto [it, fresh] = own_.try_emplace(s);
  Own& o = it->second;
  if (fresh) {
    o.rank = c.rank;
    o.dev = c.dev;
    o.seq = next_seq_++;
    o.line = line;
  } else if (o.rank != c.rank || o.dev != c.dev) {
    o.several = true;
  }
  if (claims_.size() < kClaims) claims_.push_back({s, c.peer, c.peer_dev, line});
}

std::optional<NcclHostDeviceClash> NcclRingClaims::finish() const {
  // Per host: the device each rank holds, from the streams that printed one rank on one device
  // (a stream printed as two ranks belongs to communicators that number differently).
  struct Holder {
    int rank = -1;
    bool contested = false;
    const Own* own = nullptr;
  };
  std::map<std::string, std::map<int, Holder>> held;
  for (const auto& [s, o] : own_) {
    if (o.several || s->cuda_dev != o.dev) continue;
    Holder& h = held[s->host][o.dev];
    if (h.own && h.rank != o.rank) h.contested = true;
    if (!h.own || o.seq < h.own->seq) {
      h.rank = o.rank;
      h.own = &o;
    }
  }
  for (const Claim& c : claims_) {
    auto own = own_.find(c.s);
    if (own == own_.end() || own->second.several) continue;
    auto host = held.find(c.s->host);
    // A host whose ranks print one device number each (CUDA_VISIBLE_DEVICES set per process
    // makes every rank device 0, and then the numbers say nothing).
    if (host == held.end() || host->second.size() < 2) continue;
    auto h = host->second.find(c.peer_dev);
    if (h == host->second.end() || h->second.contested || h->second.rank == c.peer) continue;
    return NcclHostDeviceClash{c.s->host, c.peer_dev,          h->second.rank,
                               c.peer,    h->second.own->line, c.line};
  }
  return std::nullopt;
}

}  // namespace trainready
