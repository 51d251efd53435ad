// The analyser's reader of communicator lines: "comm %p rank %d nranks %d ..." with its Init
// START / Init COMPLETE / Destroy COMPLETE suffixes, the "nNodes" line, and the forms of NCCL
// releases before those suffixes.
#include <cctype>

#include "parsers/nccl_log_internal.h"

namespace trainready {

namespace {
// commAlloc's line whole, nothing fused onto it by a concurrent writer: "comm %p rank %d nranks %d"
// then nothing (2.2, 2.3), " cudaDev %d nvmlDev %d" (2.4) or " cudaDev %d busId %x" (its TRACE
// form from 2.5).
bool alloc_line_tail(std::string_view m) {
  std::size_t p = m.find(" nranks ");
  if (p == std::string_view::npos) return false;
  p += 8;
  auto number = [&](bool hex) {
    const std::size_t b = p;
    while (p < m.size() && (std::isdigit(static_cast<unsigned char>(m[p])) ||
                            (hex && std::isxdigit(static_cast<unsigned char>(m[p])))))
      ++p;
    return p > b;
  };
  auto word = [&](std::string_view w) {
    if (m.compare(p, w.size(), w) != 0) return false;
    p += w.size();
    return true;
  };
  if (!number(false)) return false;
  if (p == m.size()) return true;
  if (!word(" cudaDev ") || !number(false)) return false;
  if (word(" nvmlDev ")) return number(false) && p == m.size();
  return word(" busId ") && number(true) && p == m.size();
}
}  // namespace

void NcclLogAnalyzer::State::comm_line(std::string_view m, NcclStream& s, std::uint64_t n) {
  while (!m.empty() && (m.back() == ' ' || m.back() == '\t' || m.back() == '\r'))
    m.remove_suffix(1);
  auto rank = int_after(m, " rank ");
  auto nranks = int_after(m, " nranks ");
  if (!nranks) nranks = int_after(m, " nRanks ");
  if (!rank || !nranks || *nranks <= 0 || *rank < 0 || *rank >= *nranks) return;
  if (auto nn = int_after(m, " nNodes "); nn && *nn > 0) {
    const int nodes = static_cast<int>(std::min<long>(*nn, 1 << 20));
    pending_nnodes[&s] = nodes;
    f.nnodes_printed = std::max(f.nnodes_printed, nodes);
    // The communicator this stream's Init START opened: an init that never completes (a hang)
    // still says how many nodes it spans.
    if (auto sc = stream_comm.find(&s); sc != stream_comm.end())
      sc->second->nnodes = std::max(sc->second->nnodes, nodes);
    return;
  }
  bool complete = has(m, "Init COMPLETE");
  bool start = has(m, "Init START");
  // Before "Init START" (2.18) and "- Init COMPLETE" (2.4): NCCL 2.3 ends init with "comm %p rank
  // %d nranks %d - COMPLETE" (src/init.cu:599 @ v2.3.7-1), and commAlloc's "comm %p rank %d
  // nranks %d" (" cudaDev %d nvmlDev %d" from 2.4) begins it - INFO in 2.2 to 2.4.2
  // (src/init.cu:162 @ v2.3.5-5, :174 @ v2.3.7-1, :245 @ v2.4.2-1), TRACE from 2.4.8. Destroy's
  // suffix-less TRACE spells "nRanks".
  if (!complete && !start) {
    if (m.ends_with(" - COMPLETE"))
      complete = true;
    else if (m.find(" - ") == std::string_view::npos)
      start = alloc_line_tail(m);
  }
  if (!complete && !start) {  // Destroy / Abort COMPLETE
    // "comm %p rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE" (init.cc
    // ncclCommDestroy): the rank was a member, whatever its init lines a log kept. No commId:
    // kept per process, whose ranks of communicators of one size these lines list.
    if (!has(m, "Destroy COMPLETE")) return;
    const std::string key =
        "nranks=" + std::to_string(*nranks) + " in " + s.host + ":" + std::to_string(s.pid);
    auto [d, fresh] = f.comms_at_destroy.try_emplace(key);
    if (fresh) {
      d->second.id = key;
      d->second.nranks = static_cast<int>(std::min<long>(*nranks, 1 << 24));
      d->second.first_seen = at(n);
    }
    if (destroy_memberships.size() < (1u << 22))
      destroy_memberships.push_back({&d->second, static_cast<int>(*rank), &s});
    return;
  }
  std::string id;
  std::string_view cid = word_after(m, "commId ");
  if (!cid.empty())
    id = std::string(cid);
  else
    id = "nranks=" + std::to_string(*nranks);
  auto [it, inserted] = f.comms.try_emplace(id);
  NcclCommunicator& c = it->second;
  if (inserted) {
    c.id = id;
    c.nranks = static_cast<int>(std::min<long>(*nranks, 1 << 24));
    c.first_seen = at(n);
  }
  auto pn = pending_nnodes.find(&s);
  if (pn != pending_nnodes.end()) c.nnodes = std::max(c.nnodes, pn->second);
  flush_graph(&s, &c);
  stream_comm[&s] = &c;
  const int r = static_cast<int>(*rank);
  c.rank_hosts[r] = s.host;
  if (memberships.size() < (1u << 22)) memberships.push_back({&c, r, &s});
  if (s.rank < 0) {
    s.rank = r;
    s.nranks = c.nranks;
  }
  std::string_view bus = word_after(m, "busId ");
  if (!bus.empty() && s.bus_id.empty()) s.bus_id = std::string(bus);
  if (start) {
    c.ranks_started.insert(r);
    s.init_started = true;
  } else {
    c.ranks_complete.insert(r);
    s.init_started = true;
    s.init_complete = true;
    if (!f.init_complete_line) f.init_complete_line = LogLine{quote(m), at(n)};
  }
}

}  // namespace trainready
