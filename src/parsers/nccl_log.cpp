#include "parsers/nccl_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "core/input_error.h"
#include "core/line_reader.h"
#include "parsers/libfabric_log_line.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_internal.h"
#include "parsers/nccl_log_scan.h"

namespace trainready {

namespace {

// RCCL's own marks on a record (RCCL prints NCCL's heads): a WARN's source path inside RCCL's tree
// (".../src/rccl/build/hipify/src/init.cc:2065 NCCL WARN"), or a plugin loader's line naming
// RCCL's plugin libraries ("librccl-net.so", "librccl-tuner.so").
bool rccl_record(const NcclRecord& r) {
  if (r.level == NcclLevel::kWarn) {
    const std::string_view head = r.text.substr(0, r.text.size() - r.message.size());
    return head.find("/rccl/") != std::string_view::npos ||
           head.find("/hipify/") != std::string_view::npos;
  }
  const std::string_view m = r.message;
  const bool plugin = m.size() > 12 && m[0] >= 'N' && m[0] <= 'T' &&
                      (m.starts_with("NET/Plugin") || m.starts_with("TUNER/Plugin") ||
                       m.starts_with("PROFILER/Plugin"));
  return plugin && m.find("librccl") != std::string_view::npos;
}

}  // namespace

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
  channel_via(m, v, s, text, n);
}

void NcclLogAnalyzer::State::channel_via(std::string_view m, std::size_t v, const NcclStream& s,
                                         std::string_view text, std::uint64_t n) {
  std::string_view t(m.data() + v + 5, m.size() - v - 5);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  // Some builds add the communicator after the transport ("via P2P/IPC comm 0x5609976f9470
  // nRanks 32"): the transport is what comes before it. One memchr: tails rarely hold a blank.
  if (std::memchr(t.data(), ' ', t.size()) != nullptr) {
    if (const std::size_t c = t.find(" comm 0x"); c != std::string_view::npos) t = t.substr(0, c);
  }
  std::size_t k = 0;
  bool known = false;
  // The tails alternate line by line ("P2P/CUMEM/read", "NET/IB/3/GDRDMA"): a direct-mapped
  // index by a hash of the tail's length and last bytes finds the entry in one compare, the list
  // (each tail once) behind it.
  std::uint8_t& hint = tail_index[tail_hash(t)];
  if (hint != 0 && same_bytes(tail_slots[hint - 1u].tail, t)) {
    k = tail_slots[hint - 1u].slot;
    known = true;
  } else {
    for (std::size_t i = 0; i < tail_slots.size() && !known; ++i) {
      if (same_bytes(tail_slots[i].tail, t)) {
        hint = static_cast<std::uint8_t>(i + 1);
        k = tail_slots[i].slot;
        known = true;
      }
    }
  }
  if (!known) k = transport_slot(t, text, n);
  if (k == slots.size()) return;  // a transport past the cap
  TransportUse& use = *slots[k].use;
  ++use.connections;
  // "... [send] via ...", "... [receive] via ..." (transport/net.cc): which side of the
  // connection this rank set up, the side that decides GPUDirect RDMA reads (sends) apart.
  const std::string_view before(m.data(), v);
  if (before.ends_with("[send]"))
    ++use.sends;
  else if (before.ends_with("[receive]"))
    ++use.receives;
  const std::uint64_t bit = std::uint64_t{1} << k;
  if (cur_live && !(cur_live->transports & bit)) {
    cur_live->transports |= bit;
    cap_insert(use.hosts, s.host);
  }
}

