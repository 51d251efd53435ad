// The analyser's readers of INFO records: graphs, HCAs, collectives, settings (communicator
// lines: nccl_log_comm.cpp).
#include "facts/nccl_error_trail.h"
#include "facts/nccl_init_phase.h"
#include "parsers/nccl_log_internal.h"
#include "parsers/nccl_plugin_line.h"

#include <cctype>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trainready {
namespace nccl_log_detail {

bool is_junk(std::string_view line) {
  // A control byte other than tab and ESC (NUL among them): most lines a script prints take
  // this test, so it reads 16 bytes a step.
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i low = _mm_set1_epi8(0x1f), tab = _mm_set1_epi8('\t'), esc = _mm_set1_epi8(0x1b);
  for (; i + 16 <= line.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, low), v);  // v <= 0x1f
    const __m128i allowed = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, esc));
    if (_mm_movemask_epi8(_mm_andnot_si128(allowed, control)) != 0) return true;
  }
#endif
  for (; i < line.size(); ++i)
    if (p[i] < 0x20 && p[i] != '\t' && p[i] != 0x1b) return true;
  return false;
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

// The result code of a trail line ("2" of "... -> 2 [Async thread]").
std::string_view trail_code(std::string_view m) {
  const std::size_t a = m.find(" -> ");
  if (a == std::string_view::npos) return {};
  std::size_t e = a + 4;
  while (e < m.size() && m[e] >= '0' && m[e] <= '9') ++e;
  return m.substr(a + 4, e - a - 4);
}

bool known_info(std::string_view m) {
  m = trim(m);
  if (m.empty()) return true;
  if (m[0] >= '0' && m[0] <= '9') return true;  // graph channel dumps " 0 : GPU/0 GPU/1"
  for (std::string_view p : kKnownPrefixes) {
    if (p[0] == m[0] && starts(m, p)) return true;  // the first byte before a memcmp call
  }
  // Tuning table rows: "   Broadcast |  ..."
  return has(m, " |");
}

}  // namespace nccl_log_detail

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

