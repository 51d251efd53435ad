#include "knowledge/nccl_kb_read.h"

#include "facts/nccl_host_label.h"
#include "knowledge/nccl_hip_names.h"
#include "knowledge/nccl_kb_line_text.h"
#include "knowledge/nccl_link_layer.h"
#include "knowledge/nccl_shared_prefixes.h"
#include "knowledge/nccl_site_releases.h"

#include <cctype>

#include <algorithm>
#include <map>
#include <set>

namespace trainready {
using nccl_kb_text::after_level;
using nccl_kb_text::thread_of;
using nccl_kb_text::trail_shaped;
using nccl_kb_text::warn_tag;

namespace {

bool search(const NcclKbRegex& r, std::string_view s) {
  return std::regex_search(s.begin(), s.end(), r.re());
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

namespace {

// The releases the log comes from: the versions it prints; when it prints none, the ones the
// places its WARNs printed from tell (nccl_site_releases.h); else unknown.
struct LogReleases {
  std::vector<std::string> printed;
  NcclSiteReleases sites;
  // The log is RCCL's: its version line, or (an excerpt) a WARN printed from RCCL's hipify/
  // build directory or a HIP name RCCL prints where NCCL prints CUDA's (`when: {rccl: ...}`).
  // Its version is the NCCL release it forks (ROCm/rccl makefiles/version.mk sets
  // NCCL_MAJOR/MINOR/PATCH, which RCCL prints), so `versions` apply; its WARNs' places are
  // RCCL's lines, not NCCL's, and a bug NCCL fixed may or may not be in it.
  bool rccl = false;
  // The log tells which library printed it: a version line of NCCL or RCCL.
  bool producer_known = false;
  // The call NCCL checks where the first error trail starts, at the releases above (unknown for
  // RCCL, whose lines are not NCCL's).
  NcclTrailCall call;
  // The record the first trail's thread printed just before it was no WARN: the call that failed
  // said nothing, and is named only by the trail (`trail_call` holds only then; a cut trail is
  // read at another thread's deeper start only then).
  bool silent = false;
};

// The WARN NCCL printed where the first error trail starts: the last WARN before it in the same
// file, printed by the same thread (checks.h: the failing call WARNs, then its caller traces
// "-> code" at once); without a host:pid:tid prefix, on the line just before it (or the one
// before that). Null when there is none.
const LogLine* warn_before_first_trail(const NcclRunFacts& f,
                                       const std::vector<NcclKbLine>& lines) {
  if (!f.first_error_return) return nullptr;
  const LogLine& t = *f.first_error_return;
  const std::string thread = thread_of(t.text);
  const LogLine* start = nullptr;
  for (const NcclKbLine& l : lines) {
    if (l.level != NcclKbLevel::kWarn || l.line.where.source != t.where.source ||
        l.line.where.line >= t.where.line)
      continue;
    const bool same =
        thread.empty() ? t.where.line - l.line.where.line <= 2 : thread_of(l.line.text) == thread;
    if (same && (!start || l.line.where.line > start->where.line)) start = &l.line;
  }
  return start;
}

// The WARN where the failure started: the one before the first trail (above), or, in an excerpt
// that begins inside the first trail and so lost its WARN, another thread's failure of the same
// call - a WARN from the file the trail starts in, which the caller traces at once, printed
// within a few dozen lines - the same failure in time, told by the WARN this one cut off
// (`*cut` set).
const LogLine* failure_warn(const NcclRunFacts& f, const std::vector<NcclKbLine>& lines,
                            bool* cut) {
  *cut = false;
  const LogLine* start = warn_before_first_trail(f, lines);
  if (start || !f.first_error_return) return start;
  const LogLine& t = *f.first_error_return;
  const std::string thread = thread_of(t.text);
  constexpr int kCutTrailReach = 40;
  const NcclKbLine* first = nullptr;
  for (const NcclKbLine& l : lines)
    if (l.trail && l.line.where.source == t.where.source && l.line.where.line == t.where.line)
      first = &l;
  if (!first || t.where.line > 3 || first->file.empty()) return nullptr;
  const std::string file = file_of(first->file);
  for (const NcclKbLine& l : lines)
    if (l.level == NcclKbLevel::kWarn && l.line.where.source == t.where.source &&
        l.line.where.line > t.where.line && l.line.where.line - t.where.line <= kCutTrailReach &&
        !l.file.empty() && file_of(l.file) == file &&
        (thread.empty() || thread_of(l.line.text) != thread) &&
        (!start || l.line.where.line < start->where.line))
      start = &l.line;
  *cut = start != nullptr;
  return start;
}

// The place of an error-trail line ("transport/net_ib.cc:282" of "... NCCL INFO
// transport/net_ib.cc:282 -> 2"); empty when the line is not one.
std::string_view trail_place(std::string_view text) {
  const std::string_view m = after_level(text, "NCCL INFO ");
  if (!trail_shaped(m) || m.substr(0, 3) == "-> ") return {};
  return m.substr(0, m.find(' '));
}

LogReleases log_releases(const NcclRunFacts& f, const std::vector<NcclKbLine>& lines) {
  LogReleases r;
  for (const auto& [v, l] : f.versions) r.printed.push_back(v);
  if (r.printed.empty())
    for (const auto& [v, l] : f.rccl_versions) r.printed.push_back(v);
  r.producer_known = !r.printed.empty();
  r.rccl =
      !f.rccl_versions.empty() || std::any_of(lines.begin(), lines.end(), [](const NcclKbLine& l) {
        return !l.spelled.empty() || l.file.find("hipify/") != std::string::npos;
      });
  if (r.rccl) return r;
  // Silent: the first trail's thread printed no WARN just before it (an earlier WARN of that
  // thread with other records between names another thing: NcclRunFacts::
  // first_error_after_warn), nor, in an excerpt cut inside it, the same call's WARN on another
  // thread.
  bool across_cut = false;
  r.silent = f.first_error_return && !f.first_error_after_warn &&
             !(failure_warn(f, lines, &across_cut) && across_cut);
  // Where the failure's trail starts: another thread's deeper start of it when the first trail
  // printed no WARN before it (cut: the excerpt lost that trail's start;
  // NcclRunFacts::deeper_error_return), else the first trail's first line.
  const std::string_view cut =
      f.first_error_return ? trail_place(f.first_error_return->text) : std::string_view{};
  const std::string_view first =
      f.deeper_error_return && r.silent ? trail_place(f.deeper_error_return->text) : cut;
  const auto name_call = [&](std::uint64_t mask) {
    if (first.empty()) return;
    r.call = nccl_trail_call(first, mask);
    if (r.call.known() && first != cut) r.call.passes = std::string(cut);
  };
  if (!r.printed.empty()) {
    std::uint64_t mask = 0;
    for (const std::string& v : r.printed) mask |= nccl_release_mask(v);
    name_call(mask);
    return r;
  }
  std::vector<NcclPrintedWarn> warns;
  for (const NcclKbLine& l : lines)
    if (l.level == NcclKbLevel::kWarn && !l.file.empty()) warns.push_back({l.file, l.message});
  // The error trail's places tell the release as the WARNs' do: the first trail's lines (one
  // thread's), not every "-> code" line of the log (another rank's may be of another release).
  std::vector<std::string_view> trail;
  if (!first.empty()) trail.push_back(first);
  if (!cut.empty() && cut != first) trail.push_back(cut);
  for (const LogLine& l : f.first_error_trail)
    if (const std::string_view p = trail_place(l.text); !p.empty()) trail.push_back(p);
  r.sites = nccl_releases_from_sites(warns, trail);
  // The trail's places and the WARNs' together fit no release (a build between tags can move
  // some lines and not others): the WARNs' alone, as before the trail was read.
  if (!r.sites.known() && !trail.empty() && !warns.empty())
    r.sites = nccl_releases_from_sites(warns);
  name_call(r.sites.known() ? r.sites.mask : ~0ULL);
  return r;
}

// The spec of the releases that have a fixed bug: the entry's `versions` and before `fixed_in`.
std::string bug_releases(const NcclKbEntry& e) {
  return (e.versions.empty() ? "" : e.versions + ",") + "<" + e.fixed_in;
}

// The entry applies to the releases the log shows (all, when it shows none). A release told by
// the WARNs' places must be in `versions` for some release of its range, and for a fixed bug
// every release of the range must have the bug.
bool in_releases(const NcclKbEntry& e, const LogReleases& r) {
  if (!e.versions.empty()) {
    if (!r.printed.empty()) {
      bool any = false;
      for (const std::string& v : r.printed) any = any || nccl_version_in(v, e.versions);
      if (!any) return false;
    } else if (r.sites.known() && !r.sites.some_in(e.versions)) {
      return false;
    }
  }
  if (!e.fixed_in.empty()) {
    // A bug NCCL fixed in a release is not read into RCCL's log: whether RCCL carries it, and in
    // which ROCm release it was fixed, NCCL's release notes do not say.
    if (r.rccl) return false;
    // A fixed bug: only a log that shows one release that has it (in `versions` and older than
    // `fixed_in`); a 2.18 + 2.22 log does not have a bug of 2.19.1 .. 2.21.4.
    bool has_bug = false;
    for (const std::string& v : r.printed)
      has_bug = has_bug || ((e.versions.empty() || nccl_version_in(v, e.versions)) &&
                            nccl_version_in(v, "<" + e.fixed_in));
    if (r.printed.empty() && r.sites.known()) has_bug = r.sites.all_in(bug_releases(e));
    if (!has_bug) return false;
  }
  return true;
}

// The entry reads the line's text: kind, level, printing file and match (releases aside).
// `any_file`: the entry's `in_file` is not asked of a line that does not say where it was
// printed (fixed_bugs() below).
bool reads_text(const NcclKbEntry& e, const NcclKbLine& line, bool any_file = false) {
  if ((e.kind == NcclKbKind::kTrail) != line.trail) return false;
  if (!line.library.empty() && e.kind != NcclKbKind::kPassthrough &&
      !(line.library == "libfabric" && e.file == "libfabric-efa.yaml"))
    return false;
  // A framework's line (level kAny) may quote a WARN: NCCL keeps the text of its last WARN
  // for ncclGetLastError() (src/debug.cc:263-270, src/init.cc:3445 @ v2.30.7-1), which
  // PyTorch prints after "Last error:". INFO text never reaches it.
  if (e.level != NcclKbLevel::kAny && e.level != line.level &&
      !(e.level == NcclKbLevel::kWarn && line.level == NcclKbLevel::kAny))
    return false;
  if (e.in_file && !(any_file && line.file.empty()) &&
      (line.file.empty() || !search(*e.in_file, line.file)))
    return false;
  // As printed, or in NCCL's spelling when RCCL printed HIP names (an entry is written for one).
  for (const std::string* t : {&line.message, &line.spelled}) {
    if (t->empty() && t == &line.spelled) break;
    if ((e.literal.empty() || t->find(e.literal) != std::string::npos) && search(e.match, *t))
      return true;
  }
  return false;
}

// The text every match of `pattern` starts with: its literal characters up to the first
// wildcard, class, group, alternation or anchor (one made optional by a quantifier is dropped).
std::string leading_literal(std::string_view p) {
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char lit = p[i];
    std::size_t next = i + 1;
    if (lit == '\\') {
      if (i + 1 >= p.size() || std::isalnum(static_cast<unsigned char>(p[i + 1]))) break;
      lit = p[i + 1];
      next = i + 2;
    } else if (std::string_view(".[]()*+?{}|^$").find(lit) != std::string_view::npos) {
      break;
    }
    if (next < p.size() && (p[next] == '?' || p[next] == '*' || p[next] == '{')) break;
    out += lit;
    i = next - 1;
  }
  return out;
}

// The shortest message a cut line may be: shorter, too many formats begin with it.
constexpr std::size_t kCutMinChars = 24;

const NcclKbEntry* cut_reading_of(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                  const LogReleases& r, std::string_view m);

// A WARN whose copy was cut short mid-message (a thread's stored text, a terminal's last column:
// "NET/OFI Couldn't set FI_OPT_E"): the entry whose leading literal text begins with the whole
// message, when exactly one does (kind, level, printing file and releases as for a whole line)
// and no two of the messages NCCL's and the plugins' sources print begin with it.
const NcclKbEntry* cut_reading(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                               const LogReleases& r) {
  if (line.trail || line.level == NcclKbLevel::kInfo || !line.library.empty()) return nullptr;
  // As printed, else in NCCL's spelling (RCCL's HIP names).
  for (const std::string* t : {&line.message, &line.spelled}) {
    if (t->empty()) continue;
    if (const NcclKbEntry* e = cut_reading_of(kb, line, r, *t)) return e;
  }
  return nullptr;
}

const NcclKbEntry* cut_reading_of(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                  const LogReleases& r, std::string_view m) {
  while (!m.empty() && (m.back() == ' ' || m.back() == '\t')) m.remove_suffix(1);
  if (m.size() < kCutMinChars) return nullptr;
  // Two of the messages NCCL and its plugins print begin so (the knowledge base may hold one of
  // them only): the cut could be either.
  if (nccl_messages_share_beginning(m)) return nullptr;
  const NcclKbEntry* found = nullptr;
  for (const NcclKbEntry& e : kb.entries()) {
    // A fixed bug's entry repeats its message's text; the message's own entry reads the line.
    if (e.kind == NcclKbKind::kTrail || e.level == NcclKbLevel::kInfo || !e.fixed_in.empty())
      continue;
    if (e.in_file && (line.file.empty() || !search(*e.in_file, line.file))) continue;
    if (!in_releases(e, r)) continue;
    const std::string lit = leading_literal(e.match.text);
    if (lit.size() <= m.size() || lit.compare(0, m.size(), m) != 0) continue;
    if (found && found != &e) return nullptr;  // several formats begin so: none is the reading
    found = &e;
  }
  return found;
}

std::vector<const NcclKbEntry*> matches(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                        const LogReleases& r) {
  std::vector<const NcclKbEntry*> out;
  for (const NcclKbEntry& e : kb.entries())
    if (in_releases(e, r) && reads_text(e, line)) out.push_back(&e);
  if (out.empty())
    if (const NcclKbEntry* e = cut_reading(kb, line, r)) out.push_back(e);
  return out;
}

bool when_holds(const NcclKbWhen& w, const NcclRunFacts& f, const LogReleases& r,
                const NcclKbLine* line);

// The bugs fixed in a later release that print `line`, when the log's release is not known, or
// its WARNs' places tell a range of releases only some of which have the bug; and, in a log whose
// release has a bug NCCL printed from one place (`in_file`), when the line does not say where it
// was printed (a framework's "Last error:" quote of NCCL's last WARN, a WARN pasted without its
// file:line), so the place that would decide it is not in the log.
std::vector<const NcclKbCause*> fixed_bugs(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                           const NcclRunFacts& f, const LogReleases& r) {
  std::vector<const NcclKbCause*> out;
  const bool known_release = !r.printed.empty();
  if (known_release && !line.file.empty()) return out;  // matches() decided
  for (const NcclKbEntry& e : kb.entries()) {
    if (e.fixed_in.empty() || e.causes.empty()) continue;
    if (known_release && (!e.in_file || !in_releases(e, r))) continue;
    if (!reads_text(e, line, known_release)) continue;
    // A range every release of which has the bug (matches() read it) or none does.
    if (!known_release && r.sites.known() &&
        (r.sites.all_in(bug_releases(e)) || !r.sites.some_in(bug_releases(e))))
      continue;
    // The bug's cause as the entry states it, when the log does not rule its context out.
    if (when_holds(e.causes.front().when, f, r, &line)) out.push_back(&e.causes.front());
  }
  return out;
}

}  // namespace

std::vector<const NcclKbEntry*> nccl_kb_matches(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                                const NcclRunFacts& f) {
  return matches(kb, line, log_releases(f, nccl_kb_lines(f)));
}

std::vector<const NcclKbCause*> nccl_kb_fixed_bugs(const NcclKnowledgeBase& kb,
                                                   const NcclKbLine& line, const NcclRunFacts& f) {
  return fixed_bugs(kb, line, f, log_releases(f, nccl_kb_lines(f)));
}

namespace {

// The lines `log_has` reads: every line the analyser kept.
bool log_has(const NcclKbRegex& r, const NcclRunFacts& f) {
  auto hit = [&](const LogLine& l) { return search(r, l.text); };
  auto any = [&](const std::vector<LogLine>& v) { return std::any_of(v.begin(), v.end(), hit); };
  for (const NcclWarning& w : f.warnings)
    if (hit(w.first)) return true;
  for (const auto* o : {&f.first_error_return, &f.init_complete_line, &f.mnnvl_line,
                        &f.ib_no_device, &f.ibverbs_missing, &f.net_type_mismatch,
                        &f.roce_link_local_gid, &f.gdr_disabled_by_distance})
    if (*o && hit(**o)) return true;
  if (any(f.first_error_trail) || any(f.failure_info) || any(f.unrecognised) || any(f.last_lines) ||
      any(f.plugin_messages) || any(f.socket_interfaces) || any(f.bootstrap_interfaces) ||
      any(f.topology_files))
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

bool nccl_kb_when_holds(const NcclKbWhen& w, const NcclRunFacts& f, const NcclKbLine* line) {
  return when_holds(w, f, log_releases(f, nccl_kb_lines(f)), line);
}

namespace {

// The log would show a variable NCCL reports "set by environment" (INFO, subsystem ENV): it
// shows one, or it holds NCCL's INFO setup lines (NCCL_DEBUG=INFO) from a release whose default
// NCCL_DEBUG_SUBSYS includes ENV - 2.16.5 on (src/debug.cc:18 "NCCL_INIT|NCCL_ENV" @ v2.16.5-1;
// NCCL_INIT alone @ v2.16.2-1 and before). Otherwise a setting's absence is unknown.
bool info_shown(const NcclRunFacts& f, const LogReleases& r) {
  if (!f.env.empty()) return true;
  const bool info = !f.networks.empty() || !f.socket_interfaces.empty() || !f.net_devices.empty() ||
                    !f.comms.empty() || !f.transports.empty() || !f.plugin_messages.empty();
  if (!info) return false;
  if (r.printed.empty()) return r.sites.all_in(">=2.16.5");
  for (const std::string& v : r.printed)
    if (!nccl_version_in(v, ">=2.16.5")) return false;
  return true;
}

// Every host the log shows runs one process (one pid), and one of them drives several GPUs: the
// ranks of a host share that process, its proxy threads included. Several ranks of that pid where
// its communicator lines name them; else several devices in its lines' [dev] prefixes - the
// printing thread's current device, which a thread that never set one prints as 0, so only when
// no rank is known (src/debug.cc: cudaGetDevice of the printing thread).
bool one_process(const NcclRunFacts& f) {
  struct Host {
    long pid = 0;
    std::set<int> ranks, devices;
  };
  std::map<std::string, Host> by_host;
  for (const auto& [k, s] : f.streams) {
    // Lines without a host:pid prefix say nothing of their process.
    if (s.pid <= 0 || s.host.empty() || s.host == kUnprefixedHost) return false;
    auto [it, fresh] = by_host.try_emplace(s.host);
    if (fresh) it->second.pid = s.pid;
    if (it->second.pid != s.pid) return false;
    if (s.rank >= 0) it->second.ranks.insert(s.rank);
    it->second.devices.insert(s.cuda_dev);
  }
  for (const auto& [h, x] : by_host)
    if (x.ranks.size() > 1 || (x.ranks.empty() && x.devices.size() > 1)) return true;
  return false;
}

// `line_has` reads the line the entry reads: its text, or its message where the kept text was
// clipped before it (a framework's long line quoting NCCL's WARN at its end).
bool line_has(const NcclKbRegex& r, const NcclKbLine& line) {
  return search(r, line.line.text) || search(r, line.message);
}

// A release told by the WARNs' places holds a version condition when every release of its range
// does. `line_has` reads the line the entry reads (none: it does not hold).
bool when_holds(const NcclKbWhen& w, const NcclRunFacts& f, const LogReleases& r,
                const NcclKbLine* line) {
  if (w.line_has && !(line && line_has(*w.line_has, *line))) return false;
  if (!w.link_layer.empty()) {
    // The devices NCCL listed, and the GIDs it prints for RoCE ports only (knowledge/
    // nccl_link_layer.h).
    const NcclLinkLayer l = nccl_link_layer_shown(f).layer;
    const bool eth = l == NcclLinkLayer::kRoce || l == NcclLinkLayer::kBoth;
    const bool ib = l == NcclLinkLayer::kInfiniband || l == NcclLinkLayer::kBoth;
    if (!(w.link_layer == "Ethernet" ? eth : ib)) return false;
  }
  if (w.net) {
    bool ok = false;
    for (const std::string& n : f.networks) ok = ok || search(*w.net, n);
    // A connection line names it too ("via NET/IB/1/GDRDMA": IB), where the "Using network"
    // line is not in the excerpt.
    for (const auto& [k, t] : f.transports) {
      if (ok || t.label.rfind("NET/", 0) != 0) continue;
      const std::string n = t.label.substr(4, t.label.find('/', 4) - 4);
      ok = !n.empty() && search(*w.net, n);
    }
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
    for (const std::string& v : r.printed) ok = ok || nccl_version_in(v, w.nccl);
    if (r.printed.empty()) ok = r.sites.all_in(w.nccl);
    if (!ok) return false;
  }
  if (!w.driver.empty() && (f.cuda_driver.empty() || !nccl_version_in(f.cuda_driver, w.driver)))
    return false;
  if (w.multi_node && *w.multi_node != f.multi_node()) return false;
  if (w.mnnvl && *w.mnnvl != f.mnnvl_line.has_value()) return false;
  if (w.info_shown && *w.info_shown != info_shown(f, r)) return false;
  if (w.one_process && *w.one_process != one_process(f)) return false;
  if (w.container && *w.container != f.framework.container.has_value()) return false;
  if (w.gdr) {
    auto g = gdr_in_use(f);
    if (!g || *g != *w.gdr) return false;
  }
  if (w.rccl && *w.rccl != r.rccl) return false;
  if (w.log_has && !log_has(*w.log_has, f)) return false;
  if (w.trail_call && !(r.silent && r.call.known() && search(*w.trail_call, r.call.callee)))
    return false;
  if (w.framework &&
      std::none_of(f.framework.frameworks.begin(), f.framework.frameworks.end(),
                   [&](const std::string& name) { return search(*w.framework, name); }))
    return false;
  return true;
}

// A cause the log rules out is not one of the line's other causes: one whose NCCL versions the
// log's release excludes (printed, or told by the WARNs' places: a maintainer does not offer a
// cause of releases the job does not run), or one the message's own text excludes (`line_has`:
// "failed with 110" is not the ENODEV cause). Other conditions the log does not show stay open
// (a log is often an excerpt).
bool ruled_out(const NcclKbWhen& w, const LogReleases& r, const NcclKbLine& line) {
  if (w.line_has && !line_has(*w.line_has, line)) return true;
  // The trail names another call, or a WARN before it names the failure: it did not start
  // silently in this one.
  if (w.trail_call && r.call.known() && (!r.silent || !search(*w.trail_call, r.call.callee)))
    return true;
  // A version line says whose log it is: an AMD cause is not one of an NVIDIA log's, nor the
  // reverse.
  if (w.rccl && r.producer_known && *w.rccl != r.rccl) return true;
  if (w.nccl.empty()) return false;
  if (!r.printed.empty()) {
    for (const std::string& v : r.printed)
      if (nccl_version_in(v, w.nccl)) return false;
    return true;
  }
  return r.sites.known() && !r.sites.some_in(w.nccl);
}

// The text a passthrough entry names: its required literal, or, where its match also lists the
// error's enum names ("out of memory|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY"), the
// literal of the one alternative that is not a bare name. Empty for several texts.
std::string passed_text(const NcclKbEntry& passed) {
  if (!passed.literal.empty()) return passed.literal;
  const std::string& m = passed.match.text;
  std::string text;
  int depth = 0, texts = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= m.size(); ++i) {
    const char c = i < m.size() ? m[i] : '|';
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c != '|' || depth != 0) continue;
    std::string_view alt = std::string_view(m).substr(begin, i - begin);
    begin = i + 1;
    if (alt.ends_with("\\b")) alt.remove_suffix(2);
    const bool name = !alt.empty() && alt.find_first_not_of(
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
                                          "mnopqrstuvwxyz0123456789_") == std::string_view::npos;
    if (name) continue;
    ++texts;
    text = nccl_kb_required_literal(alt);
  }
  return texts == 1 ? text : std::string();
}

// A CUDA / libc string NCCL passes through (a passthrough entry) yields to the NCCL message
// that quotes it when that message's own text says much more: nvls.cc's "Failed to bind NVLink
// SHARP (NVLS) Multicast memory of size N : CUDA error 2 'out of memory'" is the multicast
// reading, not the GPU's memory. A generic "Cuda failure '%s'" entry does not say more, and a
// passthrough matched by several texts (no literal of its own) is not compared.
bool quotes_more(const NcclKbEntry& message, const NcclKbEntry& passed) {
  if (passed.kind != NcclKbKind::kPassthrough || message.kind != NcclKbKind::kMessage ||
      nccl_kb_is_signature(message))
    return false;
  const std::size_t quoted = passed_text(passed).size();
  return quoted >= 8 && message.literal.size() > 2 * quoted;
}

// The printing file first, then a bug of the log's release: a fixed bug of one file (include/
// shm.h) comes before that file's ordinary entry.
int specificity(const NcclKbEntry& e) { return (e.in_file ? 2 : 0) + (e.fixed_in.empty() ? 0 : 1); }
}  // namespace

Severity nccl_kb_severity(const NcclMessageReading& r) {
  // A cause the log shows may carry its own severity (a failure NCCL falls back from). That
  // severity stands even where the WARN starts the first error trail: the trail ends in the
  // fallback (GIN's probe failing before "Using network Socket"). An entry's own warning that
  // starts the first failure is the failure.
  const bool cause_says = r.cause_seen && r.cause->severity;
  const Severity base = cause_says ? *r.cause->severity : r.entry->severity;
  return r.starts_failure && !cause_says && base == Severity::kWarning ? Severity::kError : base;
}

bool nccl_kb_is_signature(const NcclKbEntry& e) {
  return e.file == "signatures.yaml" || e.kind == NcclKbKind::kPassthrough;
}

namespace {

// `line` is a line of the first error trail, and its nearest caller in another source file (the
// trail's next line not printed from `line`'s own file) matches `r`. Only the nearest: whose
// socket failed is told by who called misc/socket.cc, not by the callers further up (bootstrap
// is itself called from transport/generic.cc, nvls.cc, coll_net.cc from 2.24).
bool trail_via(const NcclKbRegex& r, const NcclKbLine& line, const NcclRunFacts& f) {
  const auto same = [&](const LogLine& l) {
    return l.where.source == line.line.where.source && l.where.line == line.line.where.line;
  };
  const std::string own = line.file.substr(0, line.file.rfind(':')) + ":";  // "misc/socket.cc:"
  bool in_trail = f.first_error_return && same(*f.first_error_return);
  for (const LogLine& l : f.first_error_trail) {
    if (in_trail && (own.size() < 2 || l.text.find(own) == std::string::npos))
      return search(r, l.text);
    in_trail = in_trail || same(l);
  }
  return false;
}

}  // namespace

std::vector<NcclMessageReading> read_nccl_messages(const NcclRunFacts& f,
                                                   const NcclKnowledgeBase& kb) {
  std::vector<NcclMessageReading> out;
  std::map<const NcclKbEntry*, std::size_t> index;
  std::vector<NcclKbLine> lines = nccl_kb_lines(f);
  const LogReleases releases = log_releases(f, lines);
  // The WARN where the failure started (failure_warn).
  bool cut_trail = false;
  const LogLine* start = failure_warn(f, lines, &cut_trail);
  const Provenance start_at = start ? start->where : Provenance{};
  for (NcclKbLine& line : lines) {
    const NcclKbEntry* best = nullptr;
    const NcclKbCause* best_cause = nullptr;
    bool best_seen = false;
    for (const NcclKbEntry* e : matches(kb, line, releases)) {
      if (e->not_via && trail_via(*e->not_via, line, f)) continue;
      // The first cause whose `when` holds; when none does (the log does not show the context
      // that decides), the entry still reads the line, with its first cause the log does not
      // rule out as the likeliest.
      const NcclKbCause* c = nullptr;
      for (const NcclKbCause& x : e->causes)
        if (when_holds(x.when, f, releases, &line)) {
          c = &x;
          break;
        }
      const bool seen = c != nullptr;
      // The likeliest is the first the log does not rule out (not one keyed on another errno).
      if (!c) {
        const auto open = std::find_if(e->causes.begin(), e->causes.end(), [&](const auto& x) {
          return !ruled_out(x.when, releases, line);
        });
        if (open != e->causes.end()) c = &*open;
      }
      if (!c && !e->causes.empty()) c = &e->causes.front();
      if (!c) continue;
      // The entry the line's own context selects comes first: one tied to the source file that
      // printed it (the transport that failed), then a bug fixed after the log's release. Then
      // a signature (the curated table nccl-known-signature reads, checked against the
      // maintainers' stated causes) keeps its line; then an entry whose context the log shows;
      // then the higher rank.
      bool better = !best;
      if (!better && specificity(*e) != specificity(*best))
        better = specificity(*e) > specificity(*best);
      else if (!better && nccl_kb_is_signature(*e) != nccl_kb_is_signature(*best))
        better = nccl_kb_is_signature(*e) ? !quotes_more(*best, *e) : quotes_more(*e, *best);
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
        if (&x != best_cause && !ruled_out(x.when, releases, line)) r.others.push_back(&x);
      // No version in the log (or the log's release has a bug of one place, and the line does
      // not name its place): a bug fixed in a later release that prints this message is one
      // more cause to ask about ("if your NCCL is older than X"), after the message's likeliest
      // ones and among the three the finding names.
      if (best->fixed_in.empty()) {
        std::vector<const NcclKbCause*> bugs = fixed_bugs(kb, line, f, releases);
        // The log prints a release that has the bug and nothing it shows decides between the
        // message's own causes: the known bug of that release is the likeliest, the others
        // follow (hiyouga/LlamaFactory#1169: 2.18.5's cudaMemcpyAsync race, quoted after "Last
        // error:" without its place).
        // Only one such bug: where several fit (2.25.1's Blackwell shared memory and its cuMem
        // host NUMA bug), the line does not tell them apart, and each stays among the causes.
        const bool decided = r.cause_seen && !r.cause->when.empty();
        if (bugs.size() == 1 && !decided && !releases.printed.empty() && line.file.empty()) {
          r.others.insert(r.others.begin(), r.cause);
          r.cause = bugs.front();
          r.cause_seen = false;  // the likeliest: the line does not say where it was printed
          bugs.erase(bugs.begin());
        }
        for (const NcclKbCause* c : bugs)
          r.others.insert(r.others.begin() + std::min<std::size_t>(r.others.size(), 2), c);
      }
      // The releases the WARNs' places tell: what every entry, fixed bug and version condition
      // above was read against, also where it removed one.
      r.releases = releases.sites;
      if (!line.file.empty()) r.file_subsystem = kb.subsystem_of_file(file_of(line.file));
      r.line = line;
      out.push_back(std::move(r));
    }
    NcclMessageReading& r = out[it->second];
    if (start && line.line.where.source == start_at.source &&
        line.line.where.line == start_at.line) {
      r.starts_failure = true;
      r.starts_cut_trail = cut_trail;
    }
    if (before(line.line, r.line.line)) {
      r.file_subsystem = line.file.empty() ? "" : kb.subsystem_of_file(file_of(line.file));
      r.line = line;
    }
    // A later line of the same message may show a cause the first one ruled out (another errno).
    if (!inserted)
      for (const NcclKbCause& x : r.entry->causes)
        if (&x != r.cause && std::find(r.others.begin(), r.others.end(), &x) == r.others.end() &&
            x.when.line_has && !ruled_out(x.when, releases, line))
          r.others.push_back(&x);
    r.count += line.count;
    r.messages.insert(line.message);
    for (const std::string& h : line.hosts)
      if (r.hosts.size() < 64) r.hosts.insert(h);
  }
  // A reading of the first error trail's first line names the call NCCL checked there.
  for (NcclMessageReading& r : out)
    if (r.line.trail && f.first_error_return &&
        r.line.line.where.line == f.first_error_return->where.line &&
        r.line.line.where.source == f.first_error_return->where.source)
      r.call = releases.call;
  // As a maintainer reads: errors before warnings, a specific message before the generic
  // trail, then the first failure in time, then the more decisive entry.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (nccl_kb_severity(a) != nccl_kb_severity(b))
      return nccl_kb_severity(a) > nccl_kb_severity(b);
    const bool at = a.entry->kind == NcclKbKind::kTrail, bt = b.entry->kind == NcclKbKind::kTrail;
    if (at != bt) return bt;
    if (a.line.line.where.line != b.line.line.where.line) return before(a.line.line, b.line.line);
    return a.entry->rank > b.entry->rank;
  });
  return out;
}

}  // namespace trainready