// The slot of the transport a connection line ends with (`t`, after " via "), created with its
// first line as the example; slots.size() when the table is full.
std::size_t NcclLogAnalyzer::State::transport_slot(std::string_view t, std::string_view text,
                                                   std::uint64_t n) {
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
  } else if (starts(t, "SHM") || starts(t, "direct shared memory")) {  // the latter: 2.0-2.6
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
    if (f.transports.size() >= kSetCap) return slots.size();
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
  // A network transport's device ("NET/Socket/1", "NET/IB/3/GDRDMA"): once per distinct tail.
  if (starts(label, "NET/") && slash2 != std::string_view::npos) {
    std::size_t i = slash2 + 1;
    unsigned dev = 0;
    while (i < t.size() && tp[i] >= '0' && tp[i] <= '9' && dev < 64)
      dev = dev * 10 + (tp[i++] - '0');
    if (i > slash2 + 1 && dev < 64 && (i == t.size() || tp[i] == '/'))
      slots[k].use->devices |= std::uint64_t{1} << dev;
  }
  if (tail_slots.size() < kTailSlots) {
    tail_index[tail_hash(t)] = static_cast<std::uint8_t>(tail_slots.size() + 1);
    tail_slots.push_back({std::string(t), k});
  }
  return k;
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
  if (!f.rccl_mark && rccl_record(r)) f.rccl_mark = log_line(r.text, n);
  if (r.level == NcclLevel::kWarn || r.level == NcclLevel::kAbort)
    warn(r, s, n);
  else
    info(r, s, n);
}

bool NcclLogAnalyzer::State::fast_conn(std::string_view text, std::uint64_t n, bool cut,
                                       std::size_t head_slot, std::size_t tag, std::size_t via) {
  if (heads.empty() || held.active) return false;  // a held WARN is released by line() first
  HeadSlot* hp = find_head(std::string_view(text.data(), tag), head_slot);
  if (!hp) return false;
  HeadSlot& h = *hp;
  // What NcclLogAnalyzer::line does for it: the counts, fast_record's stream, then record()'s
  // connection branch, whose stream() finds the remembered stream (same host, pid, device).
  // The stream's last line goes to its Live (merged at the end): per-rank state that is small
  // and flat, where the stream is a map node of several cache lines.
  ++f.lines;
  cur_line = n;
  if (cut) ++f.truncated_lines;
  last_stream = h.stream;
  cur_live = h.live;
  Live& l = *h.own;
  ++f.nccl_lines;
  l.fast_file = file_index;
  l.fast_line = static_cast<int>(std::min<std::uint64_t>(n, 2147483647));  // as at(n)
  const std::string_view m(text.data() + tag + 11, text.size() - tag - 11);
  if (!l.complete) {
    NcclStream& s = *h.stream;
    if (s.init_complete) {
      l.complete = true;
    } else {
      std::string_view lm = utf8_prefix(m, kQuoteMax);
      s.last_message.assign(lm.data(), lm.size());
    }
  }
  const std::string_view rtext(text.data() + h.host_off, text.size() - h.host_off);
  remember_tail(rtext, n);
  channel_via(m, via, *h.stream, rtext, n);
  return true;
}

bool NcclLogAnalyzer::State::fast_conn_folded(std::string_view text, std::uint64_t n, bool cut,
                                              std::size_t tag, std::size_t via) {
  if (f.streams.size() < kStreamCap) return false;
  // "host:pid:tid [dev]" from the text's start to the tag, nothing else: then the record
  // splitter (parse_head, read backwards) finds this host, pid and device, not glued.
  const char* const p = text.data();
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  auto host_char = [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
           c == '.' || c == '_';
  };
  if (tag == 0 || !std::isalpha(static_cast<unsigned char>(p[0]))) return false;
  std::size_t i = 0;
  while (i < tag && host_char(p[i])) ++i;
  const std::size_t host_end = i;
  if (i >= tag || p[i] != ':') return false;
  const std::size_t pid_begin = ++i;
  long pid = 0;  // as parse_head reads it: the digits up to the first value of 12 digits
  for (; i < tag && is_digit(p[i]); ++i)
    if (pid < 100000000000L) pid = pid * 10 + (p[i] - '0');
  const std::size_t pid_end = i;
  if (pid_end == pid_begin || i >= tag || p[i] != ':') return false;
  const std::size_t tid_begin = ++i;
  while (i < tag && is_digit(p[i])) ++i;
  if (i == tid_begin || i + 2 >= tag || p[i] != ' ' || p[i + 1] != '[') return false;
  i += 2;
  const std::size_t dev_begin = i;
  int dev = 0;  // as parse_head reads it
  for (; i < tag && is_digit(p[i]); ++i)
    if (dev < 100000) dev = dev * 10 + (p[i] - '0');
  if (i == dev_begin || i + 1 != tag || p[i] != ']') return false;
  const std::string_view host(p, host_end);
  // As stream(): the last stream, else the index; a stream kept takes the general path.
  if (last_stream && last_stream->pid == pid && last_stream->cuda_dev == dev &&
      last_stream->host == host)
    return false;
  if (lookup(host, pid, dev)) return false;
  // What line() -> record() -> stream() do for a record past the cap.
  ++f.lines;
  cur_line = n;
  if (cut) ++f.truncated_lines;
  ++f.nccl_lines;
  f.stream_cap = kStreamCap;
  ++f.folded_records;
  overflow_live.s = &overflow;
  cur_live = &overflow_live;
  remember_tail(text, n);
  channel_via(std::string_view(p + tag + 11, text.size() - tag - 11), via, overflow, text, n);
  return true;
}

