#include "parsers/nccl_log.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/input_error.h"
#include "core/line_reader.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/nccl_framework.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_record.h"

namespace trainready {
namespace {

constexpr std::size_t kQuoteMax = 240;
constexpr std::size_t kExamples = 5;
constexpr std::size_t kSetCap = 64;

bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && std::memcmp(s.data(), p.data(), p.size()) == 0;
}
// A literal prefix: its length is a constant, so the compare is a few loads, not a call.
template <std::size_t N>
bool starts(std::string_view s, const char (&p)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), p, N - 1) == 0;
}
// Substring search anchored on the needle's first non-space character: memchr skips most of a
// line at once, where a general search steps on every space.
std::size_t find(std::string_view s, std::string_view p, std::size_t from = 0) {
  if (p.empty()) return from <= s.size() ? from : std::string_view::npos;
  std::size_t k = 0;
  while (k + 1 < p.size() && p[k] == ' ') ++k;
  const char anchor = p[k];
  std::size_t i = from + k;
  while (i < s.size()) {
    const void* hit = std::memchr(s.data() + i, anchor, s.size() - i);
    if (!hit) return std::string_view::npos;
    i = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    const std::size_t start = i - k;
    if (start + p.size() > s.size()) return std::string_view::npos;
    if (std::memcmp(s.data() + start, p.data(), p.size()) == 0) return start;
    ++i;
  }
  return std::string_view::npos;
}
bool has(std::string_view s, std::string_view p) { return find(s, p) != std::string_view::npos; }

// The integer right after `key` ("nranks 64" with key "nranks "), if there is one.
std::optional<long> int_after(std::string_view s, std::string_view key) {
  std::size_t p = find(s, key);
  if (p == std::string_view::npos) return std::nullopt;
  p += key.size();
  bool neg = p < s.size() && s[p] == '-';
  if (neg) ++p;
  long v = 0;
  std::size_t d = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9' && d < 18) {
    v = v * 10 + (s[p] - '0');
    ++p;
    ++d;
  }
  if (d == 0) return std::nullopt;
  return neg ? -v : v;
}

// The token right after `key`, up to a space or one of `stops`.
std::string_view word_after(std::string_view s, std::string_view key, std::string_view stops = "") {
  std::size_t p = find(s, key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  std::size_t e = p;
  while (e < s.size() && s[e] != ' ' && s[e] != '\t' && stops.find(s[e]) == std::string_view::npos)
    ++e;
  return s.substr(p, e - p);
}

std::string quote(std::string_view s) {
  s = trim(s);
  return clip_text(s, kQuoteMax);
}

template <class Set>
void cap_insert(Set& set, const std::string& v) {
  if (set.size() < kSetCap || set.count(v)) set.insert(v);
}

bool is_junk(std::string_view line) {
  std::size_t bad = 0;
  for (unsigned char c : line) {
    if (c == 0 || (c < 0x20 && c != '\t' && c != '\x1b')) ++bad;
  }
  return bad > 0;
}

// Lines NCCL prints that carry nothing the rules use; known, so not counted as unknown.
constexpr std::string_view kKnownPrefixes[] = {
    "Ring",
    "Trees",
    "Tree ",
    "threadThresholds",
    "Setting affinity",
    "Connected",
    "P2P Chunksize",
    "cudaDriverVersion",
    "Bootstrap",
    "DMA-BUF",
    "=== System",
    "CPU/",
    "+ ",
    "GPU/",
    "NET/",
    "Pattern",
    "New proxy",
    "Connection to proxy",
    "Allocated",
    "Mem Realloc",
    "RAS ",
    "UDS",
    "[Proxy",
    "Init timings",
    "TOPO/",
    "Retrieving",
    "Initialized",
    "Assigned",
    "ncclTopo",
    "dlvsym",
    "PROFILER",
    "TUNER",
    "CC ",
    "Check P2P",
    "Max NThreads",
    "Protocol",
    "resp.opId",
    "proxyProgress",
    "ncclPollProxy",
    "Received and",
    "NCCL git",
    "==========",
    "Topology",
    "Graph",
    "Enabled",
    "nvmlInit",
    "Could not",
    "Trying to load",
    "Loaded",
    "Channel",
    "comm ",
    "Comm config",
    "MNNVL",
    "NVLS",
    "CollNet",
    "Plugin",
    "ncclCommInit",
    "[Rank",
    "Memory ",
    "cuMem",
    "Symmetric",
    "NCCL_",
    "Using",
    "Launch mode",
    "Nvls",
    "GPU Direct",
    "rank ",
    "init.cc",
    "misc/",
    "transport",
    "proxy",
    "enqueue",
    "group.cc",
    "channel.cc",
    "graph/",
    "ib_plugin",
    "net.cc",
    "bootstrap",
    "Dump",
    "NCCL INFO",
};

// "misc/socket.cc:567 -> 2", "bootstrap.cc:270 -> 2 [Async thread]": NCCL's trace of an error
// return, file:line then the ncclResult_t.
bool error_return(std::string_view m) {
  std::size_t colon = m.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 48) return false;
  std::string_view file = m.substr(0, colon);
  if (!(file.size() > 3 &&
        (file.substr(file.size() - 3) == ".cc" || file.substr(file.size() - 3) == ".cu" ||
         file.substr(file.size() - 2) == ".h")))
    return false;
  std::size_t i = colon + 1;
  while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
  return i > colon + 1 && starts(m.substr(i), " -> ") && i + 4 < m.size() && m[i + 4] >= '1' &&
         m[i + 4] <= '9';
}

// An INFO line worded as a failure: kept for the knowledge base (failure INFO sites, issue 30).
bool failure_worded(std::string_view m) {
  static constexpr std::string_view kWords[] = {
      "ail",   "rror",    "nable",  "annot",     "nvalid", "ismatch",
      "xceed", "refused", "imeout", "timed out", "bort",   "upported",
      "not ",  "No ",     "no ",    "isabled",   "RROR",   "gnoring"};
  for (std::string_view w : kWords)
    if (m.find(w) != std::string_view::npos) return true;
  return false;
}

bool known_info(std::string_view m) {
  m = trim(m);
  if (m.empty()) return true;
  if (m[0] >= '0' && m[0] <= '9') return true;  // graph channel dumps " 0 : GPU/0 GPU/1"
  for (std::string_view p : kKnownPrefixes) {
    if (starts(m, p)) return true;
  }
  // Tuning table rows: "   Broadcast |  ..."
  return has(m, " |");
}

}  // namespace

struct CollectiveLine {
  std::string_view name;  // "AllReduce", "" when not printed
  std::uint64_t bytes = 0;
  std::string_view algo, proto;
  int lo = -1, hi = -1;
  bool tuning = false;  // an algorithm-selection line with its size
};
bool collective_line(std::string_view m, CollectiveLine& c);

