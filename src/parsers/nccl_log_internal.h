#pragma once
// Internals of the NCCL log analyser (src/parsers/nccl_log*.cpp): the text helpers and the state
// the analyser keeps while it reads. Not for use outside src/parsers/nccl_log*.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/text.h"
#include "core/utf8.h"
#include "facts/nccl_host_label.h"
#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_failure_info.h"
#include "parsers/nccl_ib_mtu.h"
#include "parsers/nccl_line_time.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_log_record.h"
#include "parsers/nccl_ring_claims.h"

namespace trainready {
namespace nccl_log_detail {

inline constexpr std::size_t kQuoteMax = 240;
inline constexpr std::size_t kExamples = 5;
inline constexpr std::size_t kSetCap = 64;

inline bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && std::memcmp(s.data(), p.data(), p.size()) == 0;
}
// A literal prefix: its length is a constant, so the compare is a few loads, not a call.
template <std::size_t N>
inline bool starts(std::string_view s, const char (&p)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), p, N - 1) == 0;
}
// Substring search anchored on the needle's first non-space character: memchr skips most of a
// line at once, where a general search steps on every space.
inline std::size_t find(std::string_view s, std::string_view p, std::size_t from = 0) {
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
inline bool has(std::string_view s, std::string_view p) {
  return find(s, p) != std::string_view::npos;
}

// The integer right after `key` ("nranks 64" with key "nranks "), if there is one.
inline std::optional<long> int_after(std::string_view s, std::string_view key) {
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
inline std::string_view word_after(std::string_view s, std::string_view key,
                                   std::string_view stops = "") {
  std::size_t p = find(s, key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  std::size_t e = p;
  while (e < s.size() && s[e] != ' ' && s[e] != '\t' && stops.find(s[e]) == std::string_view::npos)
    ++e;
  return s.substr(p, e - p);
}

inline std::string quote(std::string_view s) {
  s = trim(s);
  return clip_text(s, kQuoteMax);
}

template <class Set>
void cap_insert(Set& set, const std::string& v) {
  if (set.size() < kSetCap || set.count(v)) set.insert(v);
}

// The hash of a record head (the bytes before " NCCL ") the analyser interns heads by.
inline std::size_t nccl_head_hash(std::string_view h) {
  std::uint64_t x = h.size() * 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (; i + 8 <= h.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, h.data() + i, 8);
    x = (x ^ w) * 0xff51afd7ed558ccdull;
    x ^= x >> 32;
  }
  // The last size % 8 bytes as a little-endian word, zero above them: one load of the word
  // that ends the head when there is one (bytes copied into a zeroed word one by one stall the
  // load that reads them back).
  const std::size_t rest = h.size() - i;
  std::uint64_t w = 0;
  if (rest != 0 && h.size() >= 8) {
    std::memcpy(&w, h.data() + h.size() - 8, 8);
    w >>= 8 * (8 - rest);  // the bytes before them shifted out (the same value on little-endian)
  } else if (rest != 0) {  // an empty head may have no data pointer: memcpy needs one
    std::memcpy(&w, h.data() + i, rest);
  }
  x = (x ^ w) * 0xc4ceb9fe1a85ec53ull;
  return static_cast<std::size_t>(x ^ (x >> 29));
}

// a == b for short byte strings (record heads, transport names): 8 bytes a step, no call.
inline bool same_bytes(const char* a, const char* b, std::size_t n) {
  std::uint64_t x, y;
  if (n >= 8) {  // 8 bytes a step, the last step the 8 bytes that end both (no loop per byte)
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}
inline bool same_bytes(const std::string& s, std::string_view v) {
  return s.size() == v.size() && same_bytes(s.data(), v.data(), v.size());
}

bool is_junk(std::string_view line);
// An INFO line worded as a failure ("failed", "error", "cannot", "undefined symbol", ...): kept
// for the knowledge base (failure INFO sites, issue 30). src/parsers/nccl_info_failure_words.cpp.
bool failure_worded(std::string_view m);
bool known_info(std::string_view m);
std::string_view trail_code(std::string_view m);

}  // namespace nccl_log_detail
using namespace nccl_log_detail;  // NOLINT: internal header of the nccl_log*.cpp files only

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
    // The block scanner's connection lines keep the stream's last line here, merged into
    // NcclStream::last_seen by merge_last_seen (the later of the two wins), and remember once
    // the stream's init completed (it never un-completes): a connection line then touches this
    // and not the stream.
    int fast_file = -1;
    int fast_line = 0;
    bool complete = false;
  };
  void merge_last_seen() {
    for (Live& l : lives) {
      if (l.fast_file < 0) continue;
      NcclStream& s = *l.s;
      if (l.fast_file > s.file_index) {
        s.file_index = l.fast_file;
        s.last_seen.source = f.files[static_cast<std::size_t>(l.fast_file)];
        s.last_seen.line = l.fast_line;
      } else if (l.fast_file == s.file_index && l.fast_line > s.last_seen.line) {
        s.last_seen.line = l.fast_line;
      }
      l.fast_file = -1;
    }
  }
  std::deque<Live> lives;
  Live* cur_live = nullptr;  // the stream of the record
  // Past the stream cap, records go here: per analyser, since a Live points into this one's Procs.
  NcclStream overflow;
  Live overflow_live;
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
    NcclStream* stream = nullptr;
    Live* live = nullptr;  // cur_live as the general path left it (transports go there)
    Live* own = nullptr;   // the stream's own Live (its last line, init seen complete)
    long pid = 0;
    std::uint32_t host_off = 0;
    std::uint32_t host_len = 0;
    int dev = -1;
    std::uint32_t hash = 0;  // the head's hash, low 32 bits: most misses end here
  };
  // Distinct host:pid:dev streams kept apart (about 700 bytes each with their lookups); the
  // records of any more are folded into `overflow` and counted (memory bound, issue 35).
  static constexpr std::size_t kStreamCap = std::size_t{1} << 15;
  // Direct-mapped (a collision re-parses), grown with the heads met up to kHeadSlots so at most
  // 1/16 of the slots are taken: a small input does not pay for a large table.
  static constexpr std::size_t kHeadSlots = 65536;
  std::vector<HeadSlot> heads;  // allocated with the first head
  // Beside each slot, its head's hash (low 32 bits) with the low bit set, 0 when it holds no
  // stream: 4 bytes a slot, so a miss (a log with a distinct host:pid on most lines misses on
  // nearly every line) reads one word from a table that stays in cache, not a slot of 80 bytes.
  std::vector<std::uint32_t> head_keys;
  std::size_t heads_used = 0;
  static std::size_t head_hash(std::string_view h) { return nccl_head_hash(h); }
  static std::uint32_t head_key(std::size_t hash) { return static_cast<std::uint32_t>(hash) | 1u; }
  // A head lives in slot i or i ^ 1 (two-way: two heads whose hashes meet do not evict each
  // other on every line). nullptr when it is in neither.
  HeadSlot* find_head(std::string_view head, std::size_t hash) {
    const std::size_t i = hash & (heads.size() - 1);
    const std::uint32_t key = head_key(hash);
    if (head_keys[i] == key && same_bytes(heads[i].head, head)) return &heads[i];
    if (head_keys[i ^ 1] == key && same_bytes(heads[i ^ 1].head, head)) return &heads[i ^ 1];
    return nullptr;
  }
  // Where a head goes: its own slot, else a free one of the two, else slot i.
  HeadSlot& place_head(std::string_view head, std::size_t hash) {
    const std::size_t i = hash & (heads.size() - 1);
    if (HeadSlot* h = find_head(head, hash)) return *h;
    if (!heads[i].stream) return heads[i];
    if (!heads[i ^ 1].stream) return heads[i ^ 1];
    return heads[i];
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
    HeadSlot* hp = find_head(head, head_hash(head));
    if (!hp) return false;
    HeadSlot& h = *hp;
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
    Live* own = cur_live->s == last_stream ? cur_live : lookup(r.host, r.pid, r.dev);
    if (!own || own->s != last_stream) return;
    if (heads.empty()) {
      heads.resize(1024);
      head_keys.assign(heads.size(), 0);
    }
    HeadSlot* h = &place_head(head, head_hash(head));
    if (!h->stream) {
      if (++heads_used * 16 > heads.size() && heads.size() < kHeadSlots) {
        std::vector<HeadSlot> old(heads.size() * 2);
        old.swap(heads);
        head_keys.assign(heads.size(), 0);
        for (HeadSlot& e : old)
          if (e.stream) {
            HeadSlot& to = place_head(e.head, head_hash(e.head));
            to = std::move(e);
            head_keys[static_cast<std::size_t>(&to - heads.data())] = head_key(to.hash);
          }
        h = &place_head(head, head_hash(head));
      }
    }
    h->head.assign(head.data(), head.size());
    h->hash = static_cast<std::uint32_t>(head_hash(head));
    head_keys[static_cast<std::size_t>(h - heads.data())] = head_key(h->hash);
    h->host_off = static_cast<std::uint32_t>(r.host.data() - text.data());
    h->host_len = static_cast<std::uint32_t>(r.host.size());
    h->pid = r.pid;
    h->dev = r.dev;
    h->stream = last_stream;
    h->live = cur_live;
    h->own = own;
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
  Proc spare_proc;  // past kStreamCap processes: written, never read
  std::unordered_map<std::string, std::size_t> warn_index;  // message -> f.warnings index
  NcclFailureInfo failures;    // f.failure_info, bounded (nccl_failure_info.h)
  NcclRingClaims ring_claims;  // f.host_device_clash (nccl_ring_claims.h)
  NcclIbMtus ib_mtus;          // f.ib_port_mtus (nccl_ib_mtu.h)
  struct Membership {
    NcclCommunicator* comm;
    int rank;
    NcclStream* stream;
  };
  std::vector<Membership> memberships;
  std::vector<Membership> destroy_memberships;  // f.comms_at_destroy's
  // Exact host counts beside the capped samples: the streams that logged each transport or
  // problem (a stream's host is final only after finish_hosts), the last one cached because
  // connection lines come in runs from one stream.
  std::map<NcclProblem, std::set<std::string>> problem_hosts;
  // The last NCCL lines seen: a ring written in place, so it costs no allocation per line.
  struct TailLine {
    char text[kQuoteMax];        // a copy per NCCL line: a plain buffer, no string bookkeeping
    const char* view = nullptr;  // or, while the block scanner's buffer holds it, the bytes there
    std::size_t len = 0;
    std::uint64_t n = 0;
    int file = -1;
  };
  static constexpr std::size_t kTail = 8;
  TailLine tail[kTail];
  std::size_t tail_next = 0, tail_count = 0;
  bool last_error_follows = false;
  // The launcher's "<host>:" the "Last error:" line was behind (pdsh, which DeepSpeed's
  // multi-node runner uses: "node2: Last error:"), taken off the message line after it.
  std::string last_error_tag;
  std::uint64_t last_error_line = 0;  // the line "Last error:" was on: the message is the next
  // The diagnostics lines kept or counted so far (nccl_log_diag.cpp): each result's body with its
  // communicator taken out, each failing edge's process, devices and failure.
  std::set<std::string, std::less<>> diag_seen;
  // The line being read as captured (prefixes and all, for its timestamp); a held WARN's
  // prefix while it is read. Valid while the line is.
  std::string_view cur_raw;
  static std::string_view record_head(std::string_view text);  // "" for a headless line
  std::string first_trail_head;   // "host:pid:tid [dev]" of the first error return's thread
  bool first_trail_open = false;  // its trail goes on (that thread printed nothing else since)
  std::string first_trail_place;  // its "file:line" ("bootstrap.cc:270")
  std::string first_trail_code;   // its result code ("2" of "-> 2")
  // Until the first error return: the threads whose last record was a WARN (at most 64).
  std::vector<std::string> warned_last;
  void last_record(std::string_view head, bool warn);
  // Other threads' trails begun after it, while NcclRunFacts::deeper_error_return is looked for:
  // each thread's first trail line, and whether its trail goes on (at most 16 threads).
  struct OtherTrail {
    std::string head;
    LogLine first;
    bool open = true;
  };
  std::vector<OtherTrail> other_trails;
  void other_trail(std::string_view head, std::string_view m, std::string_view text,
                   std::uint64_t n);
  void other_trail_ends(std::string_view head);

  // The "pid:tid [dev]" of a record head (a WARN's "file:line" after it dropped).
  static std::string_view thread_of(std::string_view head) {
    if (const std::size_t b = head.find(']'); b != std::string_view::npos)
      head = head.substr(0, b + 1);
    const std::size_t c = head.find(':');
    return c == std::string_view::npos ? head : head.substr(c + 1);
  }
  // Two record heads of one thread: the same pid:tid [dev] on the same host - or on a host name
  // a paste cut to its end ("23" for "worker-23", after a '-' or '.'), never another host's.
  static bool same_thread(std::string_view a, std::string_view b) {
    if (thread_of(a) != thread_of(b)) return false;
    const std::string_view ha = a.substr(0, a.find(':')), hb = b.substr(0, b.find(':'));
    if (ha == hb) return true;
    const std::string_view lo = ha.size() > hb.size() ? ha : hb;
    const std::string_view sh = ha.size() > hb.size() ? hb : ha;
    return !sh.empty() && lo.compare(lo.size() - sh.size(), sh.size(), sh) == 0 &&
           (lo[lo.size() - sh.size() - 1] == '-' || lo[lo.size() - sh.size() - 1] == '.');
  }
  std::uint64_t cur_line = 0;  // the line being read, for provenance of per-process facts  //
                               // PyTorch prints "Last error:" and the NCCL message below

  Proc& proc(std::string_view host, long pid) {
    char num[24];
    auto e = std::to_chars(num, num + sizeof num, pid).ptr;
    std::string key(host);
    key += ':';
    key.append(num, static_cast<std::size_t>(e - num));
    if (procs.size() >= kStreamCap && procs.find(key) == procs.end()) return spare_proc;
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
    if (tail_views) {
      t.view = cut.data();  // copied by materialize_tail before the buffer is reused
    } else {
      t.view = nullptr;
      std::memcpy(t.text, cut.data(), cut.size());
    }
    t.len = cut.size();
    t.n = n;
    t.file = file_index;
    tail_next = (tail_next + 1) % kTail;
    if (tail_count < kTail) ++tail_count;
  }
  // Set by the block scanner while the lines it passes stay in its buffer: the tail keeps views.
  bool tail_views = false;
  void materialize_tail() {
    for (TailLine& t : tail) {
      if (t.view) std::memcpy(t.text, t.view, t.len);
      t.view = nullptr;
    }
  }
  // Counts a WARN message; true when it is new to the log (past the cap: not among those kept).
  bool add_warning(std::string_view message, const std::string& host, std::string_view text,
                   std::uint64_t n) {
    ++f.warning_lines;
    std::string msg = quote(message);
    auto it = warn_index.find(msg);
    const bool fresh = it == warn_index.end();
    if (fresh) {
      if (f.warnings.size() >= kSetCap) return true;
      it = warn_index.emplace(msg, f.warnings.size()).first;
      NcclWarning w;
      w.message = msg;
      w.first = log_line(text, n);
      f.warnings.push_back(std::move(w));
    }
    NcclWarning& w = f.warnings[it->second];
    ++w.count;
    if (!host.empty()) cap_insert(w.hosts, host);
    return fresh;
  }
  void finish_hosts();
  // A WARN line held until the next line shows whether its message goes on there (a wrapped
  // paste, NCCL's three-line NVLS warning: nccl_warn_join.h); read as any line on release.
  struct HeldWarn {
    std::string text;         // the line, prefixes off, its continuations joined
    std::string prefix;       // the launcher / collector prefix it came behind
    std::size_t message = 0;  // where the WARN message starts in `text`
    std::size_t width = 0;    // length of its last physical line
    std::uint64_t n = 0;
    int joins = 0;
    bool active = false;
  };
  HeldWarn held;
  // A terminal's hard wrap, told from the first lines of each file and undone before a line is
  // read (log_hard_wrap.h).
  HardWrapJoiner wrap;
  bool hold_warn(std::string_view raw, std::string_view text, std::uint64_t n, std::size_t k);
  bool join_held(std::string_view raw, std::string_view text, bool cut);
  void release_held();

  Provenance at(std::uint64_t n) const {
    return {file, static_cast<int>(std::min<std::uint64_t>(n, 2147483647))};
  }
  // The time line n carries, when it is the line being read (its raw text is at hand).
  LineTime time_of(std::uint64_t n) const {
    return n == cur_line && !cur_raw.empty() ? nccl_line_time(cur_raw) : LineTime{};
  }
  LogLine log_line(std::string_view text, std::uint64_t n) const {
    return {quote(text), at(n), time_of(n)};
  }

  // The streams by host, pid and device: open addressing over a flat table of (hash, Live*),
  // at most half full, so a lookup is a probe or two and never allocates (issue 35: a log with
  // a distinct host:pid on every line looks up, and misses, on every line).
  // A 16-bit tag per slot (0: empty) apart from the streams, so a miss reads 2 bytes a probe.
  std::vector<std::uint16_t> index_tag;
  std::vector<Live*> index_live;
  std::size_t index_used = 0;
  static std::uint64_t stream_key(std::string_view host, long pid, int dev) {
    std::uint64_t x = nccl_head_hash(host) ^
                      (static_cast<std::uint64_t>(pid) * 0x9E3779B97F4A7C15ull) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dev)) << 48);
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
  }
  static std::uint16_t key_tag(std::uint64_t key) {
    return static_cast<std::uint16_t>((key >> 48) | 1);
  }
  // A bit per hash of (pid, device) of the streams indexed (64 KiB): most lookups of a stream
  // not kept (a distinct host:pid on every line) end at a clear bit, before the host is hashed.
  static constexpr unsigned kPidBits = 19;
  std::vector<std::uint64_t> pid_filter;
  static std::size_t pid_bit(long pid, int dev) {
    const std::uint64_t x = (static_cast<std::uint64_t>(pid) ^
                             (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dev)) << 40)) *
                            0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(x >> (64 - kPidBits));
  }
  void index_insert(Live* l) {
    if (pid_filter.empty()) pid_filter.assign((std::size_t{1} << kPidBits) / 64, 0);
    const std::size_t bit = pid_bit(l->s->pid, l->s->cuda_dev);
    pid_filter[bit / 64] |= std::uint64_t{1} << (bit % 64);
    if ((index_used + 1) * 2 > index_tag.size()) {
      std::vector<Live*> old;
      old.swap(index_live);
      const std::size_t size = std::max<std::size_t>(64, index_tag.size() * 2);
      index_tag.assign(size, 0);
      index_live.assign(size, nullptr);
      index_used = 0;
      for (Live* e : old)
        if (e) index_put(e);
    }
    index_put(l);
  }
  void index_put(Live* l) {
    const std::uint64_t key = stream_key(l->s->host, l->s->pid, l->s->cuda_dev);
    const std::size_t mask = index_tag.size() - 1;
    std::size_t i = key & mask;
    while (index_tag[i]) i = (i + 1) & mask;
    index_tag[i] = key_tag(key);
    index_live[i] = l;
    ++index_used;
  }

  Live* lookup(std::string_view host, long pid, int dev) const {
    if (index_tag.empty()) return nullptr;
    const std::size_t bit = pid_bit(pid, dev);
    if (!(pid_filter[bit / 64] >> (bit % 64) & 1)) return nullptr;
    const std::uint64_t key = stream_key(host, pid, dev);
    const std::uint16_t tag = key_tag(key);
    const std::size_t mask = index_tag.size() - 1;
    for (std::size_t i = key & mask; index_tag[i]; i = (i + 1) & mask) {
      if (index_tag[i] != tag) continue;
      const NcclStream* st = index_live[i]->s;
      if (st->pid == pid && st->cuda_dev == dev && st->host == host) return index_live[i];
    }
    return nullptr;
  }

  NcclStream& stream(NcclRecord& r, std::uint64_t n) {
    // Consecutive lines often come from the same rank: skip the lookup.
    NcclStream* s = last_stream;
    if (!s || s->pid != r.pid || s->cuda_dev != r.dev || s->host != r.host) {
      Live* l = lookup(r.host, r.pid, r.dev);
      if (!l && !r.host.empty() &&
          (r.after_record || !std::isalpha(static_cast<unsigned char>(r.host[0])))) {
        if (std::size_t cut = glued_host_prefix(r.host, host_names, r.after_record); cut > 0) {
          r.host.remove_prefix(cut);
          l = lookup(r.host, r.pid, r.dev);
        }
      }
      s = l ? l->s : nullptr;
      cur_live = l;
      if (!s) {
        if (f.streams.size() >= kStreamCap) {
          f.stream_cap = kStreamCap;
          ++f.folded_records;
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
          index_insert(cur_live);
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
    s->last_seen.line = static_cast<int>(std::min<std::uint64_t>(n, 2147483647));  // as at(n)
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

  // The "2.27.7" a version line starts with ("2.27.7+cuda12.9", "2.22.3-HEAD:..."), or "".
  static std::string_view version_number(std::string_view v) {
    std::size_t e = 0;
    while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
    v = v.substr(0, e);
    while (!v.empty() && v.back() == '.') v.remove_suffix(1);
    return v.size() > 16 ? std::string_view() : v;
  }

  void version(std::string_view v, const std::string& host, std::string_view text, std::uint64_t n,
               NcclStream* s) {
    v = version_number(v);
    if (v.empty()) return;
    std::string ver(v);
    if (!f.versions.count(ver) && f.versions.size() < kSetCap) f.versions[ver] = log_line(text, n);
    if (f.versions.count(ver))
      cap_insert(f.version_hosts[ver], host.empty() ? std::string(kUnprefixedHost) : host);
    if (s) s->version = ver;
  }

  // RCCL's version line, `v` after "RCCL version ": ": 2.22.3-HEAD:271856d" (ROCm 6.2+) or
  // "2.16.5+hip5.6 <hash>" (ROCm 5.x); ROCm/rccl src/init.cc showVersion.
  void rccl_version(std::string_view v, std::string_view text, std::uint64_t n) {
    if (v.size() >= 2 && v[0] == ':' && v[1] == ' ') v.remove_prefix(2);
    v = version_number(v);
    if (v.empty()) return;
    std::string ver(v);
    if (!f.rccl_versions.count(ver) && f.rccl_versions.size() < kSetCap)
      f.rccl_versions[ver] = log_line(text, n);
  }

  // The line RCCL prints after its version (the same INFO message, so without a record head):
  // "ROCm version : 6.4.0.0-47-73dae9c". True when `t` was that line.
  bool rocm_version(std::string_view t) {
    if (t.compare(0, 15, "ROCm version : ") != 0) return false;
    std::string_view v = t.substr(15);
    std::size_t e = 0;
    while (e < v.size() && e < 40 && !std::isspace(static_cast<unsigned char>(v[e]))) ++e;
    if (e > 0) cap_insert(f.rocm_versions, std::string(v.substr(0, e)));
    return true;
  }

  void record(NcclRecord& r, std::uint64_t n);
  void framework_line(std::string_view line, std::uint64_t n);
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
  void warning_seen(std::string_view m, const std::string& host, std::string_view text,
                    std::uint64_t n, const void* who);
  // A warning of libfabric's or UCX's own (NcclRunFacts::library_warnings): counted, and kept
  // once per place in that library's source.
  void library_warning(std::string_view library, std::string_view provider, std::string_view site,
                       std::string_view level, std::string_view message, std::string_view text,
                       std::uint64_t n);
  void classify_problem(std::string_view msg, const std::string& host, std::string_view text,
                        std::uint64_t n, bool is_warn);
  void channel(std::string_view m, const NcclStream& s, std::string_view text, std::uint64_t n);
  // A connection line, " via " at m[v]: its transport, cached by the bytes after " via ".
  void channel_via(std::string_view m, std::size_t v, const NcclStream& s, std::string_view text,
                   std::uint64_t n);
  struct TailSlot {
    std::string tail;  // "NET/IB/3/GDRDMA/Shared" as the line ends
    std::size_t slot = 0;
  };
  std::size_t transport_slot(std::string_view t, std::string_view text, std::uint64_t n);
  std::vector<TailSlot> tail_slots;  // at most kTailSlots; the label is a function of the bytes
  static constexpr std::size_t kTailSlots = 255;
  // tail_slots index + 1 by tail_hash (0: none): the entry a tail had last (channel_via).
  std::uint8_t tail_index[64] = {};
  static std::size_t tail_hash(std::string_view t) {  // its length, first and last 8 bytes
    std::uint64_t a = 0, z = 0;
    if (t.size() >= 8) {  // two loads of 8 bytes (a copy of n bytes is a call or a byte loop)
      std::memcpy(&a, t.data(), 8);
      std::memcpy(&z, t.data() + t.size() - 8, 8);
    } else if (!t.empty()) {
      std::memcpy(&a, t.data(), t.size());
      std::memcpy(&z, t.data(), t.size());
    }
    const std::uint64_t x = (a * 0xff51afd7ed558ccdull) ^ z ^ t.size();
    return static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ull) >> 58);
  }
  // The block scanner's connection line (NcclLogAnalyzer::line would take fast_record then
  // record's connection branch): false when its head is not a known one, and nothing is done.
  bool fast_conn(std::string_view text, std::uint64_t n, bool cut, std::size_t head_slot,
                 std::size_t tag, std::size_t via);
  // The same line behind a head not known, once the stream table is full: a record of a stream
  // not kept is folded (counted, its transport read) without the record splitter. False when
  // its head is not a plain "host:pid:tid [dev]" or its stream is kept, and nothing is done.
  bool fast_conn_folded(std::string_view text, std::uint64_t n, bool cut, std::size_t tag,
                        std::size_t via);
  void comm_line(std::string_view m, NcclStream& s, std::uint64_t n);
  void net_ib_line(std::string_view m, std::string_view text, std::uint64_t n);
  void plain(std::string_view line, std::uint64_t n);
  // A WARN read without its host:pid:tid prefix: message `m` of the line `t`.
  void headless_warn(std::string_view m, std::string_view t, std::uint64_t n);
  // NCCL's own diagnostics (2.31+, "host:pid NCCL DIAG ..."; nccl_log_diag.cpp): true when the
  // line was one of theirs, or the RAS client's refusal to run them. `named`: the line holds
  // "NCCL" (without it, only a refusal is looked for).
  bool diag_line(std::string_view line, std::uint64_t n, bool named);
  void profile_bootstrap(std::string_view m, const NcclStream& s, std::uint64_t n);
  void profile_net_ib(std::string_view m, const NcclStream& s);
  void profile_socket(std::string_view m, const NcclStream& s);
  void socket_line(std::string_view m, const NcclStream& s, std::uint64_t n);
  void nccl_tests_device(std::string_view t);
  NcclNetDevice& device(std::string_view name);
};

}  // namespace trainready
