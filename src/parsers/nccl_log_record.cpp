#include "parsers/nccl_log_record.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace trainready {
namespace {

struct HostChars {
  bool ok[256] = {};
  constexpr HostChars() {
    for (int c = 'a'; c <= 'z'; ++c) ok[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) ok[c] = true;
    for (int c = '0'; c <= '9'; ++c) ok[c] = true;
    ok[static_cast<unsigned char>('-')] = ok[static_cast<unsigned char>('.')] =
        ok[static_cast<unsigned char>('_')] = true;
  }
};
constexpr HostChars kHostChars;

bool host_char(char c) { return kHostChars.ok[static_cast<unsigned char>(c)]; }

bool digit(char c) { return c >= '0' && c <= '9'; }

// What ends a prefix before the host in the logs seen: mpirun's "[1,0]<stdout>:", a timestamp's
// "10:00:00|", a rank's "rank0>" ... and control bytes (a log is junk there, not a host).
bool separator_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f || std::strchr(":>])|,=\"'<[(/", c) != nullptr;
}

// At `tag` the line has " NCCL "; parse backwards "host:pid:tid [dev]" before it, with the
// "file.cc:123" NCCL puts between the two on WARN lines.
// Returns the offset where the record starts, or npos.
std::size_t parse_head(std::string_view line, std::size_t tag, NcclRecord& r) {
  if (tag == 0) return std::string_view::npos;
  std::size_t i = tag - 1;  // the character before the space
  if (line[i] != ']') {
    std::size_t k = i;
    // 2.30.7+ names the function too: "file.cc:123 (func) NCCL WARN" (src/debug.cc).
    if (line[k] == ')') {
      std::size_t open = line.rfind(" (", k);
      if (open != std::string_view::npos && open > 0 && k - open < 128) k = open - 1;
    }
    while (k > 0 && line[k] != ' ' && line[k] != ']' && tag - k < 128) --k;
    if (k < 2 || line[k] != ' ' || line[k - 1] != ']') return std::string_view::npos;
    i = k - 1;
  }
  std::size_t dev_end = i;
  while (i > 0 && digit(line[i - 1])) --i;
  if (i == dev_end || i == 0 || line[i - 1] != '[') return std::string_view::npos;
  int dev = 0;
  for (std::size_t k = i; k < dev_end && dev < 100000; ++k) dev = dev * 10 + (line[k] - '0');
  --i;  // at '['
  if (i == 0 || line[i - 1] != ' ') return std::string_view::npos;
  --i;  // at ' '
  // tid
  std::size_t tid_end = i;
  while (i > 0 && digit(line[i - 1])) --i;
  if (i == tid_end || i == 0 || line[i - 1] != ':') return std::string_view::npos;
  --i;
  std::size_t pid_end = i;
  while (i > 0 && digit(line[i - 1])) --i;
  if (i == pid_end || i == 0 || line[i - 1] != ':') return std::string_view::npos;
  long pid = 0;
  for (std::size_t k = i; k < pid_end && pid < 100000000000L; ++k) pid = pid * 10 + (line[k] - '0');
  --i;
  std::size_t host_end = i;
  while (i > 0 && host_char(line[i - 1])) --i;
  if (i == host_end) {
    // A host name redacted before pasting: "<hostname>:1234:1240 [0] NCCL INFO ...",
    // "[pod-name]:5310:5433 [7] ...". The placeholder stands for one host, named as written;
    // mpirun's "<stdout>:" and a launcher's "[rank3]:" are tags, not hosts.
    const char close = host_end > 0 ? line[host_end - 1] : '\0';
    const std::size_t open = close == '>'   ? line.rfind('<', host_end - 1)
                             : close == ']' ? line.rfind('[', host_end - 1)
                                            : std::string_view::npos;
    if (open == std::string_view::npos || host_end - open < 3 || host_end - open > 66)
      return std::string_view::npos;
    const std::string_view inner = line.substr(open + 1, host_end - open - 2);
    const bool rank_tag = inner.size() > 4 && inner.compare(0, 4, "rank") == 0 &&
                          std::all_of(inner.begin() + 4, inner.end(), digit);
    if (inner == "stdout" || inner == "stderr" || rank_tag ||
        std::all_of(inner.begin(), inner.end(), digit) ||
        !std::all_of(inner.begin(), inner.end(), [](char c) { return host_char(c) || c == ' '; }))
      return std::string_view::npos;
    i = open;
  }
  // A host name with characters DNS does not allow ("gpu;rm") is still the host the line names,
  // not its tail after the odd character: the host runs back to the line start, a blank, or a
  // separator a launcher prefix ends with ("[1,0]<stdout>:", "[rank3]:").
  if (i > 0 && !separator_char(line[i - 1]) && line[i - 1] != ' ' && line[i - 1] != '\t') {
    while (i > 0 && !separator_char(line[i - 1]) && line[i - 1] != ' ' && line[i - 1] != '\t' &&
           host_end - i < 256)
      --i;
  }
  r.host = line.substr(i, host_end - i);
  r.glued = i > 0 && line[i - 1] != ' ' && line[i - 1] != ':' && line[i - 1] != '>' &&
            line[i - 1] != ']' && line[i - 1] != '\t';
  r.pid = pid;
  r.dev = dev;
  return i;
}