struct NcclLogAnalyzer::State {
  NcclRunFacts f;
  std::string file;
  // Each stream with what the analyser keeps beside it: which transports it logged (a bit per
  // entry of `slots`), so a connection line costs no set or map operation once seen.
  struct Proc;
  struct Live {
    NcclStream* s = nullptr;
    std::uint64_t transports = 0;
    Proc* proc = nullptr;  // its process's Proc, found once instead of by name on each line
  };
  std::deque<Live> lives;
  Live* cur_live = nullptr;  // the stream of the record
  // Past the stream cap, records go here: per analyser, since a Live points into this one's Procs.
  NcclStream overflow;
  Live overflow_live;
  std::unordered_map<std::uint64_t, std::vector<Live*>> by_pid;  // (pid, device)
  // The transports met so far, in order (at most kSetCap, one bit each in Live::transports):
  // a connection line finds its entry by comparing a few bytes, without building a key.
  struct TransportSlot {
    std::string label;
    bool gdr = false;
    TransportUse* use = nullptr;
  };
  std::vector<TransportSlot> slots;
  std::set<std::string> topo_settings;  // NCCL_TOPO_FILE=... already listed
  // The heads of records seen ("[rank7]: host:pid:tid [dev]", the bytes before " NCCL "), each
  // with what parsing it gave and its stream: a large job's lines come from a few thousand
  // heads, so a line whose head is known skips the head parser and the stream lookup.
  struct HeadSlot {
    std::string head;
    std::size_t host_off = 0;
    std::size_t host_len = 0;
    long pid = 0;
    int dev = -1;
    NcclStream* stream = nullptr;
    Live* live = nullptr;
  };
  static constexpr std::size_t kHeadSlots = 16384;  // direct-mapped; a collision re-parses
  std::vector<HeadSlot> heads;  // allocated with the first head: small inputs never pay for it
  static std::size_t head_hash(std::string_view h) {
    std::uint64_t x = h.size() * 0x9E3779B97F4A7C15ull;
    std::size_t i = 0;
    for (; i + 8 <= h.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, h.data() + i, 8);
      x = (x ^ w) * 0xff51afd7ed558ccdull;
      x ^= x >> 32;
    }
    std::uint64_t w = 0;
    std::memcpy(&w, h.data() + i, h.size() - i);
    x = (x ^ w) * 0xc4ceb9fe1a85ec53ull;
    return static_cast<std::size_t>(x ^ (x >> 29));
  }
  // One INFO record behind a known head: handled without the general record splitter.
  bool fast_record(std::string_view text, std::uint64_t n) {
    const std::size_t tag = find_nccl_tag(text, 0);
    if (tag == std::string_view::npos || tag == 0 || tag > 512) return false;
    // The offsets below are inside `text` by construction: plain views, no range checks.
    const char* const p = text.data();
    std::string_view rest(p + tag + 6, text.size() - tag - 6);  // after " NCCL "
    if (!starts(rest, "INFO ")) return false;
    if (heads.empty()) return false;
    const std::string_view head(p, tag);
    HeadSlot& h = heads[head_hash(head) & (kHeadSlots - 1)];
    if (!h.stream || h.head != head) return false;
    if (find_nccl_tag(text, tag + 11) != std::string_view::npos) return false;  // glued records
    NcclRecord& r = recs[0];
    r = NcclRecord{};
    r.host = std::string_view(p + h.host_off, h.host_len);
    r.pid = h.pid;
    r.dev = h.dev;
    r.level = NcclLevel::kInfo;
    r.message = std::string_view(rest.data() + 5, rest.size() - 5);
    r.text = std::string_view(p + h.host_off, text.size() - h.host_off);
    last_stream = h.stream;
    cur_live = h.live;
    record(r, n);
    return true;
  }
  // After the general path read a line holding one INFO record: remember its head, when parsing
  // it depends on nothing but its bytes (not glued to other text) and its stream is known.
  void remember_head(std::string_view text, const NcclRecord& r) {
    if (r.level != NcclLevel::kInfo || r.cut || r.glued || r.host.empty() ||
        !std::isalpha(static_cast<unsigned char>(r.host[0])) || !last_stream || !cur_live ||
        last_stream->pid != r.pid || last_stream->cuda_dev != r.dev || last_stream->host != r.host)
      return;
    const std::size_t tag = find_nccl_tag(text, 0);
    if (tag == std::string_view::npos || tag > 512 || r.message.data() != text.data() + tag + 11 ||
        r.host.data() < text.data())
      return;
    const std::string_view head = text.substr(0, tag);
    if (heads.empty()) heads.resize(kHeadSlots);
    HeadSlot& h = heads[head_hash(head) & (kHeadSlots - 1)];
    h.head.assign(head.data(), head.size());
    h.host_off = static_cast<std::size_t>(r.host.data() - text.data());
    h.host_len = r.host.size();
    h.pid = r.pid;
    h.dev = r.dev;
    h.stream = last_stream;
    h.live = cur_live;
  }
  std::set<std::string, std::less<>> host_names;
  int file_index = -1;
  std::unordered_map<NcclStream*, int> pending_nnodes;
  NcclStream* last_stream = nullptr;
  std::size_t idle_streams = 0;  // streams that have not yet shown collective traffic
  std::string last_algo, last_proto;
  NcclNetDevice spare_device;
  NcclRecord recs[8];

  // Per process (raw host name + pid): its setup lines, merged into host profiles at the end,
  // when two machines that print the same name can be told apart by their addresses.
  struct Proc {
    std::string name;
    std::string address;
    NcclHostProfile p;
  };
  std::map<std::string, Proc> procs;
  std::unordered_map<std::string, std::size_t> warn_index;  // message -> f.warnings index
  struct Membership {
    NcclCommunicator* comm;
    int rank;
    NcclStream* stream;
  };
  std::vector<Membership> memberships;
  // Exact host counts beside the capped samples: the streams that logged each transport or
  // problem (a stream's host is final only after finish_hosts), the last one cached because
  // connection lines come in runs from one stream.
  std::map<NcclProblem, std::set<std::string>> problem_hosts;
  // The last NCCL lines seen: a ring written in place, so it costs no allocation per line.
  struct TailLine {
    char text[kQuoteMax];  // a copy per NCCL line: a plain buffer, no string bookkeeping
    std::size_t len = 0;
    std::uint64_t n = 0;
    int file = -1;
  };
  static constexpr std::size_t kTail = 8;
  TailLine tail[kTail];
  std::size_t tail_next = 0, tail_count = 0;
  bool last_error_follows = false;
  std::uint64_t cur_line = 0;  // the line being read, for provenance of per-process facts  //
                               // PyTorch prints "Last error:" and the NCCL message below

  Proc& proc(std::string_view host, long pid) {
    char num[24];
    auto e = std::to_chars(num, num + sizeof num, pid).ptr;
    std::string key(host);
    key += ':';
    key.append(num, static_cast<std::size_t>(e - num));
    auto [it, inserted] = procs.try_emplace(std::move(key));
    if (inserted) {
      it->second.name = std::string(host);
      it->second.p.first = {"", at(cur_line)};
    }
    return it->second;
  }
  Proc& proc_of(const NcclStream& s) {
    if (cur_live && cur_live->s == &s) {
      if (!cur_live->proc) cur_live->proc = &proc(s.host, s.pid);
      return *cur_live->proc;
    }
    return proc(s.host, s.pid);
  }
  void remember_tail(std::string_view text, std::uint64_t n) {
    TailLine& t = tail[tail_next];
    const std::string_view cut = utf8_prefix(text, kQuoteMax);  // whole characters only
    std::memcpy(t.text, cut.data(), cut.size());
    t.len = cut.size();
    t.n = n;
    t.file = file_index;
    tail_next = (tail_next + 1) % kTail;
    if (tail_count < kTail) ++tail_count;
  }
  void add_warning(std::string_view message, const std::string& host, std::string_view text,
                   std::uint64_t n) {
    ++f.warning_lines;
    std::string msg = quote(message);
    auto it = warn_index.find(msg);
    if (it == warn_index.end()) {
      if (f.warnings.size() >= kSetCap) return;
      it = warn_index.emplace(msg, f.warnings.size()).first;
      NcclWarning w;
      w.message = msg;
      w.first = log_line(text, n);
      f.warnings.push_back(std::move(w));
    }
    NcclWarning& w = f.warnings[it->second];
    ++w.count;
    if (!host.empty()) cap_insert(w.hosts, host);
  }
  void finish_hosts();

  Provenance at(std::uint64_t n) const {
    return {file, static_cast<int>(std::min<std::uint64_t>(n, 2147483647))};
  }
  LogLine log_line(std::string_view text, std::uint64_t n) const { return {quote(text), at(n)}; }

  static std::uint64_t pid_key(long pid, int dev) {
    return (static_cast<std::uint64_t>(pid) << 16) ^ static_cast<std::uint64_t>(dev & 0xffff);
  }

  Live* lookup(std::string_view host, long pid, int dev) const {
    auto it = by_pid.find(pid_key(pid, dev));
    if (it == by_pid.end()) return nullptr;
    for (Live* l : it->second) {
      const NcclStream* st = l->s;
      if (st->pid == pid && st->cuda_dev == dev && st->host == host) return l;
    }
    return nullptr;
  }

  NcclStream& stream(NcclRecord& r, std::uint64_t n) {
    // Consecutive lines often come from the same rank: skip the lookup.
    NcclStream* s = last_stream;
    if (!s || s->pid != r.pid || s->cuda_dev != r.dev || s->host != r.host) {
      Live* l = lookup(r.host, r.pid, r.dev);
      if (!l && !r.host.empty() && !std::isalpha(static_cast<unsigned char>(r.host[0]))) {
        if (std::size_t cut = glued_host_prefix(r.host, host_names); cut > 0) {
          r.host.remove_prefix(cut);
          l = lookup(r.host, r.pid, r.dev);
        }
      }
      s = l ? l->s : nullptr;
      cur_live = l;
      if (!s) {
        if (f.streams.size() >= (1u << 20)) {
          overflow_live.s = &overflow;
          cur_live = &overflow_live;
          return overflow;
        }
        char num[48];
        auto e = std::to_chars(num, num + 20, r.pid).ptr;
        *e++ = ':';
        e = std::to_chars(e, num + 48, r.dev).ptr;
        std::string key(r.host);
        key += ':';
        key.append(num, static_cast<std::size_t>(e - num));
        auto [sit, inserted] = f.streams.try_emplace(std::move(key));
        s = &sit->second;
        if (inserted) {
          s->host.assign(r.host.data(), r.host.size());
          s->pid = r.pid;
          s->cuda_dev = r.dev;
          s->first_seen = at(n);
          lives.push_back({s, 0});
          cur_live = &lives.back();
          by_pid[pid_key(r.pid, r.dev)].push_back(cur_live);
          ++idle_streams;
          if (host_names.size() < (1u << 20)) host_names.emplace(r.host);
        }
      }
    }
    r.host = s->host;
    last_stream = s;
    if (s->file_index != file_index) {
      s->file_index = file_index;
      s->last_seen.source = file;
    }
    s->last_seen.line = at(n).line;
    // What a rank said last matters while it has not finished init (where hangs are).
    if (!s->init_complete) {
      std::string_view m = utf8_prefix(r.message, kQuoteMax);
      s->last_message.assign(m.data(), m.size());
    }
    return *s;
  }

  NcclIssue& issue(NcclProblem p, const std::string& host, std::string_view text, std::uint64_t n) {
    NcclIssue& i = f.issues[p];
    i.problem = p;
    ++i.count;
    if (!host.empty()) {
      cap_insert(i.hosts, host);
      auto& all = problem_hosts[p];
      if (all.size() < (1u << 20)) all.insert(host);
      i.host_total = all.size();
    }
    if (i.examples.size() < kExamples) i.examples.push_back(log_line(text, n));
    return i;
  }

  void version(std::string_view v, const std::string& host, std::string_view text, std::uint64_t n,
               NcclStream* s) {
    std::size_t e = 0;
    while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
    v = v.substr(0, e);
    while (!v.empty() && v.back() == '.') v.remove_suffix(1);
    if (v.empty() || v.size() > 16) return;
    std::string ver(v);
    if (!f.versions.count(ver) && f.versions.size() < kSetCap) f.versions[ver] = log_line(text, n);
    if (f.versions.count(ver))
      cap_insert(f.version_hosts[ver], host.empty() ? "(unprefixed)" : host);
    if (s) s->version = ver;
  }

  void record(NcclRecord& r, std::uint64_t n);
  void collective(const CollectiveLine& c, std::string_view text);
  // The last algorithm-selection line, to count repeats without a map lookup.
  NcclTuningChoice* last_tuning = nullptr;

  // Once every rank known has shown collective traffic, a collective INFO line teaches nothing
  // per rank: recognise it without parsing the record head. Anything else takes the full path.
  bool fast_collective(std::string_view text) {
    const std::size_t tag = find_nccl_tag(text, 0);
    if (tag == std::string_view::npos || tag == 0 || text[tag - 1] != ']') return false;
    std::string_view rest = text.substr(tag + 6);  // after " NCCL "
    if (!starts(rest, "INFO ")) return false;
    std::string_view m = rest.substr(5);
    CollectiveLine c;
    if (!collective_line(m, c)) return false;
    if (find_nccl_tag(m, 0) != std::string_view::npos) return false;  // another record glued on
    ++f.nccl_lines;
    collective(c, text);
    return true;
  }
  // What a rank printed about its graphs since its last communicator line: the log names the
  // communicator before (2.19+ "Init START") or after (older: only "Init COMPLETE") these lines.
  struct PendingGraph {
    int ring_channels = 0;
    int xml_channels = -1;
    std::vector<NcclGraphSearch> searches;
  };
  std::unordered_map<const NcclStream*, PendingGraph> pending_graph;
  std::unordered_map<const NcclStream*, NcclCommunicator*> stream_comm;
  void flush_graph(const NcclStream* s, NcclCommunicator* c);
  void search_line(std::string_view m, const NcclStream& s, std::string_view text, std::uint64_t n);
  void info(const NcclRecord& r, NcclStream& s, std::uint64_t n);
  void warn(const NcclRecord& r, NcclStream& s, std::uint64_t n);
  void classify_problem(std::string_view msg, const std::string& host, std::string_view text,
                        std::uint64_t n, bool is_warn);
  void channel(std::string_view m, const NcclStream& s, std::string_view text, std::uint64_t n);
  void comm_line(std::string_view m, NcclStream& s, std::uint64_t n);
  void net_ib_line(std::string_view m, std::string_view text, std::uint64_t n);
  void plain(std::string_view line, std::uint64_t n);
  void profile_bootstrap(std::string_view m, const NcclStream& s);
  void profile_net_ib(std::string_view m, const NcclStream& s);
  void profile_socket(std::string_view m, const NcclStream& s);
  void nccl_tests_device(std::string_view t);
  NcclNetDevice& device(std::string_view name);
};

