#include "knowledge/nccl_kb_read.h"

#include <algorithm>
#include <map>

namespace trainready {
namespace {

// "misc/socket.cc:567 -> 2", "-> 2 [Async thread]": a result trail (src/include/checks.h).
bool trail_shaped(std::string_view m) {
  std::size_t arrow = m.find("-> ");
  if (arrow == std::string_view::npos || arrow + 3 >= m.size()) return false;
  if (m[arrow + 3] < '1' || m[arrow + 3] > '9') return false;
  if (arrow == 0) return true;
  std::string_view head = m.substr(0, arrow);  // "misc/socket.cc:567 "
  if (head.back() != ' ') return false;
  head.remove_suffix(1);
  std::size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == head.size()) return false;
  if (head.find(' ') != std::string_view::npos) return false;
  for (char c : head.substr(colon + 1))
    if (c < '0' || c > '9') return false;
  return true;
}

// The message of a record's text: what follows "NCCL <LEVEL> ".
std::string_view after_level(std::string_view text, std::string_view level) {
  std::size_t p = text.find(level);
  return p == std::string_view::npos ? text : text.substr(p + level.size());
}

// The "file.cc:123" NCCL prints before " NCCL WARN" (2.30.7+: "file.cc:123 (func)").
std::string warn_file(std::string_view text) {
  std::size_t p = text.find(" NCCL WARN");
  if (p == std::string_view::npos) return "";
  std::string_view head = text.substr(0, p);
  if (!head.empty() && head.back() == ')') {
    std::size_t open = head.rfind(" (");
    if (open != std::string_view::npos) head = head.substr(0, open);
  }
  std::size_t sp = head.rfind(' ');
  std::string_view file = sp == std::string_view::npos ? head : head.substr(sp + 1);
  return file.find(':') != std::string_view::npos && file.find('.') != std::string_view::npos
             ? std::string(file)
             : "";
}

bool search(const NcclKbRegex& r, std::string_view s) {
  return std::regex_search(s.begin(), s.end(), r.re);
}

std::string file_of(std::string_view where) {  // "transport/net_ib.cc:123" -> the file
  std::size_t c = where.rfind(':');
  return std::string(c == std::string_view::npos ? where : where.substr(0, c));
}

bool before(const LogLine& a, const LogLine& b) {
  if (a.where.line != b.where.line) return a.where.line < b.where.line;
  return a.where.source < b.where.source;
}

}  // namespace

std::vector<NcclKbLine> nccl_kb_lines(const NcclRunFacts& f) {
  std::vector<NcclKbLine> out;
  std::set<std::string> seen;
  for (const NcclWarning& w : f.warnings) {
    NcclKbLine l;
    const bool nccl = w.first.text.find(" NCCL WARN") != std::string::npos;
    l.level = nccl ? NcclKbLevel::kWarn : NcclKbLevel::kAny;
    l.message = w.message;
    l.file = nccl ? warn_file(w.first.text) : "";
    l.line = w.first;
    l.count = w.count;
    l.hosts = w.hosts;
    out.push_back(std::move(l));
  }
  auto info = [&](const LogLine& src, std::string_view message) {
    if (!seen.insert(std::string(message)).second) return;
    NcclKbLine l;
    l.level = NcclKbLevel::kInfo;
    l.message = std::string(message);
    l.trail = trail_shaped(message);
    if (l.trail && message.substr(0, 3) != "-> ") l.file = l.message.substr(0, l.message.find(' '));
    l.line = src;
    out.push_back(std::move(l));
  };
  if (f.first_error_return)
    info(*f.first_error_return, after_level(f.first_error_return->text, "NCCL INFO "));
  for (const LogLine& l : f.failure_info) info(l, l.text);
  for (const LogLine& l : f.unrecognised) info(l, l.text);
  return out;
}