NcclLogAnalyzer::NcclLogAnalyzer() : s_(std::make_unique<State>()) {}
NcclLogAnalyzer::~NcclLogAnalyzer() = default;

void NcclLogAnalyzer::end_file_lines() {
  State& st = *s_;
  HardWrapJoiner& w = st.wrap;
  w.end([&](std::string_view l, std::uint64_t n, bool cut) { read_copied_line(l, n, cut); });
  if (w.joined() > 0) {
    st.f.wrap_columns = std::max<std::uint64_t>(st.f.wrap_columns, w.width());
    st.f.wrap_joined += w.joined();
  }
  w = HardWrapJoiner();
}

void NcclLogAnalyzer::begin_file(const std::string& name) {
  end_file_lines();
  if (s_->held.active) s_->release_held();  // a WARN never continues into the next file
  s_->file = name;
  ++s_->file_index;
  s_->f.files.push_back(name);
}

void NcclLogAnalyzer::line(std::string_view raw, std::uint64_t number, bool cut) {
  State& st = *s_;
  if (st.wrap.passes()) return read_line(raw, number, cut);
  st.wrap.line(raw, number, cut, [&](std::string_view l, std::uint64_t n, bool c) {
    if (l.data() == raw.data()) return read_line(l, n, c);  // the scanner's own line
    read_copied_line(l, n, c);
  });
}

void NcclLogAnalyzer::read_copied_line(std::string_view raw, std::uint64_t number, bool cut) {
  // A line the joiner held (or joined) lives in its buffer, not in the scanner's block: the tail
  // must copy it.
  State& st = *s_;
  const bool views = st.tail_views;
  st.tail_views = false;
  read_line(raw, number, cut);
  st.tail_views = views;
}