bool level_at(std::string_view rest, NcclLevel& lv, std::size_t& len) {
  std::string_view word;
  if (rest.empty()) return false;
  switch (rest[0]) {
    case 'I':
      word = "INFO";
      lv = NcclLevel::kInfo;
      break;
    case 'W':
      word = "WARN";
      lv = NcclLevel::kWarn;
      break;
    case 'T':
      word = "TRACE";
      lv = NcclLevel::kTrace;
      break;
    case 'A':
      word = "ABORT";
      lv = NcclLevel::kAbort;
      break;
    default:
      return false;
  }
  if (rest.size() < word.size() || rest.compare(0, word.size(), word) != 0) return false;
  // The level is followed by a space, or ends the line ("NCCL INFO" with an empty message).
  if (rest.size() == word.size()) {
    len = word.size();
    return true;
  }
  if (rest[word.size()] != ' ') return false;
  len = word.size() + 1;
  return true;
}

}  // namespace

// memchr for the rare 'N' is several times faster than a general substring search on the hot
// path (every line of a multi-GB log).
std::size_t find_nccl_tag(std::string_view line, std::size_t pos) {
  const char* base = line.data();
  const std::size_t n = line.size();
  std::size_t i = pos + 1;  // the 'N' of " NCCL " comes after its leading space
  while (i + 5 <= n) {
    const void* hit = std::memchr(base + i, 'N', n - i);
    if (!hit) return std::string_view::npos;
    i = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
    if (i + 5 <= n && base[i - 1] == ' ' && base[i + 1] == 'C' && base[i + 2] == 'C' &&
        base[i + 3] == 'L' && base[i + 4] == ' ')
      return i - 1;
    ++i;
  }
  return std::string_view::npos;
}

std::size_t glued_host_prefix(std::string_view host,
                              const std::set<std::string, std::less<>>& known_hosts,
                              bool any_tail) {
  // A host name has at most 255 characters (DNS): no longer suffix can be a known host.
  for (std::size_t j = host.size() > 256 ? host.size() - 256 : 1; j < host.size(); ++j) {
    const char c = host[j - 1];
    if (!any_tail && !((c >= '0' && c <= '9') || c == '-' || c == '.')) break;
    if (known_hosts.count(host.substr(j)) > 0) return j;
  }
  return 0;
}