NcclNetDevice& NcclLogAnalyzer::State::device(std::string_view name) {
  for (auto& d : f.net_devices) {
    if (d.name == name) return d;
  }
  if (f.net_devices.size() >= kSetCap) return spare_device;  // full: write where nobody reads
  f.net_devices.push_back({});
  f.net_devices.back().name = std::string(name);
  return f.net_devices.back();
}

void NcclLogAnalyzer::State::channel(std::string_view m, const NcclStream& s, std::string_view text,
                                     std::uint64_t n) {
  // The transport ends the line ("... via NET/IB/3/GDRDMA/Shared"): look for " via " from the
  // end, over the few bytes of the token, instead of from the start.
  std::size_t v = std::string_view::npos;
  for (std::size_t len = m.size(); len > 9;) {
    const void* hit = ::memrchr(m.data(), 'v', len);
    if (!hit) break;
    const std::size_t i = static_cast<std::size_t>(static_cast<const char*>(hit) - m.data());
    if (i >= 1 && i + 3 < m.size() && m[i - 1] == ' ' && m[i + 1] == 'i' && m[i + 2] == 'a' &&
        m[i + 3] == ' ') {
      v = i - 1;
      break;
    }
    len = i;
  }
  if (v == std::string_view::npos) {
    // Rank 0's ring listing, "Channel %02d/%02d :" then the ranks (graph/rings.cc): the number
    // after the slash is how many rings the communicator has.
    std::size_t slash = m.find('/');
    if (slash != std::string_view::npos && slash < 16) {
      int rings = 0;
      auto r = std::from_chars(m.data() + slash + 1, m.data() + m.size(), rings);
      if (r.ec == std::errc() && r.ptr < m.data() + m.size() && *r.ptr == ' ' && rings > 0 &&
          rings <= 4096) {
        int& have = pending_graph[&s].ring_channels;
        have = std::max(have, rings);
      }
    }
    return;
  }
  std::string_view t(m.data() + v + 5, m.size() - v - 5);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  // The label names the transport without its device and options: "P2P/CUMEM", "SHM",
  // "NET/IB" (the bytes of the line itself, so nothing is built per line).
  bool gdr = false;
  std::size_t slash1 = std::string_view::npos, slash2 = std::string_view::npos;
  const char* const tp = t.data();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (tp[i] != '/') continue;
    if (slash1 == std::string_view::npos)
      slash1 = i;
    else if (slash2 == std::string_view::npos)
      slash2 = i;
    if (t.size() - i >= 7 && std::memcmp(tp + i, "/GDRDMA", 7) == 0) {
      gdr = true;
      break;
    }
  }
  std::string_view label;
  if (starts(t, "P2P")) {
    label = std::string_view(t.data(), std::min(slash2, t.size()));
  } else if (starts(t, "SHM")) {
    label = "SHM";
  } else if (starts(t, "NET/")) {
    label = std::string_view(t.data(), std::min(slash2, t.size()));
  } else if (starts(t, "COLLNET") || starts(t, "CollNet")) {
    label = "CollNet";
  } else {
    label = utf8_prefix(t, 40);
  }
  std::size_t k = 0;
  while (k < slots.size() && (slots[k].gdr != gdr || slots[k].label != label)) ++k;
  if (k == slots.size()) {
    if (f.transports.size() >= kSetCap) return;
    TransportKind kind = TransportKind::kUnknown;
    if (starts(label, "P2P")) {
      kind = TransportKind::kP2p;
    } else if (label == "SHM") {
      kind = TransportKind::kShm;
    } else if (starts(label, "NET/")) {
      std::string_view name = label.substr(4);
      kind = starts(name, "IB") ? TransportKind::kNetIb
             : name == "Socket" ? TransportKind::kNetSocket
                                : TransportKind::kNetOther;
    } else if (label == "CollNet") {
      kind = TransportKind::kCollNet;
    }
    std::string tkey(label);
    if (gdr) tkey += "/GDRDMA";
    auto it = f.transports.find(tkey);
    if (it == f.transports.end()) {
      TransportUse u;
      u.kind = kind;
      u.label = std::string(label);
      u.gdrdma = gdr;
      u.example = log_line(text, n);
      it = f.transports.emplace(tkey, std::move(u)).first;
    }
    slots.push_back({std::string(label), gdr, &it->second});
  }
  TransportUse& use = *slots[k].use;
  ++use.connections;
  const std::uint64_t bit = std::uint64_t{1} << k;
  if (cur_live && !(cur_live->transports & bit)) {
    cur_live->transports |= bit;
    cap_insert(use.hosts, s.host);
  }
}

