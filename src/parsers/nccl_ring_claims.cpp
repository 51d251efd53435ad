#include "parsers/nccl_ring_claims.h"

#include <climits>
#include <map>

#include "core/text_consume.h"

namespace trainready {
namespace {

bool eat(std::string_view& s, std::string_view p) { return consume_prefix(s, p); }

// "12" -> 12; false unless one or more decimal digits come first.
bool number(std::string_view& s, int& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  const auto v = consume_int(s);
  if (!v || *v > INT_MAX) return false;
  out = static_cast<int>(*v);
  return true;
}

// "6[6]": a rank and, in brackets, a CUDA device number (at most 3 digits; a bus id, 2.5+, is
// hexadecimal, most often 4 digits or more).
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
  std::string_view rest = m;
  if (rank_dev(m, c.rank, c.dev) && eat(m, " -> ") && rank_dev(m, c.peer, c.peer_dev) &&
      eat(m, " via ")) {
    c.intra_node = m.substr(0, 3) == "P2P" || m.substr(0, 3) == "SHM" ||
                   m.substr(0, 20) == "direct shared memory";
    return c;
  }
  // NET: "a -> b [send] via NET/..." (a is this rank), "a -> b [receive] via ..." and 2.3's
  // "a -> b via NET/..." (b is this rank).
  int a = 0, b = 0;
  if (!number(rest, a) || !eat(rest, " -> ") || !number(rest, b)) return std::nullopt;
  const bool send = eat(rest, " [send]");
  if (!send) eat(rest, " [receive]");
  if (!eat(rest, " via NET/")) return std::nullopt;
  c.rank = send ? a : b;
  c.peer = send ? b : a;
  return c;
}

NcclRingClaims::Own* NcclRingClaims::own(const NcclStream* s, int rank) {
  auto [it, fresh] = own_.try_emplace(s);
  if (fresh) it->second.seq = next_seq_++;
  if (it->second.ranks.size() < 2) it->second.ranks.insert(rank);
  return &it->second;
}

void NcclRingClaims::member(const NcclStream* s, int rank) {
  if (rank >= 0) own(s, rank);
}

std::optional<NcclHostDeviceClash> NcclRingClaims::finish() const {
  // Per host: the device each rank holds, from the streams that printed one rank on one device
  // (a stream printed as two ranks belongs to communicators that number it differently).
  struct Holder {
    int rank = -1;
    bool contested = false;
    const Own* own = nullptr;
  };
  std::map<std::string, std::map<int, Holder>> held;
  std::set<std::string> shared;  // hosts where two ranks print the same device as their own
  for (const auto& [s, o] : own_) {
    if (o.ranks.size() != 1 || o.dev < 0 || s->cuda_dev != o.dev) continue;
    Holder& h = held[s->host][o.dev];
    if (h.own && h.rank != *o.ranks.begin()) {
      h.contested = true;
      shared.insert(s->host);
    }
    if (!h.own || o.seq < h.own->seq) {
      h.rank = *o.ranks.begin();
      h.own = &o;
    }
  }
  for (const Claim& c : claims_) {
    auto own = own_.find(c.s);
    if (own == own_.end() || own->second.ranks.size() != 1) continue;
    // A host whose ranks print one device number each (CUDA_VISIBLE_DEVICES set per process
    // makes every rank device 0, and then the numbers say nothing), or where two ranks already
    // share a device (then "each rank holds its own" does not hold there).
    auto host = held.find(c.s->host);
    if (host == held.end() || host->second.size() < 2 || shared.count(c.s->host)) continue;
    auto h = host->second.find(c.peer_dev);
    if (h == host->second.end() || h->second.rank == c.peer) continue;
    return NcclHostDeviceClash{c.s->host, c.peer_dev,          h->second.rank,
                               c.peer,    h->second.own->line, c.line};
  }
  return std::nullopt;
}

}  // namespace trainready