void NcclLogAnalyzer::State::net_ib_line(std::string_view m, std::string_view text,
                                         std::uint64_t n) {
  // The network the line is from ("NET/IB : ...", "NET/FastSocket : ...", "NET/IB: [0] ..."):
  // kept on each device it names (a socket plugin moves data through host memory by design).
  std::string_view net;
  if (const std::size_t c = m.find(':', 4); starts(m, "NET/") && c != std::string_view::npos) {
    net = trim(m.substr(4, c - 4));
    if (net.size() > 32 || net.find('[') != std::string_view::npos) net = {};
  }
  auto on_net = [&](NcclNetDevice& d) {
    if (d.net.empty() && !net.empty()) d.net = std::string(net);
  };
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
        on_net(d);
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
  // 2.4-2.5 print the distance reading behind the transport's name ("NET/%s : GPU Direct RDMA
  // Disabled for GPU %lx / HCA %d (distance %d >= %d)", transport/net.cc v2.5.6-2); 2.6+ without
  // it (read in `info`).
  // Before 2.5 the same form also gives the peer-memory check's failure: "... for GPU %d / HCA %s
  // (not supported by GPU)" (src/transport/net_ib.cu:226 @ v2.3.7-1, which prints it for a
  // missing module too: ncclIbGdrSupport returns ncclSystemError, never 1) and "... for GPU
  // %d[%d] / HCA %d '%s' (no module or not supported by GPU)" (net_ib.cc:226 @ v2.4.8-1).
  if (g != std::string_view::npos && starts(m.substr(g), "GPU Direct RDMA Disabled for GPU")) {
    const std::size_t why = m.rfind(" (");
    if (why != std::string_view::npos && has(m.substr(why), "not supported by GPU)")) {
      const std::size_t h = m.find("/ HCA ", g);
      std::string_view name =
          h == std::string_view::npos ? std::string_view() : trim(m.substr(h + 6, why - h - 6));
      if (const std::size_t q = name.find('\''); q != std::string_view::npos)
        name = name.substr(q + 1, name.rfind('\'') > q ? name.rfind('\'') - q - 1 : 0);
      if (!name.empty()) {
        NcclNetDevice& d = device(name);
        if (!d.gdr || *d.gdr) {
          d.gdr = false;
          d.gdr_reason = std::string(trim(m.substr(why)));
          d.example = log_line(text, n);
        }
        on_net(d);
      }
      return;
    }
    if (!f.gdr_disabled_by_distance) f.gdr_disabled_by_distance = log_line(text, n);
    return;
  }
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
      on_net(d);
    }
    return;
  }
  // A RoCE queue pair's GID: "... GID %ld (%lX/%lX)" after "qpn %d" ("qp_num %d" from 2.29.7),
  // the subnet prefix first; fe80::/64 is the 64-bit number 0x80FE read little-endian.
  if (const std::size_t gid = find(m, " GID ");
      gid != std::string_view::npos && (has(m, " qpn ") || has(m, " qp_num "))) {
    const std::size_t open = m.find(" (", gid + 5);
    const std::size_t slash = open == std::string_view::npos ? open : m.find('/', open);
    if (slash != std::string_view::npos && slash - open < 20) {
      if (m.substr(open + 2, slash - open - 2) == "80FE") {
        ++f.roce_gid_link_local;
        if (!f.roce_link_local_gid) f.roce_link_local_gid = log_line(text, n);
      } else {
        ++f.roce_gid_other;
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
      on_net(d);
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

// The head of a record ("host:pid:tid [dev]", the text before " NCCL "); "" for a line pasted
// without one ("NCCL INFO graph/topo.cc:380 -> 3"): such lines are read as one thread.
std::string_view NcclLogAnalyzer::State::record_head(std::string_view text) {
  if (text.substr(0, 5) == "NCCL ") return {};
  return text.substr(0, std::min(text.find(" NCCL "), text.size()));
}

// A record of `head`'s thread before the first error return: a WARN marks the thread, anything
// else unmarks it (NcclRunFacts::first_error_after_warn).
void NcclLogAnalyzer::State::last_record(std::string_view head, bool warn) {
  if (f.first_error_return) return;
  for (std::size_t i = 0; i < warned_last.size(); ++i)
    if (same_thread(head, warned_last[i])) {
      if (!warn) warned_last.erase(warned_last.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  if (warn && warned_last.size() < 64) warned_last.emplace_back(head);
}

// A WARN of another thread ends that thread's trail (its next "-> code" line is a new failure).
void NcclLogAnalyzer::State::other_trail_ends(std::string_view head) {
  for (OtherTrail& o : other_trails)
    if (same_thread(head, o.head)) o.open = false;
}

// Another thread's INFO line after the first error return: a trail line starts or goes on with
// that thread's trail, anything else ends it. A trail that passes the first one's place after its
// own first line started deeper: its first line is NcclRunFacts::deeper_error_return.
void NcclLogAnalyzer::State::other_trail(std::string_view head, std::string_view m,
                                         std::string_view text, std::uint64_t n) {
  if (same_thread(head, first_trail_head)) return;
  OtherTrail* t = nullptr;
  for (OtherTrail& o : other_trails)
    if (same_thread(head, o.head)) t = &o;
  if (!nccl_error_trail_line(m)) {
    if (t) t->open = false;
    return;
  }
  if (!t) {
    if (other_trails.size() < 16) other_trails.push_back({std::string(head), log_line(text, n)});
    return;
  }
  // The same failure: it passes the first trail's place with the same result code.
  if (t->open && m.substr(0, m.find(' ')) == first_trail_place && trail_code(m) == first_trail_code)
    f.deeper_error_return = t->first;
}

void NcclLogAnalyzer::State::info(const NcclRecord& r, NcclStream& s, std::uint64_t n) {
  std::string_view m = r.message;
  if (m.empty()) return;
  // The first trail and its callers: the same thread's next "file:line -> code" lines, until that
  // thread prints anything else (a later failure's trail is not this one's call path).
  if (!f.first_error_return && !warned_last.empty() && !nccl_error_trail_line(m))
    last_record(record_head(r.text), false);
  if (!f.first_error_return || first_trail_open) {
    const bool trail = nccl_error_trail_line(m);
    const std::string_view head = record_head(r.text);
    if (!f.first_error_return) {
      if (trail) {
        for (const std::string& w : warned_last)
          f.first_error_after_warn = f.first_error_after_warn || same_thread(head, w);
        warned_last.clear();
        f.first_error_return = log_line(r.text, n);
        first_trail_head = std::string(head);
        first_trail_open = true;
        first_trail_place = std::string(m.substr(0, m.find(' ')));
        first_trail_code = std::string(trail_code(m));
      }
    } else if (same_thread(head, first_trail_head)) {
      // Lines without a head are all one "thread": there a change of result code is another
      // failure's trail (a caller traces the code it got).
      if (trail && head.empty() && trail_code(m) != first_trail_code)
        first_trail_open = false;
      else if (trail && f.first_error_trail.size() < 32)
        f.first_error_trail.push_back(log_line(r.text, n));
      else
        first_trail_open = false;
    }
  }
  if (f.first_error_return && !f.deeper_error_return &&
      n <= static_cast<std::uint64_t>(f.first_error_return->where.line) + 4096)
    other_trail(record_head(r.text), m, r.text, n);
  // Connection lines are most of a log and never a failure; others may be (knowledge base).
  if (!starts(m, "Channel ") && failure_worded(m)) failures.info(quote(m), at(n), &s, time_of(n));
  // NCCL 2.0 - 2.6 named a connection "Ring %02d : a[dev] -> b[dev] via X" (transport/*.cu,
  // p2p.cc at v2.3.7-1 .. v2.6.4-1; "Channel" from 2.7); an excerpt may have lost "Ring 00 : ".
  if ((m[0] == 'R' && starts(m, "Ring ")) || (m[0] >= '0' && m[0] <= '9' && has(m, " -> "))) {
    if (m[0] == 'R')
      if (auto c = parse_ring_connection(m))
        ring_claims.add(*c, &s, [&] { return log_line(r.text, n); });
    return channel(m, s, r.text, n);
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
      // transport/nvls.cc (2.17 .. 2.30): the NVLS (NVLink SHARP) group and buffer setup of
      // init (initTransportsRank -> ncclNvlsSetup, ncclNvlsBufferSetup). From 2.22.3 the buffers
      // may be set up at the first collective instead (group.cc), after Init COMPLETE.
      if (nccl_nvls_setup_message(m)) {
        if (!s.init_complete) s.init_started = true;
        if (!f.nvls_setup) f.nvls_setup = log_line(r.text, n);
        return;
      }
      if (starts(m, "NET/IB") || starts(m, "NET/IBext")) {
        profile_net_ib(m, s);
        if (auto q = parse_ib_qp_mtu(m))
          ib_mtus.add(s.host, *q, [&] { return log_line(r.text, n); });
        return net_ib_line(m, r.text, n);
      }
      if (starts(m, "NET/Socket") || starts(m, "NET : Using interface "))
        return socket_line(m, s, n);
      if (starts(m, "NET/Plugin")) {
        Proc& pr = proc_of(s);
        if (pr.p.plugin.size() < 8) {
          const std::string_view outcome = nccl_plugin_outcome(m);
          if (!outcome.empty()) pr.p.plugin.insert(std::string(outcome));
        }
        if (const char* span = nccl_plugin_loader_releases(m);
            span && pr.p.loader_releases.size() < 4)
          pr.p.loader_releases.insert(span);
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
    case 'U': {
      // 2.6+: "Using network %s" (init.cc); 2.3.x: "Using internal Network %s" or, with a net
      // plugin, "Using external Network %s" (init.cu:74, :77 @ v2.3.5-5); 2.4-2.5 print neither.
      const std::size_t net_at =
          starts(m, "Using network ")                                                    ? 14
          : starts(m, "Using internal Network ") || starts(m, "Using external Network ") ? 23
                                                                                         : 0;
      if (net_at > 0) {
        std::string net(trim(m.substr(net_at)));
        proc_of(s).p.networks.insert(net);
        if (f.net_plugin.empty()) f.net_plugin = net;
        cap_insert(f.networks, net);
        s.init_started = true;
        return;
      }
      break;
    }
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
      if (starts(m, "Bootstrap")) return profile_bootstrap(m, s, n);
      break;
    case 'R':
      if (starts(m, "RCCL version ")) return rccl_version(m.substr(13), r.text, n);
      break;
    case 'P':
      if (starts(m, "Pattern ")) return search_line(m, s, r.text, n);
      // nccl-rdma-sharp-plugins (HPC-X's net plugin) at load: "Plugin Path : %s" (src/p2p_plugin.c)
      if (starts(m, "Plugin Path : ") && proc_of(s).p.plugin_libraries.size() < 4)
        proc_of(s).p.plugin_libraries.insert(std::string(trim(utf8_prefix(m.substr(14), 160))));
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
  // "NCCL_X set by environment to V." (src/include/param.h), and the older, shorter echo of a
  // few settings read outside it: "NCCL_IB_HCA set to V" (2.7.3+, net_ib), "NCCL_SOCKET_IFNAME
  // set to V" (2.6.4+, socket.cc), "NCCL_OOB_NET_IFNAME set to V" (2.23.4+, bootstrap.cc), each
  // printed once when the variable is set. The name is one word ("NCCL_ALGO was set to" is
  // part of an error text, not an echo).
  std::size_t echo = std::string_view::npos, echo_len = 0;
  if (starts(m, "NCCL_")) {
    const std::size_t word = m.find(' ');
    if (word != std::string_view::npos && m.compare(word, 23, " set by environment to ") == 0)
      echo = word, echo_len = 23;
    else if (word != std::string_view::npos && m.compare(word, 8, " set to ") == 0)
      echo = word, echo_len = 8;
  }
  if (echo != std::string_view::npos) {
    const std::size_t p = echo;
    std::string name(trim(m.substr(0, p)));
    std::string_view value = trim(m.substr(p + echo_len));
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
  if (f.cuda_driver.empty() && starts(m, "cudaDriverVersion ")) {
    if (auto v = int_after(m, "cudaDriverVersion "); v && *v > 0 && *v < 1000000)
      f.cuda_driver = std::to_string(*v / 1000) + "." + std::to_string(*v % 1000 / 10);
  }
  if (!f.mnnvl_line && starts(m, "MNNVL ")) f.mnnvl_line = log_line(r.text, n);
  if (!known_info(m) && !nccl_error_trail_line(m)) {  // an error trail's line is read above
    ++f.unknown_lines;
    // Never dropped silently: a line no pattern knows may be the one that explains the run.
    if (f.unrecognised.size() < 32) {
      std::string q = quote(m);
      bool dup = false;
      for (const auto& l : f.unrecognised) dup = dup || l.text == q;
      if (!dup) f.unrecognised.push_back({std::move(q), at(n), time_of(n)});
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

// nccl-tests: "#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX
// 5090"
}  // namespace trainready