void NcclLogAnalyzer::State::flush_graph(const NcclStream* s, NcclCommunicator* c) {
  auto it = pending_graph.find(s);
  if (it == pending_graph.end()) return;
  PendingGraph& p = it->second;
  if (c) {
    c->ring_channels = std::max(c->ring_channels, p.ring_channels);
    if (p.xml_channels >= 0) c->graph_file_channels = p.xml_channels;
  }
  for (NcclGraphSearch& g : p.searches) {
    g.comm = c ? c->id : std::string();
    NcclGraphSearch* same = nullptr;
    for (auto& h : f.searches) {
      if (h.comm == g.comm && h.pattern == g.pattern && h.channels == g.channels &&
          h.cross_nic == g.cross_nic && h.bw_intra == g.bw_intra && h.bw_inter == g.bw_inter &&
          h.type_intra == g.type_intra && h.type_inter == g.type_inter) {
        same = &h;
        break;
      }
    }
    if (same) {
      ++same->ranks;
      // The example is the earliest line that printed it, whichever rank finished init first.
      if (same->line.where.source == g.line.where.source &&
          g.line.where.line < same->line.where.line)
        same->line = g.line;
    } else if (f.searches.size() < kSetCap)
      f.searches.push_back(std::move(g));
  }
  pending_graph.erase(it);
}

namespace {
double double_after(std::string_view s, std::string_view key, std::size_t& at) {
  std::size_t p = find(s, key, at);
  if (p == std::string_view::npos) return -1;
  p += key.size();
  double v = -1;
  auto r = std::from_chars(s.data() + p, s.data() + s.size(), v);
  if (r.ec != std::errc()) return -1;
  at = static_cast<std::size_t>(r.ptr - s.data());
  return v;
}
}  // namespace

