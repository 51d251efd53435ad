#include "parsers/nccl_log_record.h"

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
  if (i == host_end) return std::string_view::npos;
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
                              const std::set<std::string, std::less<>>& known_hosts) {
  for (std::size_t j = 1; j < host.size(); ++j) {
    const char c = host[j - 1];
    if (!((c >= '0' && c <= '9') || c == '-' || c == '.')) break;
    if (known_hosts.count(host.substr(j)) > 0) return j;
  }
  return 0;
}

std::size_t split_nccl_records(std::string_view line, NcclRecord* out, std::size_t max) {
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
    }
    r.message = line.substr(msg);
    r.text = line.substr(start);
    out[count++] = r;
    pos = msg;
  }
  return count;
}

}  // namespace trainready
