// The analyser's readers of problems (WARN lines, framework errors, plain lines) and the end of a
// read (hosts told apart, graphs flushed, the last lines).
#include <algorithm>
#include <cctype>

#include "knowledge/nccl_problem_words.h"
#include "parsers/libfabric_log_line.h"
#include "parsers/nccl_framework.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_internal.h"
#include "parsers/nccl_tests_exit.h"
#include "parsers/nccl_warn_join.h"
#include "parsers/ucx_log_line.h"

namespace trainready {
namespace {

// What a launcher or collector put before the line: `raw` less its normalised `text` (nullopt
// when normalising changed more than the front, e.g. took colour out of the middle).
std::optional<std::string_view> prefix_of(std::string_view raw, std::string_view text) {
  thread_local std::string decoded;  // a Docker json-file line: the line it holds
  raw = docker_json_log(raw, decoded);
  while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  thread_local std::string plain;  // a coloured line: its prefix is what is left without colour
  if (std::memchr(raw.data(), '\x1b', raw.size()) != nullptr) raw = strip_colour(raw, plain);
  if (raw.size() < text.size() || raw.substr(raw.size() - text.size()) != text) return std::nullopt;
  return raw.substr(0, raw.size() - text.size());
}

// Whether a line behind prefix `a` may go on a WARN that came behind `b`: the same writer's
// prefix (equal, or a timestamp of the same shape: its digits move on), or none at all (a
// wrap in the paste; NCCL's own "[%F %T] " WARN timestamp is not repeated on the lines a WARN
// goes on over).
bool same_prefix(std::string_view a, std::string_view b) {
  // The blanks after a prefix are the line's own indent (normalising takes them with it).
  auto untrail = [](std::string_view& x) {
    while (!x.empty() && (x.back() == ' ' || x.back() == '\t')) x.remove_suffix(1);
  };
  untrail(a);
  untrail(b);
  if (a.empty() || a == b) return true;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (a.size() != b.size() || a.size() < 10 || !digit(a[0]) || !digit(b[0])) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (digit(a[i]) != digit(b[i]) || (!digit(a[i]) && a[i] != b[i])) return false;
  return true;
}

}  // namespace

bool NcclLogAnalyzer::State::hold_warn(std::string_view raw, std::string_view text, std::uint64_t n,
                                       std::size_t k) {
  std::size_t message = 0;
  if (k > 0) {
    const NcclRecord& r = recs[k - 1];
    if ((r.level != NcclLevel::kWarn && r.level != NcclLevel::kAbort) || r.cut) return false;
    message = static_cast<std::size_t>(r.message.data() - text.data());
  } else if (const std::size_t w = find(text, "NCCL WARN "); w != std::string_view::npos) {
    message = w + 10;  // a WARN without its head: plain() reads it
  } else if (!last_error_follows || n != last_error_line + 1 || trim(text).empty()) {
    return false;  // PyTorch's "Last error:" line is followed by the NCCL message: held too
  }
  const auto prefix = prefix_of(raw, text);
  if (!prefix || message > text.size()) return false;
  held.text.assign(text.data(), text.size());
  held.prefix.assign(prefix->data(), prefix->size());
  held.message = message;
  // A terminal cuts the line as it shows it, launcher prefix and NCCL's timestamp included
  // (a Docker json-file line's framing is not shown: prefix_of decodes it first).
  held.width = terminal_columns(*prefix) + terminal_columns(text);
  held.n = n;
  held.joins = 0;
  held.active = true;
  return true;
}

bool NcclLogAnalyzer::State::join_held(std::string_view raw, std::string_view text, bool cut) {
  WarnJoin j = WarnJoin::kNo;
  if (find_nccl_tag(text, 0) != std::string_view::npos) {  // NCCL's next line: the usual case
    release_held();
    return false;
  }
  const auto prefix = prefix_of(raw, text);
  // A line that is only a prefix ("2024-05-01T12:34:56Z " and nothing) is an empty line.
  if (!cut && prefix && same_prefix(*prefix, held.prefix) && held.joins < 4 &&
      held.text.size() < 2048 && line_prefix_length(text) == 0 && !is_junk(text))
    j = warn_continuation(std::string_view(held.text).substr(held.message), held.width, text);
  if (j == WarnJoin::kNo) {
    release_held();
    return false;
  }
  // A blank at the end of the held line was where the line broke: the words stay apart.
  bool blank = false;
  while (!held.text.empty() && (held.text.back() == ' ' || held.text.back() == '\t')) {
    held.text.pop_back();
    blank = true;
  }
  if (j == WarnJoin::kSpace || blank) held.text += ' ';
  const std::string_view t = trim(text);
  held.text.append(t.data(), t.size());
  held.width = terminal_columns(*prefix) + terminal_columns(text);
  ++held.joins;
  return true;
}

namespace {

// A message without the blanks and the column bar a collector puts after it ("... list | ").
std::string_view trim_column_bar(std::string_view m) {
  m = trim(m);
  if (!m.empty() && m.back() == '|') m = trim(m.substr(0, m.size() - 1));
  return m;
}

}  // namespace

void NcclLogAnalyzer::State::release_held() {
  held.active = false;
  std::string text;
  text.swap(held.text);  // swapped back below: the buffer is reused from WARN to WARN
  const std::uint64_t n = held.n;
  const std::uint64_t line_now = cur_line;
  const std::string_view raw_now = cur_raw;
  const bool views = tail_views;
  cur_line = n;
  cur_raw = held.prefix;  // where the held line's timestamp is
  tail_views = false;     // `text` is gone once this returns: the tail copies
  const std::size_t k = split_nccl_records(text, recs, 8);
  if (k == 0) {
    if (!f.binary_junk && is_junk(text)) f.binary_junk = true;
    plain(text, n);
  } else {
    for (std::size_t i = 0; i < k; ++i) record(recs[i], n);
  }
  cur_line = line_now;
  cur_raw = raw_now;
  tail_views = views;
  text.clear();
  held.text.swap(text);
}

void NcclLogAnalyzer::State::library_warning(std::string_view library, std::string_view provider,
                                             std::string_view site, std::string_view level,
                                             std::string_view message, std::string_view text,
                                             std::uint64_t n) {
  ++f.library_warn_lines[std::string(library)];
  constexpr std::size_t kSitesPerLibrary = 16;
  std::size_t kept = 0;
  for (const auto& w : f.library_warnings) {
    if (w.library != library) continue;
    if (w.provider == provider && w.site == site) return;
    ++kept;
  }
  if (kept >= kSitesPerLibrary) return;
  f.library_warnings.push_back({std::string(library), log_line(text, n), std::string(provider),
                                std::string(site), std::string(level), quote(message)});
}

void NcclLogAnalyzer::State::classify_problem(std::string_view m, const std::string& host,
                                              std::string_view text, std::uint64_t n,
                                              bool is_warn) {
  bool completion = false;
  for (std::string_view w : kNcclIbCompletionWords) completion = completion || has(m, w);
  if (completion) {
    NcclIssue& i = issue(NcclProblem::kIbCompletionError, host, text, n);
    std::string_view peer = word_after(m, "from peer ");
    if (!peer.empty()) cap_insert(i.peers, std::string(peer));
    auto err = int_after(m, "with error ");
    if (!err) err = int_after(m, "completion error ");
    if (!err) err = int_after(m, "status=");
    if (!err) {  // "status=IBV_WC_RETRY_EXC_ERR(12)"
      std::size_t p = find(m, "status=");
      if (p != std::string_view::npos) err = int_after(m.substr(p), "(");
    }
    if (err) cap_insert(i.details, "error " + std::to_string(*err));
    auto vend = int_after(m, "vendor err ");
    if (!vend) vend = int_after(m, "vendor_err=");
    if (vend) cap_insert(i.details, "vendor err " + std::to_string(*vend));
    return;
  }
  if (has(m, "ibv_modify_qp failed")) {
    NcclIssue& i = issue(NcclProblem::kModifyQpFailed, host, text, n);
    std::size_t w = find(m, "failed with ");
    if (w != std::string_view::npos) cap_insert(i.details, quote(m.substr(w + 12)));
    return;
  }
  if (has(m, "Mismatched NCCL version") || has(m, "version mismatch")) {
    issue(NcclProblem::kVersionMismatch, host, text, n);
    return;
  }
  for (std::string_view c : kNcclConnectionFailureWords) {
    if (has(m, c)) {
      NcclIssue& i = issue(NcclProblem::kConnectionFailed, host, text, n);
      cap_insert(i.details, std::string(c));
      std::string_view peer = word_after(m, "Connect to ");  // also "...PollConnect to X"
      if (peer.empty()) peer = word_after(m, "from ");
      if (!peer.empty() && peer.find('<') != std::string_view::npos)
        cap_insert(i.peers, std::string(peer));
      return;
    }
  }
  if (has(m, "unhandled system error") || has(m, "ncclSystemError")) {
    issue(NcclProblem::kSystemError, host, text, n);
    return;
  }
  if (has(m, "Cuda failure") || has(m, "unhandled cuda error") || has(m, "CUDA error")) {
    issue(NcclProblem::kCudaError, host, text, n);
    return;
  }
  if (has(m, "internal error") || has(m, "ncclInternalError") || has(m, "invalid usage")) {
    issue(NcclProblem::kInternalError, host, text, n);
    return;
  }
  if (is_warn) issue(NcclProblem::kOtherWarning, host, text, n);
}

// A WARN line's message counted; a message new to the log keeps the failure lines around it.
void NcclLogAnalyzer::State::warning_seen(std::string_view m, const std::string& host,
                                          std::string_view text, std::uint64_t n, const void* who) {
  // Past the table's cap a message is "new" each time: the latest warnings still get windows.
  if (add_warning(m, host, text, n)) failures.warn(who);
}

void NcclLogAnalyzer::State::warn(const NcclRecord& r, NcclStream& s, std::uint64_t n) {
  std::string_view m = r.message;
  // A WARN of the first trail's thread right after it: the caller printed its own WARN instead of
  // NCCLCHECK's "-> code" (transport/net_socket.cc's "socket progress error"), one more line of
  // that call path, which ends it.
  if (f.first_error_return && !f.deeper_error_return) other_trail_ends(record_head(r.text));
  last_record(record_head(r.text), true);
  if (first_trail_open) {
    const std::string_view head = record_head(r.text);
    if (same_thread(head, first_trail_head)) {
      if (f.first_error_trail.size() < 32) f.first_error_trail.push_back(log_line(r.text, n));
      first_trail_open = false;
    }
  }
  warning_seen(m, s.host, r.text, n, &s);
  if (has(m, "NET/IB") && has(m, "No device found")) proc_of(s).p.ib_devices = false;
  if (has(m, "libibverbs")) {
    if (!f.ibverbs_missing) f.ibverbs_missing = log_line(r.text, n);
    return;
  }
  if (has(m, "NET/IB") && has(m, "No device found")) {
    if (!f.ib_no_device) f.ib_no_device = log_line(r.text, n);
    return;
  }
  if (!f.ofi_plugin_warning && starts(m, "NET/OFI ")) f.ofi_plugin_warning = log_line(r.text, n);
  // The socket types of include/socket.h (v2.16.2-1 ..): 3 NET/Socket, 4 NET/IB.
  if (!f.net_type_mismatch && has(m, "socketFinalizeAccept") &&
      (has(m, "wrong type 4 != 3") || has(m, "wrong type 3 != 4")))
    f.net_type_mismatch = log_line(r.text, n);
  classify_problem(m, s.host, r.text, n, true);
}

void NcclLogAnalyzer::State::nccl_tests_device(std::string_view t) {
  auto pid = int_after(t, "Pid ");
  if (!pid) {
    std::size_t p = find(t, "Pid ");
    if (p != std::string_view::npos) {
      std::size_t q = p + 4;
      while (q < t.size() && t[q] == ' ') ++q;
      pid = parse_int(t.substr(q, t.find(' ', q) - q));
    }
  }
  std::size_t on = find(t, " on ");
  std::size_t b = find(t, "] ");
  if (!pid || on == std::string_view::npos || b == std::string_view::npos) return;
  std::string_view host = trim(t.substr(on + 4));
  host = host.substr(0, host.find(' '));
  std::string_view gpu = trim(t.substr(b + 2));
  if (host.empty() || gpu.empty()) return;
  Proc& p = proc(host, *pid);
  if (p.p.gpus.size() < 8) p.p.gpus.emplace(gpu);
}

namespace {
// Host names a paste cut or an interleaved write mangled, each mapped to the whole name: a host
// with one stream of one line whose name ends the name of another host with the same pid and
// device, where that line is its file's first NCCL line (an excerpt that starts one character
// into its line: vllm-project/vllm#15100's "eepseek-v2-5-0") or falls inside that host's own
// lines (two writers fused a line: NVIDIA/nccl#706's "[15]23:83:2526" between lines of
// "[15]worker-23:83:..."). At most 64; the streams are at most kStreamCap.
std::map<std::string, std::string> cut_host_names(
    const std::map<std::string, NcclStream>& streams) {
  std::vector<std::pair<std::string, const NcclStream*>> first_in_file;
  std::map<std::string_view, int> streams_of;
  std::map<std::pair<long, int>, std::vector<const NcclStream*>> lasting;
  for (const auto& kv : streams) {
    const NcclStream& st = kv.second;  // a lambda below captures it
    ++streams_of[st.host];
    if (st.first_seen.line != st.last_seen.line) {
      auto& v = lasting[{st.pid, st.cuda_dev}];
      if (v.size() < 8) v.push_back(&st);
    }
    auto e = std::find_if(first_in_file.begin(), first_in_file.end(),
                          [&](const auto& p) { return st.first_seen.source == p.first; });
    if (e == first_in_file.end()) {
      if (first_in_file.size() < 16) first_in_file.emplace_back(st.first_seen.source.str(), &st);
    } else if (st.first_seen.line < e->second->first_seen.line) {
      e->second = &st;
    }
  }
  std::map<std::string, std::string> whole;
  for (const auto& kv : streams) {
    const NcclStream& st = kv.second;  // a lambda below captures it
    if (st.first_seen.line != st.last_seen.line || st.host.empty() || streams_of[st.host] != 1)
      continue;
    const auto it = lasting.find({st.pid, st.cuda_dev});
    if (it == lasting.end()) continue;
    const bool starts_file = std::any_of(first_in_file.begin(), first_in_file.end(),
                                         [&](const auto& p) { return p.second == &st; });
    for (const NcclStream* o : it->second) {
      if (o->host.size() <= st.host.size() || !o->host.ends_with(st.host)) continue;
      const bool inside = o->first_seen.source == st.first_seen.source &&
                          o->first_seen.line < st.first_seen.line &&
                          st.first_seen.line < o->last_seen.line;
      if (starts_file || inside) {
        whole[st.host] = o->host;
        break;
      }
    }
    if (whole.size() >= 64) break;
  }
  return whole;
}
}  // namespace

void NcclLogAnalyzer::State::finish_hosts() {
  // Graphs printed after the rank's last communicator line (init never completed, or a log
  // without communicator lines) go to the communicator it joined last, if any.
  std::vector<const NcclStream*> left;
  for (const auto& [st, p] : pending_graph) left.push_back(st);
  std::sort(left.begin(), left.end(), [](const NcclStream* a, const NcclStream* b) {
    return std::tie(a->first_seen.source, a->first_seen.line, a->host, a->pid, a->cuda_dev) <
           std::tie(b->first_seen.source, b->first_seen.line, b->host, b->pid, b->cuda_dev);
  });
  for (const NcclStream* st : left) {
    auto c = stream_comm.find(st);
    flush_graph(st, c == stream_comm.end() ? nullptr : c->second);
  }
  const std::map<std::string, std::string> whole_name = cut_host_names(f.streams);
  const auto whole = [&](const std::string& name) -> const std::string& {
    auto it = whole_name.find(name);
    return it == whole_name.end() ? name : it->second;
  };
  for (auto& [k, p] : procs) p.name = whole(p.name);
  // Names that two machines share (a default "user", "localhost", a container id) are told
  // apart by the address each process bootstrapped from.
  std::map<std::string, std::set<std::string>> addrs_of;
  for (const auto& [k, p] : procs)
    if (!p.address.empty()) addrs_of[p.name].insert(p.address);
  auto label = [&](const std::string& name, const std::string& addr) {
    auto it = addrs_of.find(name);
    if (it == addrs_of.end() || it->second.size() < 2 || addr.empty()) return name;
    return name + " (" + addr + ")";
  };
  for (auto& [k, st] : f.streams) {
    st.host = whole(st.host);
    st.host_name = st.host;
    auto pit = procs.find(st.host + ":" + std::to_string(st.pid));
    if (pit != procs.end()) st.host = label(st.host_name, pit->second.address);
    // Lines without NCCL's host:pid:tid head (a pasted ring's connection lines): labelled as
    // their version lines are, not an empty name.
    if (st.host.empty()) st.host = std::string(kUnprefixedHost);
  }
  // A host named by twelve lower-case hex digits is a container's: Docker (and Podman) set a
  // container's hostname to its short id unless told otherwise (docker run --hostname), so the
  // job ran in a container although no line says `docker run` (THUDM/GLM#173's "595d69b310a0").
  if (!f.framework.container) {
    for (const auto& [k, st] : f.streams) {
      const std::string& h = st.host_name;
      const bool short_id =
          h.size() == 12 &&
          std::all_of(h.begin(), h.end(),
                      [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) &&
          std::any_of(h.begin(), h.end(), [](char c) { return c >= 'a'; });
      if (!short_id) continue;
      f.framework.container = FrameworkCue{
          "a container's hostname (Docker's or Podman's short id)",
          h + ":" + std::to_string(st.pid) + " (the host of NCCL's lines)", st.first_seen};
      break;
    }
  }
  // Communicator membership by host label; a rank two hosts both claim marks separate jobs.
  std::map<NcclCommunicator*, std::map<int, std::set<std::string>>> claims;
  for (const std::vector<Membership>* ms : {&memberships, &destroy_memberships}) {
    for (const Membership& m : *ms) {
      m.comm->rank_hosts[m.rank] = m.stream->host;
      auto& hs = claims[m.comm][m.rank];
      hs.insert(m.stream->host);
      if (hs.size() > 1)
        for (const auto& h : hs) cap_insert(m.comm->rank_clash_hosts, h);
    }
  }
  for (auto& [k, p] : procs) {
    const std::string l = label(p.name, p.address);
    NcclHostProfile& h = f.host_profiles[l];
    if (h.first.where.source.empty()) h.first = p.p.first;
    h.addresses.insert(p.p.addresses.begin(), p.p.addresses.end());
    h.bootstrap_ifaces.insert(p.p.bootstrap_ifaces.begin(), p.p.bootstrap_ifaces.end());
    h.init_start_seen = h.init_start_seen || p.p.init_start_seen;
    if (h.socket_ifaces.empty()) h.socket_ifaces = p.p.socket_ifaces;
    for (const auto& [e, v] : p.p.env) h.env.emplace(e, v);
    h.networks.insert(p.p.networks.begin(), p.p.networks.end());
    h.versions.insert(p.p.versions.begin(), p.p.versions.end());
    h.gpus.insert(p.p.gpus.begin(), p.p.gpus.end());
    h.plugin.insert(p.p.plugin.begin(), p.p.plugin.end());
    h.plugin_libraries.insert(p.p.plugin_libraries.begin(), p.p.plugin_libraries.end());
    h.loader_releases.insert(p.p.loader_releases.begin(), p.p.loader_releases.end());
    if (p.p.ib_devices && (!h.ib_devices || *p.p.ib_devices)) h.ib_devices = p.p.ib_devices;
    if (f.host_profiles.size() > (1u << 16)) break;
  }
  for (std::size_t k = 0; k < slots.size(); ++k) {
    std::set<std::string> hs;
    for (const Live& l : lives)
      if (l.transports & (std::uint64_t{1} << k)) hs.insert(l.s->host);
    slots[k].use->host_total = hs.size();
  }
  std::set<std::string> all = f.hosts();
  for (const auto& [h, p] : f.host_profiles) all.insert(h);
  all.erase("");
  // Lines without a host name do not tell a machine of their own beside a named one (nccl-tests'
  // "on NAME device 0" and the same process's NCCL lines whose head the paste mangled).
  if (all.size() > 1) all.erase(std::string(kUnprefixedHost));
  f.host_count = all.size();
  // The last lines, oldest first.
  for (std::size_t i = 0; i < tail_count; ++i) {
    const TailLine& t = tail[(tail_next + kTail - tail_count + i) % kTail];
    const std::string& file_name = t.file >= 0 && static_cast<std::size_t>(t.file) < f.files.size()
                                       ? f.files[static_cast<std::size_t>(t.file)]
                                       : file;
    f.last_lines.push_back(
        {quote(std::string_view(t.text, t.len)),
         {file_name, static_cast<int>(std::min<std::uint64_t>(t.n, 2147483647))}});
  }
  failures.finish(f.failure_info, f.failure_info_folded);
  f.ib_ports_folded = ib_mtus.folded();
  f.ib_port_mtus = ib_mtus.finish();
  if (ring_claims.any_claim()) {
    for (const Membership& m : memberships) ring_claims.member(m.stream, m.rank);
    f.host_device_clash = ring_claims.finish();
  }
}

// A framework's line (nccl_framework.h), an event it adds stamped with the line's time.
void NcclLogAnalyzer::State::framework_line(std::string_view line, std::uint64_t n) {
  const std::size_t before = f.framework.events.size();
  read_framework_line(line, file, n, f.framework);
  for (std::size_t i = before; i < f.framework.events.size(); ++i)
    f.framework.events[i].time = time_of(n);
}

namespace {
// The NCCL version a framework appends to its error ("..., NCCL version 2.18.3"): PyTorch's
// getNcclVersion (torch/csrc/distributed/c10d/NCCLUtils.cpp, until it learnt "NCCL changed version
// coding starting 2.9") and PaddlePaddle's copy decode ncclGetVersion's code as major = code /
// 1000, minor = code % 1000 / 100. That is right for the codes before 2.9 (X*1000 + Y*100 + Z) and
// wrong after (X*10000 + Y*100 + Z, nccl.h NCCL_VERSION): 2.11.4 (21104) is printed "21.1.4". A
// major of 20 to 29 is that decoding (NCCL has no such major): undone here; else as printed.
std::string framework_nccl_version(std::string_view v) {
  std::size_t e = 0;
  while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
  std::string_view text = v.substr(0, e);
  while (!text.empty() && text.back() == '.') text.remove_suffix(1);
  unsigned part[3] = {};
  std::size_t i = 0;
  for (unsigned& p : part) {
    const std::size_t start = i;
    while (i < text.size() && i - start < 3 && text[i] >= '0' && text[i] <= '9')
      p = p * 10 + static_cast<unsigned>(text[i++] - '0');
    if (i == start || (&p != &part[2] && (i >= text.size() || text[i++] != '.')))
      return std::string(text);
  }
  if (i != text.size() || part[0] < 20 || part[0] > 29 || part[1] > 9 || part[2] > 99)
    return std::string(text);
  const unsigned code = part[0] * 1000 + part[1] * 100 + part[2];
  return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." +
         std::to_string(code % 100);
}

// "WARN: Function: ofi_init Line: 686: " (the length of the head, and whether it is a WARN), or
// {0, false}: the logger of aws-ofi-nccl's functional tests (tests/functional/test-common.h,
// printf("WARN: Function: %s Line: %d: ", filefunc, line); INFO and TRACE alike).
std::pair<std::size_t, bool> ofi_test_logger_head_at(std::string_view t) {
  bool warn_level = false;
  std::size_t i = 0;
  if (t.starts_with("WARN: Function: ")) {
    warn_level = true;
    i = 16;
  } else if (t.starts_with("INFO: Function: ")) {
    i = 16;
  } else if (t.starts_with("TRACE: Function: ")) {
    i = 17;
  } else {
    return {0, false};
  }
  const std::size_t line = t.find(" Line: ", i);
  if (line == std::string_view::npos || line == i || line - i > 1024) return {0, false};
  std::size_t d = line + 7;
  const std::size_t first = d;
  while (d < t.size() && t[d] >= '0' && t[d] <= '9') ++d;
  if (d == first || d + 1 >= t.size() || t[d] != ':' || t[d + 1] != ' ') return {0, false};
  return {d + 2, warn_level};
}

// The same behind a launcher's "<host>: " (pdsh, mpirun's host tag): one word, then ": "
// (aws/aws-ofi-nccl#67: "10.3.35.83: WARN: Function: find_ofi_provider Line: 543: ...").
std::pair<std::size_t, bool> ofi_test_logger_head(std::string_view t) {
  if (const auto h = ofi_test_logger_head_at(t); h.first > 0) return h;
  const std::size_t c = t.find(": ");
  if (c == std::string_view::npos || c == 0 || c >= 256 ||
      t.substr(0, c).find(' ') != std::string_view::npos)
    return {0, false};
  const auto [head, warn] = ofi_test_logger_head_at(t.substr(c + 2));
  return head > 0 ? std::pair<std::size_t, bool>{c + 2 + head, warn}
                  : std::pair<std::size_t, bool>{0, false};
}
}  // namespace

void NcclLogAnalyzer::State::headless_warn(std::string_view m, std::string_view t,
                                           std::uint64_t n) {
  // A WARN without a head is one more line of the headless thread: it ends that thread's trail
  // (the next "-> code" line is a new failure), as warn() does for a thread with a head.
  if (first_trail_open && first_trail_head.empty()) first_trail_open = false;
  if (f.first_error_return && !f.deeper_error_return) other_trail_ends({});
  last_record({}, true);
  ++f.nccl_lines;
  warning_seen(m, "", t, n, nullptr);
  remember_tail(t, n);
  classify_problem(m, "", t, n, true);
}

// A line without a NCCL record: framework output (PyTorch), the bare version banner, noise.
void NcclLogAnalyzer::State::plain(std::string_view line, std::uint64_t n) {
  if (last_error_follows) {
    // "Last error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000"
    last_error_follows = false;
    const std::string_view t = trim(line);
    std::string_view m = t;
    // The next line only (a NCCL record between ends it), behind the same tag where one was seen:
    // another host's line interleaved is not this message.
    bool next = n == last_error_line + 1;
    if (!last_error_tag.empty()) {
      next = next && m.starts_with(last_error_tag);
      if (next) m = trim(m.substr(last_error_tag.size()));
    }
    if (next && !m.empty()) {
      ++f.nccl_lines;
      if (f.last_error_messages.size() < 16) f.last_error_messages.push_back(log_line(t, n).where);
      add_warning(m, "", t, n);
      return;
    }
  }
  // One search for NCCL's name serves its diagnostics lines here and the reading below (this
  // runs for every line of a training job's own output).
  const std::string_view unchanged = line;
  const bool named = has(line, "NCCL");
  if (diag_line(line, n, named)) return;
  if (f.nccl_tests_table_file.empty() || f.nccl_tests_file.empty()) {
    // nccl-tests' own '#' lines, perhaps behind a launcher prefix ("[1,0]<stdout>:#  size ...");
    // one search for the '#' serves both readings below (this runs for every line).
    const std::size_t hash = line.find('#');
    const bool marked = hash != std::string_view::npos && hash < 64;
    // Its table header: the file holds a result the nccl-tests reader can judge beside the log.
    // Its summary, too ("# Out of bounds values : 0 OK"): an excerpt that starts past the
    // header still holds rows and the verdict.
    if (marked && f.nccl_tests_table_file.empty() &&
        ((has(line, "size") && has(line, "busbw")) || has(line, "Out of bounds values")))
      f.nccl_tests_table_file = file;
    // Any of nccl-tests' own lines: that table or summary, or a run's header ("# nThread 1
    // nGpus 6 minBytes ..."; src/common.cu prints it first, before the device list).
    if (f.nccl_tests_file.empty()) {
      if (!f.nccl_tests_table_file.empty())
        f.nccl_tests_file = f.nccl_tests_table_file;
      else if (marked && has(line, "nThread") && has(line, "nGpus"))
        f.nccl_tests_file = file;
    }
  }
  if (!line.empty() && line[0] == '#') {
    if (has(line, " Rank ") && has(line, " device ")) {
      nccl_tests_device(line);
      if (!f.nccl_tests_devices) f.nccl_tests_devices = log_line(trim(line), n);
      if (f.nccl_tests_ranks < (1u << 30)) ++f.nccl_tests_ranks;
    }
    // gdb's backtrace frames ("#0 0x... in ncclShmOpen(...)") are the framework reader's.
    if (line.size() > 1 && line[1] >= '0' && line[1] <= '9') framework_line(line, n);
    return;
  }
  // The first failure wins over an earlier success (a preflight run of another test that ended
  // with 0 above the one that failed).
  if (!f.nccl_tests_exit || f.nccl_tests_exit_status == 0)
    if (const auto e = parse_nccl_tests_exit(line); e && (!f.nccl_tests_exit || e->status != 0)) {
      f.nccl_tests_exit = log_line(trim(line), n);
      f.nccl_tests_exit_status = e->status;
    }
  framework_line(line, n);  // PyTorch, vLLM, DeepSpeed ...: framework.h
  // rdma-core's libibverbs writes its warnings to the same stderr as NCCL's lines (PFX
  // "libibverbs: ", libibverbs/init.c): kept apart (a provider per line can precede the one
  // that matters), for the knowledge base's passthrough entries to read (a device no provider
  // drives: NCCL finds no IB device).
  if (const std::string_view t = trim(line); starts(t, "libibverbs: ")) {
    // One line of each kind (the text before its first name, path or number: "couldn't load
    // driver '...'" once whatever the provider), so a run of one kind leaves room for the rest.
    constexpr std::size_t kVerbsKinds = 16;
    auto kind = [](std::string_view x) {
      std::size_t e = 12;
      while (e < x.size() && x[e] != '/' && !(x[e] >= '0' && x[e] <= '9') &&
             !(x[e] == '\'' && x[e - 1] == ' '))
        ++e;
      return x.substr(0, e);
    };
    bool seen = false;
    for (const LogLine& l : f.verbs_lines) seen = seen || kind(l.text) == kind(t);
    if (!seen && f.verbs_lines.size() < kVerbsKinds) f.verbs_lines.push_back({quote(t), at(n)});
    return;
  }
  // libfabric's own log lines (src/log.c, parsers/libfabric_log_line.h): its warnings kept apart,
  // one per place in its source, for the knowledge base's libfabric entries to read. Two texts
  // of 1.18.0 - 1.18.3 end without a newline, so the next line of libfabric's is glued on: each
  // is read. A collector's columns may come first ("  | 2025-05-16T16:39:51.208-07:00libfabric:
  // 85:...", CloudWatch as pasted in aws/aws-ofi-nccl#889).
  if (const std::size_t lf = find_libfabric_head(line); lf != std::string_view::npos) {
    std::string_view t = trim(line.substr(lf));
    std::optional<LibfabricLogLine> l = read_libfabric_log_line(t);
    if (l) {
      std::string_view prev_site, prev_message;
      while (l) {
        std::string_view message = l->message;
        std::optional<LibfabricLogLine> next;
        auto end_of = [&](std::string_view m) {
          return static_cast<std::size_t>(m.data() + m.size() - t.data());
        };
        for (std::size_t p = message.find("libfabric:"); p != std::string_view::npos && !next;
             p = message.find("libfabric:", p + 1))
          if ((next = read_libfabric_log_line(message.substr(p)))) message = message.substr(0, p);
        // A collector's copy of the same line after a bar ("... | libfabric:...") is one line.
        const bool copy = prev_site == l->site && prev_message == trim_column_bar(message);
        if (l->level == "warn" && !copy)
          library_warning("libfabric", l->provider, l->site, l->level, trim_column_bar(message),
                          trim_column_bar(t.substr(0, end_of(message))), n);
        prev_site = l->site;
        prev_message = trim_column_bar(message);
        if (next) t = t.substr(end_of(message));
        l = next;
      }
      return;
    }
  }
  // UCX's own log lines (src/ucs/debug/log.c, parsers/ucx_log_line.h): its warnings and errors
  // kept apart the same way.
  {
    std::string_view t = trim(line);
    while (!t.empty() && t[0] == '>') t = trim(t.substr(1));  // quoted in a thread's markdown
    if (const auto u = read_ucx_log_line(t)) {
      if (u->level == "WARN" || u->level == "ERROR" || u->level == "FATAL")
        library_warning("UCX", u->component, u->site, u->level, trim(u->message), t, n);
      return;
    }
  }
  // aws-ofi-nccl's functional tests (nccl_message_transfer, ring, ...) hand the plugin a logger
  // of their own, "WARN: Function: %s Line: %d: " or "INFO: ..." before the plugin's text
  // (tests/functional/test-common.h; functional_test.cpp from v1.14): read as NCCL's logger
  // prints the plugin's lines, a WARN as a WARN without its host prefix.
  // The plugin's NCCL_OFI_WARN / NCCL_OFI_INFO put "NET/OFI " before every text: another
  // program's line in that shape is not the plugin's.
  {
    const std::string_view t = trim(line);
    const auto [head, warn_level] = ofi_test_logger_head(t);
    const std::string_view m = head > 0 ? trim(t.substr(head)) : std::string_view();
    if (starts(m, "NET/OFI ")) {
      if (warn_level) return headless_warn(m, t, n);
      ++f.nccl_lines;  // the plugin's INFO or TRACE, read below as a headless "NET/OFI " line
      line = m;
    }
  }
  // RCCL's version block, printed to stdout bare and into NCCL_DEBUG_FILE as one INFO message
  // whose later lines carry no record head ("HIP version  : ...", "ROCm version : ...").
  // Read as NCCL's bare banner is (not counted as a NCCL line).
  if (const std::string_view t = trim(line); starts(t, "RCCL version ")) {
    return rccl_version(t.substr(13), t, n);
  } else if (rocm_version(t)) {
    return;
  }
  // A line that starts with a net transport's tag ("NET/IB : ", "NET/Socket : ", a plugin's
  // "NET/OFI ", "NET/IBP:") is NCCL's message (or its plugin's, through NCCL's logger) without
  // its "NCCL WARN" head: classified like one below.
  // So is a line that quotes one of NCCL's own result texts no other library prints
  // (ncclGetErrorString, src/init.cc: "unhandled cuda error", "unhandled system error"), as an
  // issue title quotes it without naming NCCL.
  const bool nccl = (line.data() == unchanged.data() ? named : has(line, "NCCL")) ||
                    has(line, "nccl") || starts(trim(line), "NET/") ||
                    has(line, "unhandled cuda error") || has(line, "unhandled system error");
  const bool coll = has(line, "collective");
  if (!nccl && !coll) {
    const std::string_view t = trim(line);
    if (t == "Last error:") {
      last_error_follows = true;
      last_error_line = n;
      last_error_tag.clear();
    } else if (t.ends_with(" Last error:")) {
      // Behind a launcher's host tag, one word with its colon ("node2: Last error:").
      const std::string_view tag = t.substr(0, t.size() - 12);
      if (tag.size() > 1 && tag.size() <= 128 && tag.back() == ':' &&
          tag.find_first_of(" \t") == std::string_view::npos) {
        last_error_follows = true;
        last_error_line = n;
        last_error_tag.assign(tag.data(), tag.size());
      }
    }
    return;
  }
  std::string_view t = trim(line);
  if (std::size_t w = find(t, "NCCL WARN "); w != std::string_view::npos) {
    // A WARN line without the host:pid:tid prefix (a capture that dropped it).
    return headless_warn(trim(t.substr(w + 10)), t, n);
  }
  if (std::size_t lw = find(t, "Last NCCL warning"); lw != std::string_view::npos) {
    // JAX / XLA: "... Last NCCL warning(error): 'Bootstrap : no socket interface found'"
    ++f.nccl_lines;
    add_warning(t.substr(lw), "", t, n);
    return;
  }
  if (starts(t, "nccl") && t.size() > 4 && t[4] >= 'A' && t[4] <= 'Z' && t.find(':') < 40 &&
      !has(t, "NCCL INFO")) {
    // "ncclSocketInit: connecting to address with family 0 ..." / "ncclInvalidUsage: ...": one of
    // NCCL's names (nccl + a capital), not a person's "nccl version: 2.12.12" or "nccl-tests ...:".
    add_warning(t, "", t, n);
  }
  std::size_t v = find(t, "NCCL version ");
  if (v != std::string_view::npos) {
    // The banner rank 0 prints bare ("NCCL version 2.7.8+cuda10.2"), perhaps behind a launcher
    // prefix ("[rank0]: ", "0: "), or the version PyTorch appends to an NCCL error.
    std::string_view before = trim(t.substr(0, v));
    const bool banner = before.empty() || before.back() == ':';
    // The bare banner belongs to the host whose lines surround it (same process, rank 0).
    const std::string host = last_stream ? last_stream->host : std::string();
    if (banner) {
      version(t.substr(v + 13), host, t, n, nullptr);
      return;
    }
    if (has(t, "NCCL error"))
      version(framework_nccl_version(t.substr(v + 13)), host, t, n, nullptr);
  }
  // vLLM's and SGLang's own NCCL communicator (pynccl) logs the library it loaded:
  // logger.info("vLLM is using nccl==%s", ncclGetVersion()) in
  // vllm/distributed/device_communicators/pynccl.py (also "... (via nccl4py)"), "sglang is using
  // nccl==%s" in SGLang's copy; ncclGetVersion() there formats NCCL's own version code.
  if (std::size_t u = find(t, " is using nccl=="); u != std::string_view::npos) {
    version(t.substr(u + 16), last_stream ? last_stream->host : std::string(), t, n, nullptr);
    return;
  }
  if (has(t, "Watchdog caught collective operation timeout")) {
    CollectiveTimeout c;
    c.rank = static_cast<int>(int_after(t, "[Rank ").value_or(-1));
    c.seq = int_after(t, "SeqNum=").value_or(-1);
    c.op = std::string(word_after(t, "OpType=", ","));
    c.timeout_ms = int_after(t, "Timeout(ms)=").value_or(-1);
    c.ran_ms = int_after(t, "ran for ").value_or(-1);
    c.line = log_line(t, n);
    if (f.timeouts.size() < 256) f.timeouts.push_back(std::move(c));
    return;
  }
  // The work the watchdog names, on the line under it where a paste broke the message there
  // ("Watchdog caught collective operation timeout:" / "WorkNCCL(SeqNum=1, OpType=ALLREDUCE)").
  if (starts(t, "WorkNCCL(SeqNum=") && !f.timeouts.empty()) {
    CollectiveTimeout& c = f.timeouts.back();
    const LogLine here = log_line(t, n);
    if (c.seq < 0 && c.line.where.source == here.where.source &&
        c.line.where.line + 1 == here.where.line) {
      c.seq = int_after(t, "SeqNum=").value_or(-1);
      c.op = std::string(word_after(t, "OpType=", ",)"));
      if (c.timeout_ms < 0) c.timeout_ms = int_after(t, "Timeout(ms)=").value_or(-1);
      if (c.ran_ms < 0) c.ran_ms = int_after(t, "ran for ").value_or(-1);
      return;
    }
  }
  if (has(t, "didn't join collective") || has(t, "didn't finish collective") ||
      has(t, "joined but didn't finish") || has(t, "is not responding")) {
    LaggingRank l;
    std::size_t b = t.find('[');
    if (b != std::string_view::npos)
      l.rank = static_cast<int>(int_after(t.substr(b), "[").value_or(-1));
    l.text = quote(t);
    l.line = log_line(t, n);
    if (f.lagging.size() < 256) f.lagging.push_back(std::move(l));
    return;
  }
  if (nccl) classify_problem(t, "", t, n, false);
}

}  // namespace trainready