namespace {

// Before `at` (a blank before the level or the "NCCL" tag): "[dev]", or "[dev] file.cc:12" on a
// WARN line, with "[" at the line start or after a blank. Returns where that starts (npos: not
// such a head) and the device.
std::size_t short_head(std::string_view line, std::size_t at, int& dev) {
  std::size_t end = at;  // one past "]"
  if (end == 0 || line[end - 1] != ']') {
    std::size_t k = at;
    while (k > 0 && line[k - 1] != ' ' && line[k - 1] != ']' && at - k < 128) --k;
    if (k < 2 || line[k - 1] != ' ' || line[k - 2] != ']') return std::string_view::npos;
    end = k - 1;
  }
  const std::size_t close = end - 1;
  std::size_t d = close;
  while (d > 0 && digit(line[d - 1]) && close - d < 6) --d;
  if (d == close || d == 0 || line[d - 1] != '[') return std::string_view::npos;
  const std::size_t start = d - 1;
  if (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t') return std::string_view::npos;
  dev = 0;
  for (std::size_t k = d; k < close; ++k) dev = dev * 10 + (line[k] - '0');
  return start;
}

// "include/socket.h:344", "misc/ibvwrap.cu:63": where NCCL's WARN macro says it was called.
bool source_location(std::string_view s) {
  const std::size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= s.size() || s.size() > 128) return false;
  for (std::size_t k = colon + 1; k < s.size(); ++k)
    if (!digit(s[k])) return false;
  const std::string_view file = s.substr(0, colon);
  if (file.find(' ') != std::string_view::npos) return false;
  for (std::string_view ext : {".h", ".cc", ".cu", ".cpp"})
    if (file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0)
      return true;
  return false;
}

// A record read from `at` (the blank before the level word): a whole "host:pid:tid [dev]" head
// when there is one, else a short head (no host). Without the "NCCL" tag a short head is taken
// only with the source location NCCL put on WARN lines: "[0] INFO" alone is anyone's text.
std::size_t record_at(std::string_view line, std::size_t at, std::size_t level, bool tagged,
                      NcclRecord& r) {
  NcclLevel lv;
  std::size_t len = 0;
  if (!level_at(line.substr(level), lv, len)) return 0;
  std::size_t start = parse_head(line, at, r);
  if (start == std::string_view::npos) {
    int dev = -1;
    start = short_head(line, at, dev);
    // No head at all, the source location first: "include/socket.h:344 WARN Socket creation
    // failed" (a 2.0 - 2.2 WARN line cut at its head).
    if (start == std::string_view::npos && lv == NcclLevel::kWarn &&
        source_location(line.substr(0, at))) {
      start = 0;
      dev = -1;
    }
    if (start == std::string_view::npos) return 0;
    if (!tagged && (lv != NcclLevel::kWarn || line[at - 1] == ']')) return 0;
    if (tagged && start == 0 && dev < 0) return 0;  // "file.cc:1 NCCL WARN": the plain reader's
    r.host = {};
    r.pid = 0;
    r.dev = dev;
  }
  r.level = lv;
  r.message = line.substr(level + len);
  r.text = line.substr(start);
  return 1;
}

// The shapes other than "host:pid:tid [dev] NCCL LEVEL":
//  - NCCL 2.0 - 2.2 printed no "NCCL" tag ("host:pid:tid [0] INFO ...", "host:pid:tid [0]
//    misc/ibvwrap.cu:63 WARN ...": NVIDIA/nccl#111 quotes 2.0's "[0] include/socket.h:185 WARN");
//  - an excerpt whose "host:pid:tid" was cut off or masked ("[3] NCCL INFO Ring 00 ...",
//    "<cluster_name>:924:924 [5] NCCL INFO ...", "[3] misc/socket.cc:47 NCCL WARN ...");
//  - a bare "NCCL INFO ..." line (a bare WARN is the plain-line reader's).
// Heads without a host are read with an empty host and pid 0.
// The first " INFO " / " WARN " (`level`) starting before offset 512, else npos: memchr on its
// letter, where string_view::find compares at every space of the line (a training script's
// output, which takes this path, is mostly spaces and digits).
std::size_t find_level(std::string_view line, std::string_view level) {
  const std::size_t n = std::min<std::size_t>(line.size(), 512 + level.size() - 1);
  const char* const base = line.data();
  for (std::size_t i = 1; i + level.size() - 1 <= n;) {
    const void* hit = std::memchr(base + i, level[1], n - i);
    if (!hit) break;
    i = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
    if (i - 1 + level.size() > n) break;
    if (base[i - 1] == ' ' && std::memcmp(base + i, level.data() + 1, level.size() - 1) == 0)
      return i - 1;
    ++i;
  }
  return std::string_view::npos;
}

// "rank[busid]" as NCCL's connection lines name a peer: digits, '[', hex digits, ']'. Returns
// the offset past it, or npos.
std::size_t peer_at(std::string_view s, std::size_t i) {
  const std::size_t d = i;
  while (i < s.size() && digit(s[i]) && i - d < 7) ++i;
  if (i == d || i >= s.size() || s[i] != '[') return std::string_view::npos;
  const std::size_t h = ++i;
  while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])) && i - h < 16) ++i;
  if (i == h || i >= s.size() || s[i] != ']') return std::string_view::npos;
  return i + 1;
}