void NcclLogAnalyzer::read_line(std::string_view raw, std::uint64_t number, bool cut) {
  State& st = *s_;
  thread_local std::string norm;  // prefixes, colour and CR off (issue 30): nccl_line_prefix.h
  const std::string_view text = normalize_nccl_line(raw, norm);
  // A normalised line lives in `norm`, which the next line reuses: the tail must copy it, not
  // keep a view into the scanner's block (found by fuzz_nccl_log under ASan).
  struct TailViews {
    bool& flag;
    bool saved;
    ~TailViews() { flag = saved; }
  } keep{st.tail_views, st.tail_views};
  struct RawView {  // `raw` is gone once this returns: nothing reads its time after
    std::string_view& view;
    ~RawView() { view = {}; }
  } raw_view{st.cur_raw};
  if (text.data() != raw.data()) st.tail_views = false;
  ++st.f.lines;
  st.cur_line = number;
  st.cur_raw = raw;
  if (cut) ++st.f.truncated_lines;
  auto read = [&](std::string_view r, std::string_view t) {
    if (st.held.active && st.join_held(r, t, cut)) return;  // the held WARN goes on here
    if (st.idle_streams == 0 && !st.f.streams.empty() && st.fast_collective(t)) return;
    if (st.fast_record(t, number)) return;
    std::size_t k = split_nccl_records(t, st.recs, 8);
    if (!cut && st.hold_warn(r, t, number, k)) return;  // read once the next line is seen
    if (k == 0) {
      if (!st.f.binary_junk && is_junk(t)) st.f.binary_junk = true;
      st.plain(t, number);
      return;
    }
    const NcclRecord first = st.recs[0];  // record() points the host at the stream's copy
    for (std::size_t i = 0; i < k; ++i) st.record(st.recs[i], number);
    if (k == 1) st.remember_head(t, first);
  };
  // Two lines in one: a libfabric 1.18.0-1.18.3 warning that ends without its newline, and what
  // the process wrote next (libfabric_log_line.h): each read on its own, both at this number.
  if (const std::size_t glued = libfabric_unterminated_end(text); glued != std::string_view::npos) {
    read(text.substr(0, glued), text.substr(0, glued));
    read(text.substr(glued), text.substr(glued));
    return;
  }
  read(raw, text);
}

NcclRunFacts NcclLogAnalyzer::finish() {
  end_file_lines();
  if (s_->held.active) s_->release_held();
  s_->merge_last_seen();
  s_->finish_hosts();
  NcclRunFacts out = std::move(s_->f);
  s_ = std::make_unique<State>();
  return out;
}

NcclRunFacts analyze_nccl_log_text(std::string_view text, const std::string& name,
                                   const NcclReadOptions& opt) {
  NcclLogAnalyzer a;
  a.begin_file(name);
  if (opt.line_reader) {
    LineReader::read_text(
        text, [&](std::string_view l, std::uint64_t n, bool cut) { a.line(l, n, cut); });
  } else {
    NcclScanSource src = NcclScanSource::memory(text);
    a.scan(src, opt.threads ? opt.threads : nccl_scan_threads(text.size()), opt.block_bytes);
  }
  return a.finish();
}

namespace {
// A plain regular file goes through the block scanner; stdin, pipes, gzip and anything
// LineReader refuses (devices, directories, over its size cap) through LineReader.
bool scan_file(NcclLogAnalyzer& a, const std::string& p, const NcclReadOptions& opt) {
  if (opt.line_reader || p == "-") return false;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) > LineReader::kMaxInputBytes)
    return false;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  unsigned char magic[2] = {};
  if (::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return false;
  NcclScanSource src =
      NcclScanSource::file(fd, p, opt.map_files ? static_cast<std::uint64_t>(st.st_size) : 0);
  a.scan(src, opt.threads ? opt.threads : nccl_scan_threads(static_cast<std::uint64_t>(st.st_size)),
         opt.block_bytes);
  return true;
}
}  // namespace

NcclRunFacts analyze_nccl_logs(const std::vector<std::string>& paths, const NcclReadOptions& opt) {
  namespace fs = std::filesystem;
  NcclLogAnalyzer a;
  auto one = [&](const std::string& p) {
    a.begin_file(p);
    if (scan_file(a, p, opt)) return;
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

namespace {
bool has_output_beyond_versions(const NcclRunFacts& f) {
  return f.nccl_lines > 0 || !f.timeouts.empty() || !f.lagging.empty() || !f.issues.empty() ||
         f.warning_lines > 0 || !f.verbs_lines.empty() || !f.library_warnings.empty() ||
         f.framework.judgeable() || !f.diagnostics.empty();
}
}  // namespace

bool has_nccl_output(const NcclRunFacts& f) {
  return !f.versions.empty() || has_output_beyond_versions(f);
}

bool has_only_nccl_versions(const NcclRunFacts& f) {
  return !(f.versions.empty() && f.rccl_versions.empty()) && !has_output_beyond_versions(f);
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