std::vector<const NcclKbEntry*> nccl_kb_matches(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                                const NcclRunFacts& f) {
  std::vector<const NcclKbEntry*> out;
  for (const NcclKbEntry& e : kb.entries()) {
    if ((e.kind == NcclKbKind::kTrail) != line.trail) continue;
    if (e.level != NcclKbLevel::kAny && e.level != line.level) continue;
    if (!e.versions.empty() && !f.versions.empty()) {
      bool any = false;
      for (const auto& [v, l] : f.versions) any = any || nccl_version_in(v, e.versions);
      if (!any) continue;
    }
    if (!e.literal.empty() && line.message.find(e.literal) == std::string::npos) continue;
    if (search(e.match, line.message)) out.push_back(&e);
  }
  return out;
}

namespace {

// The lines `log_has` reads: every line the analyser kept.
bool log_has(const NcclKbRegex& r, const NcclRunFacts& f) {
  auto hit = [&](const LogLine& l) { return search(r, l.text); };
  auto any = [&](const std::vector<LogLine>& v) { return std::any_of(v.begin(), v.end(), hit); };
  for (const NcclWarning& w : f.warnings)
    if (hit(w.first)) return true;
  for (const auto* o : {&f.first_error_return, &f.init_complete_line, &f.mnnvl_line,
                        &f.ib_no_device, &f.ibverbs_missing, &f.gdr_disabled_by_distance})
    if (*o && hit(**o)) return true;
  if (any(f.failure_info) || any(f.unrecognised) || any(f.last_lines) || any(f.plugin_messages) ||
      any(f.socket_interfaces) || any(f.topology_files))
    return true;
  for (const auto& [v, l] : f.versions)
    if (hit(l)) return true;
  for (const auto& [k, e] : f.env)
    if (hit(e.line)) return true;
  for (const NcclNetDevice& d : f.net_devices)
    if (hit(d.example)) return true;
  for (const auto& [k, t] : f.transports)
    if (hit(t.example)) return true;
  for (const auto& [k, i] : f.issues)
    if (any(i.examples)) return true;
  for (const CollectiveTimeout& t : f.timeouts)
    if (hit(t.line)) return true;
  return false;
}

std::optional<bool> gdr_in_use(const NcclRunFacts& f) {
  bool net = false;
  for (const auto& [k, t] : f.transports) {
    if (t.gdrdma) return true;
    net = net || t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetOther ||
          t.kind == TransportKind::kCollNet;
  }
  for (const NcclNetDevice& d : f.net_devices)
    if (d.gdr && *d.gdr) return true;
  if (net) return false;
  for (const NcclNetDevice& d : f.net_devices)
    if (d.gdr) return false;
  return std::nullopt;
}

}  // namespace

bool nccl_kb_when_holds(const NcclKbWhen& w, const NcclRunFacts& f) {
  if (!w.link_layer.empty()) {
    bool ok = false;
    for (const NcclNetDevice& d : f.net_devices) {
      const bool eth =
          d.link_layer == "RoCE" || d.link_layer == "ETH" || d.link_layer == "Ethernet";
      const bool ib = d.link_layer == "IB" || d.link_layer == "InfiniBand";
      ok = ok || (w.link_layer == "Ethernet" ? eth : ib);
    }
    if (!ok) return false;
  }
  if (w.net) {
    bool ok = false;
    for (const std::string& n : f.networks) ok = ok || search(*w.net, n);
    ok = ok || (!f.net_plugin.empty() && search(*w.net, f.net_plugin));
    if (!ok) return false;
  }
  if (w.plugin) {
    bool ok = !f.net_plugin.empty() && search(*w.plugin, f.net_plugin);
    for (const LogLine& l : f.plugin_messages) ok = ok || search(*w.plugin, l.text);
    if (!ok) return false;
  }
  for (const NcclKbEnv& e : w.env) {
    auto it = f.env.find(e.name);
    if (!e.value) {
      if (it != f.env.end()) return false;
    } else if (it == f.env.end() || !search(*e.value, it->second.value)) {
      return false;
    }
  }
  if (!w.nccl.empty()) {
    bool ok = false;
    for (const auto& [v, l] : f.versions) ok = ok || nccl_version_in(v, w.nccl);
    if (!ok) return false;
  }
  if (!w.driver.empty() && (f.cuda_driver.empty() || !nccl_version_in(f.cuda_driver, w.driver)))
    return false;
  if (w.multi_node && *w.multi_node != f.multi_node()) return false;
  if (w.mnnvl && *w.mnnvl != f.mnnvl_line.has_value()) return false;
  if (w.gdr) {
    auto g = gdr_in_use(f);
    if (!g || *g != *w.gdr) return false;
  }
  if (w.log_has && !log_has(*w.log_has, f)) return false;
  return true;
}