// A connection line's body with its "NCCL INFO Channel 00/0 : " head cut off, as an excerpt
// quotes it: "9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA" (transport.cc "%d[%lx] -> %d[%lx]
// [%s] via %s%s%s", v2.7.8-1 .. v2.30.7-1; "Ring 00 : a[dev] -> b[dev] via X" before 2.7). Only
// that exact shape: two peers, an arrow, then " via " and a transport name.
bool connection_body(std::string_view line) {
  std::size_t i = peer_at(line, 0);
  if (i == std::string_view::npos || line.compare(i, 4, " -> ") != 0) return false;
  i = peer_at(line, i + 4);
  if (i == std::string_view::npos) return false;
  std::string_view rest = line.substr(i);
  for (std::string_view dir : {" [send]", " [receive]"})
    if (rest.compare(0, dir.size(), dir) == 0) rest.remove_prefix(dir.size());
  return rest.size() > 5 && rest.compare(0, 5, " via ") == 0 && rest[5] != ' ';
}

std::size_t other_shapes(std::string_view line, NcclRecord& r) {
  if (!line.empty() && digit(line[0]) && connection_body(line)) {
    r.level = NcclLevel::kInfo;
    r.message = line;
    r.text = line;
    return 1;
  }
  if (line.size() >= 9 && line.compare(0, 5, "NCCL ") == 0) {
    NcclLevel lv;
    std::size_t len = 0;
    // A bare WARN stays with the plain-line reader, which has always read it.
    if (!level_at(line.substr(5), lv, len) || lv == NcclLevel::kWarn) return 0;
    r.level = lv;
    r.message = line.substr(5 + len);
    r.text = line;
    return 1;
  }
  if (const std::size_t tag = find_nccl_tag(line, 0); tag != std::string_view::npos && tag > 0)
    return record_at(line, tag, tag + 6, true, r);
  for (std::string_view level : {" INFO ", " WARN "}) {
    const std::size_t at = find_level(line, level);
    if (at != std::string_view::npos && at > 0 && record_at(line, at, at + 1, false, r) > 0)
      return 1;
  }
  return 0;
}

}  // namespace

std::size_t split_nccl_records(std::string_view line, NcclRecord* out, std::size_t max) {
  const std::size_t count = split_tagged_records(line, out, max);
  if (count > 0 || max == 0) return count;
  // Older releases and pasted excerpts: only when no whole record was found.
  out[0] = NcclRecord{};
  return other_shapes(line, out[0]);
}

std::size_t split_tagged_records(std::string_view line, NcclRecord* out, std::size_t max) {
  static constexpr std::string_view kTag = " NCCL ";
  std::size_t count = 0;
  std::size_t pos = 0;
  while (count < max) {
    const std::size_t tag = find_nccl_tag(line, pos);
    if (tag == std::string_view::npos) break;
    pos = tag + kTag.size();
    NcclRecord r;
    if (tag == 0) continue;
    const std::size_t start = parse_head(line, tag, r);
    if (start == std::string_view::npos) continue;
    NcclLevel lv;
    std::size_t lvlen = 0;
    if (!level_at(line.substr(pos), lv, lvlen)) continue;
    r.level = lv;
    const std::size_t msg = pos + lvlen;
    if (count > 0) {
      // The previous record ends where this one's host begins.
      NcclRecord& prev = out[count - 1];
      const char* prev_msg = prev.message.data();
      const std::size_t prev_off = static_cast<std::size_t>(prev_msg - line.data());
      if (start >= prev_off) {
        prev.message = line.substr(prev_off, start - prev_off);
        const std::size_t text_off = static_cast<std::size_t>(prev.text.data() - line.data());
        prev.text = line.substr(text_off, start - text_off);
      }
      prev.cut = true;
      // It cut the one before short, so its host may begin with that record's last characters
      // ("... parent 0x55cd375g183:161262:...").
      r.after_record = true;
    }
    r.message = line.substr(msg);
    r.text = line.substr(start);
    out[count++] = r;
    pos = msg;
  }
  return count;
}

}  // namespace trainready