// "Pattern 4, crossNic 0, nChannels 12, bw 20.000000/20.000000, type NVL/PIX, sameChannels 1"
// (graph/search.cc ncclTopoPrintGraph: bwIntra/bwInter, typeIntra/typeInter; "speed" before 2.16).
void NcclLogAnalyzer::State::search_line(std::string_view m, const NcclStream& s,
                                         std::string_view text, std::uint64_t n) {
  auto pattern = int_after(m, "Pattern ");
  auto cross = int_after(m, "crossNic ");
  auto channels = int_after(m, "nChannels ");
  if (!pattern || !channels || *channels < 0 || *channels > 4096) return;
  std::size_t at = 0;
  std::string_view bw_key = has(m, ", bw ") ? ", bw " : ", speed ";
  NcclGraphSearch g;
  g.pattern = static_cast<int>(*pattern);
  g.cross_nic = static_cast<int>(cross.value_or(0));
  g.channels = static_cast<int>(*channels);
  g.bw_intra = double_after(m, bw_key, at);
  if (g.bw_intra >= 0 && at < m.size() && m[at] == '/') {
    auto r = std::from_chars(m.data() + at + 1, m.data() + m.size(), g.bw_inter);
    if (r.ec != std::errc()) g.bw_inter = 0;
  }
  if (g.bw_intra < 0) g.bw_intra = 0;
  std::string_view type = word_after(m, ", type ", ",");
  std::size_t slash = type.find('/');
  g.type_intra = std::string(utf8_prefix(type.substr(0, slash), 8));
  if (slash != std::string_view::npos)
    g.type_inter = std::string(utf8_prefix(type.substr(slash + 1), 8));
  g.same_channels = static_cast<int>(int_after(m, "sameChannels ").value_or(0));
  g.ranks = 1;
  g.line = log_line(text, n);
  auto& list = pending_graph[&s].searches;
  if (list.size() < 16) list.push_back(std::move(g));
}