bool nccl_kb_is_signature(const NcclKbEntry& e) {
  return e.file == "signatures.yaml" || e.kind == NcclKbKind::kPassthrough;
}

std::vector<NcclMessageReading> read_nccl_messages(const NcclRunFacts& f,
                                                   const NcclKnowledgeBase& kb) {
  std::vector<NcclMessageReading> out;
  std::map<const NcclKbEntry*, std::size_t> index;
  for (NcclKbLine& line : nccl_kb_lines(f)) {
    const NcclKbEntry* best = nullptr;
    const NcclKbCause* best_cause = nullptr;
    bool best_seen = false;
    for (const NcclKbEntry* e : nccl_kb_matches(kb, line, f)) {
      // The first cause whose `when` holds; when none does (the log does not show the context
      // that decides), the entry still reads the line, with its first cause as the likeliest.
      const NcclKbCause* c = nullptr;
      for (const NcclKbCause& x : e->causes)
        if (nccl_kb_when_holds(x.when, f)) {
          c = &x;
          break;
        }
      const bool seen = c != nullptr;
      if (!c && !e->causes.empty()) c = &e->causes.front();
      if (!c) continue;
      // A signature (the curated table nccl-known-signature reads, checked against the
      // maintainers' stated causes) keeps its line; then an entry whose context the log shows;
      // then the higher rank.
      bool better = !best;
      if (!better && nccl_kb_is_signature(*e) != nccl_kb_is_signature(*best))
        better = nccl_kb_is_signature(*e);
      else if (!better && seen != best_seen)
        better = seen;
      else if (!better)
        better = e->rank > best->rank;
      if (better) {
        best = e;
        best_cause = c;
        best_seen = seen;
      }
    }
    if (!best) continue;
    auto [it, inserted] = index.try_emplace(best, out.size());
    if (inserted) {
      NcclMessageReading r;
      r.entry = best;
      r.cause = best_cause;
      r.cause_seen = best_seen;
      for (const NcclKbCause& x : best->causes)
        if (&x != best_cause) r.others.push_back(&x);
      if (!line.file.empty()) r.file_subsystem = kb.subsystem_of_file(file_of(line.file));
      r.line = line;
      out.push_back(std::move(r));
    }
    NcclMessageReading& r = out[it->second];
    if (before(line.line, r.line.line)) {
      r.file_subsystem = line.file.empty() ? "" : kb.subsystem_of_file(file_of(line.file));
      r.line = line;
    }
    r.count += line.count;
    r.messages.insert(line.message);
    for (const std::string& h : line.hosts)
      if (r.hosts.size() < 64) r.hosts.insert(h);
  }
  // As a maintainer reads: errors before warnings, a specific message before the generic
  // trail, then the first failure in time, then the more decisive entry.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.entry->severity != b.entry->severity) return a.entry->severity > b.entry->severity;
    const bool at = a.entry->kind == NcclKbKind::kTrail, bt = b.entry->kind == NcclKbKind::kTrail;
    if (at != bt) return bt;
    if (a.line.line.where.line != b.line.line.where.line) return before(a.line.line, b.line.line);
    return a.entry->rank > b.entry->rank;
  });
  return out;
}

}  // namespace trainready