void NcclLogAnalyzer::State::comm_line(std::string_view m, NcclStream& s, std::uint64_t n) {
  auto rank = int_after(m, " rank ");
  auto nranks = int_after(m, " nranks ");
  if (!nranks) nranks = int_after(m, " nRanks ");
  if (!rank || !nranks || *nranks <= 0 || *rank < 0 || *rank >= *nranks) return;
  if (auto nn = int_after(m, " nNodes "); nn && *nn > 0) {
    pending_nnodes[&s] = static_cast<int>(std::min<long>(*nn, 1 << 20));
    return;
  }
  const bool complete = has(m, "Init COMPLETE");
  const bool start = has(m, "Init START");
  if (!complete && !start) return;  // Destroy / Abort COMPLETE
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

void NcclLogAnalyzer::State::net_ib_line(std::string_view m, std::string_view text,
                                         std::uint64_t n) {
  // "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ib0:10.0.0.1<0>"
  if (has(m, " : Using [") || has(m, ": Using [")) {
    std::size_t p = 0;
    std::size_t oob = find(m, "OOB");
    std::string_view list = m.substr(0, oob);
    while ((p = list.find('[', p)) != std::string_view::npos) {
      std::size_t close = list.find(']', p);
      if (close == std::string_view::npos) break;
      std::size_t e = close + 1;
      while (e < list.size() && list[e] != ' ' && list[e] != ';') ++e;
      std::string_view entry = list.substr(close + 1, e - close - 1);  // mlx5_0:1/RoCE
      std::size_t colon = entry.rfind(':');
      if (colon != std::string_view::npos && colon > 0) {
        NcclNetDevice& d = device(entry.substr(0, colon));
        std::string_view pl = entry.substr(colon + 1);
        std::size_t slash = pl.find('/');
        d.port = static_cast<int>(parse_int(pl.substr(0, slash)).value_or(0));
        if (slash != std::string_view::npos) d.link_layer = std::string(pl.substr(slash + 1));
        if (d.example.text.empty()) d.example = log_line(text, n);
      }
      p = e;
    }
    return;
  }
  if (has(m, "No device found")) {
    if (!f.ib_no_device) f.ib_no_device = log_line(text, n);
    return;
  }
  // "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
  std::size_t g = find(m, "GPU Direct RDMA ");
  if (g != std::string_view::npos) {
    bool enabled = starts(m.substr(g + 16), "Enabled");
    std::size_t q1 = m.find('\'', g);
    std::size_t q2 = q1 == std::string_view::npos ? q1 : m.find('\'', q1 + 1);
    if (q2 != std::string_view::npos) {
      NcclNetDevice& d = device(m.substr(q1 + 1, q2 - q1 - 1));
      // One HCA may be reported several times (once per comm); a single "Disabled" wins.
      if (!d.gdr || (*d.gdr && !enabled)) {
        d.gdr = enabled;
        d.gdr_reason = std::string(trim(m.substr(q2 + 1)));
        d.example = log_line(text, n);
      }
    }
    return;
  }
  // "NET/IB: [0] mlx5_0:uverbs0:1/RoCE provider=Mlx5 speed=100000 ..." and
  // "NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2"
  auto speed = int_after(m, "speed=");
  if (speed) {
    std::string_view name = word_after(m, "name=");
    if (name.empty()) {
      std::size_t b = find(m, "] ");
      if (b != std::string_view::npos) {
        std::string_view rest = m.substr(b + 2);
        name = rest.substr(0, rest.find(':'));
      }
    }
    if (!name.empty()) {
      NcclNetDevice& d = device(name);
      d.speed_gbps = static_cast<double>(*speed) / 1000.0;
      std::size_t b = find(m, "] ");
      if (d.link_layer.empty() && b != std::string_view::npos) {
        std::string_view entry = word_after(m.substr(b), "] ");  // mlx5_0:uverbs0:1/RoCE
        std::size_t sl = entry.rfind('/');
        if (sl != std::string_view::npos) d.link_layer = std::string(entry.substr(sl + 1));
      }
    }
  }
}

void NcclLogAnalyzer::State::classify_problem(std::string_view m, const std::string& host,
                                              std::string_view text, std::uint64_t n,
                                              bool is_warn) {
  if (has(m, "Got completion from peer") || has(m, "Got completion with error")) {
    NcclIssue& i = issue(NcclProblem::kIbCompletionError, host, text, n);
    std::string_view peer = word_after(m, "from peer ");
    if (!peer.empty()) cap_insert(i.peers, std::string(peer));
    auto err = int_after(m, "with error ");
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
  static constexpr std::string_view kConn[] = {
      "Connection refused",     "Connection timed out",  "Connection reset",
      "Connection closed",      "remote process exited", "ncclRemoteError",
      "Remote process",         "peer shutdown",         "No route to host",
      "Network is unreachable", "Broken pipe",           "connection closed by remote"};
  for (std::string_view c : kConn) {
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

void NcclLogAnalyzer::State::warn(const NcclRecord& r, NcclStream& s, std::uint64_t n) {
  std::string_view m = r.message;
  add_warning(m, s.host, r.text, n);
  if (has(m, "NET/IB") && has(m, "No device found")) proc_of(s).p.ib_devices = false;
  if (has(m, "libibverbs")) {
    if (!f.ibverbs_missing) f.ibverbs_missing = log_line(r.text, n);
    return;
  }
  if (has(m, "NET/IB") && has(m, "No device found")) {
    if (!f.ib_no_device) f.ib_no_device = log_line(r.text, n);
    return;
  }
  classify_problem(m, s.host, r.text, n, true);
}

namespace {
// 2.21-2.23 print the algorithm and protocol as numbers (nccl_common.h v2.23.4-1: NCCL_ALGO_TREE 0
// .. NCCL_ALGO_PAT 6; NCCL_PROTO_LL 0, LL128 1, SIMPLE 2); 2.24+ print ncclAlgoToString names.
std::string_view algo_name(std::string_view a) {
  static constexpr std::string_view kAlgos[] = {
      "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
  if (a.size() == 1 && a[0] >= '0' && a[0] <= '6') return kAlgos[a[0] - '0'];
  return a;
}
std::string_view proto_name(std::string_view p) {
  static constexpr std::string_view kProtos[] = {"LL", "LL128", "SIMPLE"};
  if (p.size() == 1 && p[0] >= '0' && p[0] <= '2') return kProtos[p[0] - '0'];
  return p;
}
}  // namespace

// "AllReduce: opCount 1 ..." (INFO COLL) or an algorithm-selection line (INFO TUNING, see
// NcclTuningChoice): the bulk of a long log, so it is recognised first and cheaply. Returns
// false for anything else; `c.algo` / `c.proto` are set for algorithm-selection lines.
bool collective_line(std::string_view m, CollectiveLine& c) {
  std::size_t i = 0;
  while (i < m.size() && i < 24 && ((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z')))
    ++i;
  std::string_view rest;
  if (i == 0) {
    rest = m;  // 2.21-2.22: "<bytes> Bytes -> Algo <n> proto <n> time <us>", no name
  } else {
    if (i + 2 >= m.size() || m[i] != ':' || m[i + 1] != ' ') return false;
    rest = m.substr(i + 2);
    if (starts(rest, "opCount ")) return true;
  }
  if (rest.empty() || rest[0] < '0' || rest[0] > '9') return false;
  // The usual shape, read forward: "<bytes> Bytes -> Algo <A> proto <P> ..."
  std::size_t d = 0;
  std::uint64_t bytes = 0;
  while (d < rest.size() && rest[d] >= '0' && rest[d] <= '9') {
    if (d < 19) bytes = bytes * 10 + static_cast<std::uint64_t>(rest[d] - '0');
    ++d;
  }
  static constexpr std::string_view kBytes = " Bytes -> Algo ";
  if (!starts(rest.substr(d), kBytes)) {
    if (i == 0) return false;
    std::size_t at = find(rest, " -> Algo ");
    if (at == std::string_view::npos) return false;
    std::string_view tail = rest.substr(at);
    c.algo = algo_name(word_after(tail, "Algo "));
    c.proto = proto_name(word_after(tail, "proto "));
    return true;
  }
  std::size_t a0 = d + kBytes.size();
  std::size_t a1 = rest.find(' ', a0);
  static constexpr std::string_view kProto = " proto ";
  if (a1 == std::string_view::npos || !starts(rest.substr(a1), kProto)) return i > 0;
  std::size_t p0 = a1 + kProto.size();
  std::size_t p1 = rest.find(' ', p0);
  c.name = m.substr(0, i);
  c.bytes = bytes;
  c.algo = algo_name(rest.substr(a0, a1 - a0));
  c.proto =
      proto_name(rest.substr(p0, p1 == std::string_view::npos ? std::string_view::npos : p1 - p0));
  c.tuning = true;
  if (p1 != std::string_view::npos) {
    // 2.24+: " channel{Lo..Hi}={0..23}"
    static constexpr std::string_view kChan = " channel{Lo..Hi}={";
    std::string_view t = rest.substr(p1);
    if (starts(t, kChan)) {
      t.remove_prefix(kChan.size());
      int lo = 0, hi = 0;
      auto r1 = std::from_chars(t.data(), t.data() + t.size(), lo);
      if (r1.ec == std::errc() && t.end() - r1.ptr > 2 && r1.ptr[0] == '.' && r1.ptr[1] == '.') {
        auto r2 = std::from_chars(r1.ptr + 2, t.data() + t.size(), hi);
        if (r2.ec == std::errc()) {
          c.lo = lo;
          c.hi = hi;
        }
      }
    }
  }
  return true;
}

void NcclLogAnalyzer::State::info(const NcclRecord& r, NcclStream& s, std::uint64_t n) {
  std::string_view m = r.message;
  if (m.empty()) return;
  // Connection lines are most of a log and never a failure; others may be (knowledge base).
  if (f.failure_info.size() < 32 && !starts(m, "Channel ") && failure_worded(m)) {
    std::string q = quote(m);
    bool dup = false;
    for (const auto& l : f.failure_info) dup = dup || l.text == q;
    if (!dup) f.failure_info.push_back({std::move(q), at(n)});
  }
  switch (m[0]) {
    case 'C':
      if (starts(m, "Channel ")) return channel(m, s, r.text, n);
      if (starts(m, "Connected all")) return;
      break;
    case 'c':
      if (starts(m, "comm ")) return comm_line(m, s, n);
      break;
    case 'N':
      if (starts(m, "NCCL version ")) {
        version(m.substr(13), s.host, r.text, n, &s);
        if (!s.version.empty()) proc_of(s).p.versions.insert(s.version);
        return;
      }
      if (starts(m, "NET/IB") || starts(m, "NET/IBext")) {
        profile_net_ib(m, s);
        return net_ib_line(m, r.text, n);
      }
      if (starts(m, "NET/Socket")) {
        if (has(m, "Using")) profile_socket(m, s);
        if (has(m, "Using") && f.socket_interfaces.size() < 8) {
          bool dup = false;
          for (const auto& l : f.socket_interfaces) dup = dup || l.text == quote(m);
          if (!dup) f.socket_interfaces.push_back({quote(m), at(n)});
        }
        return;
      }
      if (starts(m, "NET/Plugin")) {
        Proc& pr = proc_of(s);
        if (pr.p.plugin.size() < 8)
          pr.p.plugin.insert(std::string(trim(utf8_prefix(m.substr(10), 80))));
        if (f.plugin_messages.size() < 6) {
          std::string q = quote(m);
          bool dup = false;
          for (const auto& l : f.plugin_messages) dup = dup || l.text == q;
          if (!dup) f.plugin_messages.push_back({q, at(n)});
        }
        return;
      }
      if (starts(m, "NET/")) {
        if (has(m, "GPU Direct RDMA") || has(m, "Using [")) return net_ib_line(m, r.text, n);
        return;
      }
      break;
    case 'U':
      if (starts(m, "Using network ")) {
        std::string net(trim(m.substr(14)));
        proc_of(s).p.networks.insert(net);
        if (f.net_plugin.empty()) f.net_plugin = net;
        cap_insert(f.networks, net);
        s.init_started = true;
        return;
      }
      break;
    case 'G':
      if (starts(m, "GPU Direct RDMA Disabled for GPU")) {
        if (!f.gdr_disabled_by_distance) f.gdr_disabled_by_distance = log_line(r.text, n);
        return;
      }
      break;
    case 'L':
      if (starts(m, "Launch mode")) {
        s.init_complete = true;
        return;
      }
      if (starts(m, "Loading topology file") || starts(m, "Loading topology ")) {
        if (f.topology_files.size() < 8) f.topology_files.push_back(log_line(r.text, n));
        return;
      }
      break;
    case 'B':
      if (starts(m, "Bootstrap")) return profile_bootstrap(m, s);
      break;
    case 'P':
      if (starts(m, "Pattern ")) return search_line(m, s, r.text, n);
      break;
    case 'S':
      if (starts(m, "Search ") && has(m, " channels loaded from XML graph")) {
        // "Search 0 : 4 channels loaded from XML graph" (graph/search.cc, NCCL_GRAPH_FILE)
        std::size_t colon = m.find(" : ");
        if (colon != std::string_view::npos) {
          auto ch = int_after(m.substr(colon), " : ");
          if (ch) pending_graph[&s].xml_channels = static_cast<int>(std::min<long>(*ch, 4096));
        }
        if (f.topology_files.size() < 8) f.topology_files.push_back(log_line(r.text, n));
        return;
      }
      break;
    case '[':
      if (starts(m, "[Rank ")) {  // 2.2x: "[Rank 0] ncclCommInitRankConfig comm ..."
        std::size_t c = find(m, " comm ");
        if (c != std::string_view::npos) return comm_line(m.substr(c), s, n);
      }
      break;
    default:
      break;
  }
  if (starts(m, "ncclCommInit")) {
    std::size_t c = find(m, " comm ");
    if (c != std::string_view::npos) return comm_line(m.substr(c), s, n);
  }
  if (starts(m, "NCCL_") && has(m, " set by environment to ")) {
    std::size_t p = find(m, " set by environment to ");
    std::string name(trim(m.substr(0, p)));
    std::string_view value = trim(m.substr(p + 23));
    if (!value.empty() && value.back() == '.') value.remove_suffix(1);
    if (!f.env.count(name) && f.env.size() < kSetCap)
      f.env[name] = {std::string(value), log_line(r.text, n)};
    Proc& pr = proc_of(s);
    if (pr.p.env.size() < kSetCap) pr.p.env[name] = std::string(value);
    const bool topo = name == "NCCL_TOPO_FILE" || name == "NCCL_GRAPH_FILE" ||
                      name == "NCCL_TOPO_DUMP_FILE" || name == "NCCL_GRAPH_DUMP_FILE";
    // Every rank prints the same setting: one line per distinct value.
    if (topo && f.topology_files.size() < 8 &&
        topo_settings.insert(name + "=" + std::string(value)).second)
      f.topology_files.push_back(log_line(r.text, n));
    return;
  }
  if (starts(trim(m), "Algorithm") && has(m, "|")) {
    f.tuning_table = true;
    return;
  }
  if (has(m, "libibverbs")) {
    if (!f.ibverbs_missing) f.ibverbs_missing = log_line(r.text, n);
    return;
  }
  if (has(m, "Mismatched NCCL version") || has(m, "Got completion")) {
    classify_problem(m, s.host, r.text, n, false);
    return;
  }
  if (!f.first_error_return && error_return(m)) f.first_error_return = log_line(r.text, n);
  if (f.cuda_driver.empty() && starts(m, "cudaDriverVersion ")) {
    if (auto v = int_after(m, "cudaDriverVersion "); v && *v > 0 && *v < 1000000)
      f.cuda_driver = std::to_string(*v / 1000) + "." + std::to_string(*v % 1000 / 10);
  }
  if (!f.mnnvl_line && starts(m, "MNNVL ")) f.mnnvl_line = log_line(r.text, n);
  if (!known_info(m)) {
    ++f.unknown_lines;
    // Never dropped silently: a line no pattern knows may be the one that explains the run.
    if (f.unrecognised.size() < 32) {
      std::string q = quote(m);
      bool dup = false;
      for (const auto& l : f.unrecognised) dup = dup || l.text == q;
      if (!dup) f.unrecognised.push_back({std::move(q), at(n)});
    }
  }
}

void NcclLogAnalyzer::State::collective(const CollectiveLine& c, std::string_view text) {
  const std::string_view algo = c.algo, proto = c.proto;
  if (c.tuning) {
    NcclTuningChoice* t = last_tuning;
    if (!t || t->bytes != c.bytes || t->collective != c.name || t->algo != algo ||
        t->proto != proto) {
      auto key = std::make_pair(std::string(c.name), c.bytes);
      auto it = f.tuning.find(key);
      if (it == f.tuning.end() && f.tuning.size() < 256) {
        NcclTuningChoice nc;
        nc.collective = key.first;
        nc.bytes = c.bytes;
        nc.line = log_line(text, cur_line);
        it = f.tuning.emplace(std::move(key), std::move(nc)).first;
      }
      t = it == f.tuning.end() ? nullptr : &it->second;
      if (t) {
        // The latest choice at a size wins: NCCL may change it as the run goes on.
        t->algo.assign(algo.data(), algo.size());
        t->proto.assign(proto.data(), proto.size());
        t->channel_lo = c.lo;
        t->channel_hi = c.hi;
      }
      last_tuning = t;
    }
    if (t) ++t->count;
  }
  // The same few names repeat on millions of lines: compare with the last before the sets.
  if (!algo.empty() && algo != last_algo) {
    if (f.algorithms.find(algo) == f.algorithms.end() && f.algorithms.size() < kSetCap)
      f.algorithms.emplace(algo);
    last_algo.assign(algo.data(), algo.size());
  }
  if (!proto.empty() && proto != last_proto) {
    if (f.protocols.find(proto) == f.protocols.end() && f.protocols.size() < kSetCap)
      f.protocols.emplace(proto);
    last_proto.assign(proto.data(), proto.size());
  }
}

void NcclLogAnalyzer::State::record(NcclRecord& r, std::uint64_t n) {
  ++f.nccl_lines;
  // Connection lines are most of a large job's log: straight to their reader.
  if (r.level == NcclLevel::kInfo && !r.cut && r.message.size() > 8 && r.message[0] == 'C' &&
      starts(r.message, "Channel ")) {
    NcclStream& s = stream(r, n);
    remember_tail(r.text, n);
    return channel(r.message, s, r.text, n);
  }
  CollectiveLine cl;
  const bool coll = r.level == NcclLevel::kInfo && !r.cut && collective_line(r.message, cl);
  if (coll && idle_streams == 0) {
    // Every rank known has already shown collective traffic: nothing per rank to learn here.
    collective(cl, r.text);
    return;
  }
  NcclStream& s = stream(r, n);
  if (coll) {
    if (!s.collective_activity && idle_streams > 0) --idle_streams;
    s.collective_activity = true;
    s.init_complete = true;
    collective(cl, r.text);
    return;
  }
  if (r.cut) {
    // Cut short by another writer: only a complete message can be trusted.
    ++f.garbled_lines;
  }
  remember_tail(r.text, n);
  if (r.level == NcclLevel::kWarn || r.level == NcclLevel::kAbort)
    warn(r, s, n);
  else
    info(r, s, n);
}

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

void NcclLogAnalyzer::State::profile_bootstrap(std::string_view m, const NcclStream& s) {
  std::size_t u = find(m, "Using ");
  if (u == std::string_view::npos) return;
  std::string_view e = m.substr(u + 6);
  e = e.substr(0, e.find(' '));
  auto [iface, addr] = iface_address(e);
  Proc& p = proc_of(s);
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

// nccl-tests: "#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX
// 5090"
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
    st.host_name = st.host;
    auto pit = procs.find(st.host + ":" + std::to_string(st.pid));
    if (pit != procs.end()) st.host = label(st.host_name, pit->second.address);
  }
  // Communicator membership by host label; a rank two hosts both claim marks separate jobs.
  std::map<NcclCommunicator*, std::map<int, std::set<std::string>>> claims;
  for (const Membership& m : memberships) {
    m.comm->rank_hosts[m.rank] = m.stream->host;
    auto& hs = claims[m.comm][m.rank];
    hs.insert(m.stream->host);
    if (hs.size() > 1)
      for (const auto& h : hs) cap_insert(m.comm->rank_clash_hosts, h);
  }
  for (auto& [k, p] : procs) {
    const std::string l = label(p.name, p.address);
    NcclHostProfile& h = f.host_profiles[l];
    if (h.first.where.source.empty()) h.first = p.p.first;
    h.addresses.insert(p.p.addresses.begin(), p.p.addresses.end());
    h.bootstrap_ifaces.insert(p.p.bootstrap_ifaces.begin(), p.p.bootstrap_ifaces.end());
    if (h.socket_ifaces.empty()) h.socket_ifaces = p.p.socket_ifaces;
    for (const auto& [e, v] : p.p.env) h.env.emplace(e, v);
    h.networks.insert(p.p.networks.begin(), p.p.networks.end());
    h.versions.insert(p.p.versions.begin(), p.p.versions.end());
    h.gpus.insert(p.p.gpus.begin(), p.p.gpus.end());
    h.plugin.insert(p.p.plugin.begin(), p.p.plugin.end());
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
}

// A line without a NCCL record: framework output (PyTorch), the bare version banner, noise.
void NcclLogAnalyzer::State::plain(std::string_view line, std::uint64_t n) {
  if (last_error_follows) {
    // "Last error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000"
    last_error_follows = false;
    std::string_view t = trim(line);
    if (!t.empty()) {
      ++f.nccl_lines;
      add_warning(t, "", t, n);
      return;
    }
  }
  if (f.nccl_tests_table_file.empty()) {
    // nccl-tests' table header, perhaps behind a launcher prefix ("[1,0]<stdout>:#  size ..."):
    // the file holds a result the nccl-tests reader can judge beside the log.
    std::size_t hash = line.find('#');
    if (hash != std::string_view::npos && hash < 64 && has(line, "size") && has(line, "busbw"))
      f.nccl_tests_table_file = file;
  }
  if (!line.empty() && line[0] == '#') {
    if (has(line, " Rank ") && has(line, " device ")) nccl_tests_device(line);
    return;
  }
  read_framework_line(line, file, n, f.framework);  // PyTorch, vLLM, DeepSpeed ...: framework.h
  const bool nccl = has(line, "NCCL") || has(line, "nccl");
  const bool coll = has(line, "collective");
  if (!nccl && !coll) {
    if (trim(line) == "Last error:") last_error_follows = true;
    return;
  }
  std::string_view t = trim(line);
  if (std::size_t w = find(t, "NCCL WARN "); w != std::string_view::npos) {
    // A WARN line without the host:pid:tid prefix (a capture that dropped it).
    ++f.nccl_lines;
    std::string_view m = trim(t.substr(w + 10));
    add_warning(m, "", t, n);
    remember_tail(t, n);
    classify_problem(m, "", t, n, true);
    return;
  }
  if (std::size_t lw = find(t, "Last NCCL warning"); lw != std::string_view::npos) {
    // JAX / XLA: "... Last NCCL warning(error): 'Bootstrap : no socket interface found'"
    ++f.nccl_lines;
    add_warning(t.substr(lw), "", t, n);
    return;
  }
  if (starts(t, "nccl") && t.find(':') < 40 && !has(t, "NCCL INFO")) {
    // "ncclSocketInit: connecting to address with family 0 ..." / "ncclInvalidUsage: ..."
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
    if (banner || has(t, "NCCL error")) version(t.substr(v + 13), host, t, n, nullptr);
    if (banner) return;
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

NcclLogAnalyzer::NcclLogAnalyzer() : s_(std::make_unique<State>()) {}
NcclLogAnalyzer::~NcclLogAnalyzer() = default;

void NcclLogAnalyzer::begin_file(const std::string& name) {
  s_->file = name;
  ++s_->file_index;
  s_->f.files.push_back(name);
}

void NcclLogAnalyzer::line(std::string_view raw, std::uint64_t number, bool cut) {
  State& st = *s_;
  thread_local std::string norm;  // prefixes, colour and CR off (issue 30): nccl_line_prefix.h
  const std::string_view text = normalize_nccl_line(raw, norm);
  ++st.f.lines;
  st.cur_line = number;
  if (cut) ++st.f.truncated_lines;
  if (st.idle_streams == 0 && !st.f.streams.empty() && st.fast_collective(text)) return;
  if (st.fast_record(text, number)) return;
  std::size_t k = split_nccl_records(text, st.recs, 8);
  if (k == 0) {
    if (!st.f.binary_junk && is_junk(text)) st.f.binary_junk = true;
    st.plain(text, number);
    return;
  }
  const NcclRecord first = st.recs[0];  // record() points the host at the stream's copy
  for (std::size_t i = 0; i < k; ++i) st.record(st.recs[i], number);
  if (k == 1) st.remember_head(text, first);
}

NcclRunFacts NcclLogAnalyzer::finish() {
  s_->finish_hosts();
  NcclRunFacts out = std::move(s_->f);
  s_ = std::make_unique<State>();
  return out;
}

NcclRunFacts analyze_nccl_log_text(std::string_view text, const std::string& name) {
  NcclLogAnalyzer a;
  a.begin_file(name);
  LineReader::read_text(text,
                        [&](std::string_view l, std::uint64_t n, bool cut) { a.line(l, n, cut); });
  return a.finish();
}

NcclRunFacts analyze_nccl_logs(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  NcclLogAnalyzer a;
  auto one = [&](const std::string& p) {
    a.begin_file(p);
    LineReader::read(p, [&](std::string_view l, std::uint64_t n, bool cut) { a.line(l, n, cut); });
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        std::error_code ec2;
        if (e.is_regular_file(ec2)) files.push_back(e.path().string());
      }
      if (ec) throw InputError(p, 0, "cannot list directory: " + ec.message());
      std::sort(files.begin(), files.end());
      if (files.empty()) throw InputError(p, 0, "directory holds no log files");
      for (const auto& f : files) one(f);
    } else {
      one(p);
    }
  }
  return a.finish();
}

bool has_nccl_output(const NcclRunFacts& f) {
  return f.nccl_lines > 0 || !f.versions.empty() || !f.timeouts.empty() || !f.lagging.empty() ||
         !f.issues.empty() || f.warning_lines > 0 || f.framework.judgeable();
}

bool looks_like_nccl_log(std::string_view text) {
  NcclRecord r[1];
  std::string norm;
  for (std::string_view l : split_lines(text.substr(0, std::size_t{64} * 1024))) {
    l = normalize_nccl_line(l, norm);
    if (split_nccl_records(l, r, 1) > 0) return true;
    if (starts(trim(l), "NCCL version ")) return true;
  }
  return false;
}

}  // namespace trainready
