#include "parsers/nccl_line_prefix.h"

#include <nlohmann/json.hpp>

#include <cstring>

namespace trainready {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Digits from `i`; returns the index after them (== i when there are none).
std::size_t digits(std::string_view s, std::size_t i, std::size_t max = 12) {
  std::size_t k = i;
  while (k < s.size() && k - i < max && digit(s[k])) ++k;
  return k;
}

bool at(std::string_view s, std::size_t i, std::string_view word) {
  return i <= s.size() && s.size() - i >= word.size() &&
         std::memcmp(s.data() + i, word.data(), word.size()) == 0;
}

// The blank a writer puts after its prefix: where the text starts. One only: more are the
// line's own indent ("[rank3]:  of size ..." goes on a WARN as "  of size ..." does).
std::size_t skip_blanks(std::string_view s, std::size_t i) {
  return i < s.size() && (s[i] == ' ' || s[i] == '\t') ? i + 1 : i;
}

// Open MPI --tag-output: "[1,0]<stdout>:", "[1,12]<stderr>:" (also <stddiag>).
std::size_t mpirun_prefix(std::string_view s) {
  std::size_t i = digits(s, 1);
  if (i == 1 || !at(s, i, ",")) return 0;
  std::size_t j = digits(s, i + 1);
  if (j == i + 1 || !at(s, j, "]<")) return 0;
  for (std::string_view stream : {"stdout>:", "stderr>:", "stddiag>:"})
    if (at(s, j + 2, stream)) return j + 2 + stream.size();
  return 0;
}

// NCCL's own timestamp (src/debug.cc, v2.26.2-1+: NCCL_DEBUG_TIMESTAMP_FORMAT, default
// "[%F %T] ", on WARN lines by default, on every level with NCCL_DEBUG_TIMESTAMP_LEVELS=ALL;
// "%Nf" adds N digits of subseconds): "[2025-09-09 23:51:24] ", "[2025-09-09 23:51:24.123456] ".
std::size_t nccl_timestamp_prefix(std::string_view s) {
  static constexpr char kShape[] = "[dddd-dd-dd dd:dd:dd";
  if (s.size() < sizeof kShape) return 0;
  for (std::size_t i = 0; i + 1 < sizeof kShape; ++i)
    if (kShape[i] == 'd' ? !digit(s[i]) : s[i] != kShape[i]) return 0;
  std::size_t i = sizeof kShape - 1;
  if (at(s, i, ".") || at(s, i, ",")) {  // ',': Python logging's asctime ("%H:%M:%S,123")
    const std::size_t j = digits(s, i + 1, 9);
    if (j == i + 1) return 0;
    i = j;
  }
  if (!at(s, i, "] ")) return 0;
  return skip_blanks(s, i + 1);
}

// torchrun / PyTorch: "[rank3]:", "[default0]:", "[trainer3]:" and "[trainer0|0]:" (a role name,
// then the local rank); kubectl --prefix: "[pod/NAME/CONTAINER] ".
std::size_t bracket_prefix(std::string_view s) {
  if (s.size() < 4 || s[0] != '[') return 0;
  if (std::size_t m = mpirun_prefix(s); m > 0) return m;
  if (std::size_t t = nccl_timestamp_prefix(s); t > 0) return t;
  if (digit(s[1])) {  // a colour code whose ESC was lost on the way ("[0m ", "[1;31m")
    std::size_t k = 1;
    while (k < s.size() && k < 12 && (digit(s[k]) || s[k] == ';')) ++k;
    return k < s.size() && s[k] == 'm' ? skip_blanks(s, k + 1) : 0;
  }
  if (at(s, 1, "pod/")) {
    const std::size_t close = s.find("] ", 5);
    if (close == std::string_view::npos || close > 300) return 0;
    return skip_blanks(s, close + 1);
  }
  std::size_t i = 1;
  while (i < s.size() && i < 40 &&
         ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_'))
    ++i;
  if (i == 1) return 0;
  std::size_t j = digits(s, i);
  if (j == i) return 0;
  if (at(s, j, "|")) {  // "[trainer0|0]:"
    const std::size_t k = digits(s, j + 1);
    if (k == j + 1) return 0;
    j = k;
  }
  if (!at(s, j, "]:")) return 0;
  return skip_blanks(s, j + 2);
}

// srun --label: the task number right-aligned, then ": " ("0: ", " 12: ").
std::size_t srun_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && i < 6 && s[i] == ' ') ++i;
  const std::size_t j = digits(s, i, 7);
  if (j == i || !at(s, j, ": ")) return 0;
  return j + 2;
}

// An editor's or a pager's line number before a pasted line ("455 host:pid:tid [6] NCCL INFO
// ...", "455 NCCL version 2.4.8+cuda10.0"): digits and one blank, taken only before what NCCL
// starts a line with (a "host:pid:tid" word, or "NCCL"), so a count in other text stays.
std::size_t line_number_prefix(std::string_view s) {
  const std::size_t j = digits(s, 0, 6);
  if (j == 0 || !at(s, j, " ") || j + 1 >= s.size() || s[j + 1] == ' ') return 0;
  const std::string_view rest = s.substr(j + 1);
  if (rest.rfind("NCCL ", 0) == 0) return j + 1;
  const std::string_view word = rest.substr(0, std::min(rest.find(' '), std::size_t{256}));
  const std::size_t c1 = word.find(':');
  if (c1 == 0 || c1 == std::string_view::npos) return 0;
  const std::size_t c2 = word.find(':', c1 + 1);
  return c2 != std::string_view::npos && c2 > c1 + 1 && digit(word[c1 + 1]) ? j + 1 : 0;
}

// RFC 3339 / ISO 8601: "2024-05-01T12:34:56", then ".123456789" or ",123", then "Z" or
// "+00:00" or "+0000", then blanks ("|" too: some collectors write "time|text").
std::size_t timestamp_prefix(std::string_view s) {
  if (s.size() < 20) return 0;
  static constexpr char kShape[] = "dddd-dd-ddXdd:dd:dd";
  for (std::size_t i = 0; i + 1 < sizeof kShape; ++i) {
    const char want = kShape[i];
    const char c = s[i];
    if (want == 'd' ? !digit(c) : want == 'X' ? (c != 'T' && c != ' ') : c != want) return 0;
  }
  std::size_t i = 19;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    const std::size_t j = digits(s, i + 1, 12);
    if (j == i + 1) return 0;
    i = j;
  }
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    std::size_t j = digits(s, i + 1, 2);
    if (j != i + 3) return 0;
    if (at(s, j, ":")) ++j;
    const std::size_t k = digits(s, j, 2);
    if (k != j + 2) return 0;
    i = k;
  }
  if (i >= s.size() || (s[i] != ' ' && s[i] != '\t' && s[i] != '|')) return 0;
  std::size_t text = skip_blanks(s, s[i] == '|' ? i + 1 : i);
  // "time | text": a column edge after the blank (the CloudWatch console's rows).
  if (s[i] != '|' && text + 1 < s.size() && s[text] == '|' &&
      (s[text + 1] == ' ' || s[text + 1] == '\t'))
    text = skip_blanks(s, text + 1);
  // A CRI container log (containerd, CRI-O: /var/log/pods/.../N.log) writes the stream and a
  // tag after the time, "<time> stdout F <text>" (kubernetes/cri-api pkg/apis/runtime/v1/
  // constants.go: stream stdout/stderr, tag F a full line, P part of a longer one).
  for (std::string_view stream : {"stdout ", "stderr "})
    if (at(s, text, stream) && (at(s, text + 7, "F ") || at(s, text + 7, "P "))) return text + 9;
  return text;
}

// After a syslog time: "host tag[123]: " or "host tag: " (RFC 3164 HOSTNAME and TAG).
std::size_t syslog_host_tag(std::string_view s, std::size_t i) {
  std::size_t h = i;
  while (h < s.size() && h - i < 256 && s[h] != ' ' && s[h] != ':' && s[h] != '[') ++h;
  if (h == i || !at(s, h, " ")) return 0;
  std::size_t t = h + 1;
  while (t < s.size() && t - h < 64 && s[t] != ' ' && s[t] != ':' && s[t] != '[') ++t;
  if (t == h + 1) return 0;
  if (at(s, t, "[")) {
    const std::size_t p = digits(s, t + 1);
    if (p == t + 1 || !at(s, p, "]")) return 0;
    t = p + 1;
  }
  if (!at(s, t, ": ")) return 0;
  return t + 2;
}

// A month or weekday abbreviation and its blank at `i` (syslog's and ctime(3)'s "%b ", "%a ").
bool month_at(std::string_view s, std::size_t i) {
  static constexpr std::string_view kMonths[] = {"Jan ", "Feb ", "Mar ", "Apr ", "May ", "Jun ",
                                                 "Jul ", "Aug ", "Sep ", "Oct ", "Nov ", "Dec "};
  for (std::string_view m : kMonths)
    if (at(s, i, m)) return true;
  return false;
}
bool weekday_at(std::string_view s, std::size_t i) {
  static constexpr std::string_view kDays[] = {"Sun ", "Mon ", "Tue ", "Wed ",
                                               "Thu ", "Fri ", "Sat "};
  for (std::string_view d : kDays)
    if (at(s, i, d)) return true;
  return false;
}

// RFC 3164: "Dec  2 04:00:00 host tag[123]: ".
std::size_t syslog_prefix(std::string_view s) {
  if (s.size() < 20 || !month_at(s, 0)) return 0;
  std::size_t i = 4;
  if (s[i] == ' ') ++i;
  const std::size_t d = digits(s, i, 2);
  if (d == i || !at(s, d, " ")) return 0;
  i = d + 1;
  static constexpr char kClock[] = "dd:dd:dd ";
  for (std::size_t k = 0; k + 1 < sizeof kClock; ++k, ++i) {
    if (i >= s.size()) return 0;
    if (kClock[k] == 'd' ? !digit(s[i]) : s[i] != kClock[k]) return 0;
  }
  const std::size_t tag = syslog_host_tag(s, i);
  return tag > 0 ? tag : 0;
}

// Open MPI --timestamp-output: ctime(3)'s "Www Mmm dd hh:mm:ss yyyy" (the day padded with a
// blank) glued to the --tag-output tag, "%s[%s,%s]<%s>:", or alone before the stream, "%s<%s>:"
// (orte/mca/iof/base/iof_base_output.c, v1.3 .. v4.1); Open MPI 5's PMIx (openpmix v4.2 ..
// v5.0, src/common/pmix_iof.c) puts the time in brackets: "[%s]" then "[%s,%s]<%s>: " or
// "<%s>: ". The time only when a tag follows (mpirun_prefix reads it next), or time and stream.
std::size_t ctime_prefix(std::string_view s) {
  const std::size_t open = !s.empty() && s[0] == '[' ? 1 : 0;  // PMIx's brackets
  const std::size_t kLen = open + 24 + open;                   // "Wed Jan 24 16:28:44 2018", "]"
  if (s.size() <= kLen) return 0;
  if (!weekday_at(s, open) || !month_at(s, open + 4)) return 0;
  static constexpr char kRest[] = "_d dd:dd:dd dddd";  // '_': a digit or the blank padding one
  for (std::size_t k = 0; k + 1 < sizeof kRest; ++k) {
    const char c = s[open + 8 + k];
    if (kRest[k] == 'd' ? !digit(c) : kRest[k] == '_' ? !(digit(c) || c == ' ') : c != kRest[k])
      return 0;
  }
  if (open && s[kLen - 1] != ']') return 0;
  if (s[kLen] == '[') return kLen;
  for (std::string_view stream : {"<stdout>:", "<stderr>:", "<stddiag>:"})
    if (at(s, kLen, stream)) return skip_blanks(s, kLen + stream.size());
  return 0;
}

// A table column: the AWS CloudWatch Logs console copies its rows as "  | <time> | <message>"
// (aws/aws-ofi-nccl#889); "| " at the start of a line, after at most six blanks, is one column
// edge.
std::size_t column_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && i < 6 && s[i] == ' ') ++i;
  if (i + 2 >= s.size() || s[i] != '|' || (s[i + 1] != ' ' && s[i + 1] != '\t')) return 0;
  return skip_blanks(s, i + 1);
}

// A Markdown or e-mail quote, "> " (a log quoted in an issue or a reply); "> > " is two.
std::size_t quote_prefix(std::string_view s) {
  if (s.size() < 2 || s[0] != '>') return 0;
  return s[1] == ' ' ? 2 : 0;
}

// Markdown's code marks glued to a pasted line: a fence whose newline was lost ("```host:pid:tid
// [0] NCCL INFO ..." when an issue's code block is copied as text) or an inline code span's
// backtick. NCCL never starts a line with a backtick.
std::size_t backtick_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && i < 8 && s[i] == '`') ++i;
  return i;
}

// Ray: "(RayWorkerWrapper pid=50232, ip=10.1.0.67) ", "(pid=983) ".
std::size_t ray_prefix(std::string_view s) {
  const std::size_t pid = s.find("pid=");
  if (pid == std::string_view::npos || pid > 80) return 0;
  const std::size_t close = s.find(") ", pid);
  if (close == std::string_view::npos || close > 160) return 0;
  for (std::size_t k = 1; k < pid; ++k)
    if (s[k] == '(' || s[k] == ')') return 0;
  return skip_blanks(s, close + 1);
}

// Ray's log deduplication after a line a worker printed (its "(pid=N)" prefix cut first): "
// [repeated 15x across cluster]", coloured ("ESC[32m ... ESC[0m", removed above, or " [32m" and "
// [0m" where a copy lost the escape byte), the first time followed by "(Ray deduplicates logs by
// default. Set RAY_DEDUP_LOGS=0 ...)". The line NCCL printed is what comes before it.
std::string_view ray_dedup_cut(std::string_view s) {
  const std::size_t r = s.rfind(" [repeated ");
  if (r == std::string_view::npos) return s;
  const std::size_t k = digits(s, r + 11, 9);
  if (k == r + 11 || !at(s, k, "x across cluster]")) return s;
  s = s.substr(0, r);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  // A colour code that lost its escape byte: "[32m".
  if (!s.empty() && s.back() == 'm') {
    std::size_t b = s.size() - 1;
    while (b > 0 && ((s[b - 1] >= '0' && s[b - 1] <= '9') || s[b - 1] == ';')) --b;
    if (b > 0 && b < s.size() - 1 && s[b - 1] == '[') s = s.substr(0, b - 1);
  }
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

// Colour (SGR: "ESC [ params m", what loggers and `--color` add) removed. Other control
// sequences stay: they are not how logs are captured, and the reporters show them escaped, so a
// hostile line is seen for what it is (tests/e2e/hostile_text_test.cpp).
std::string_view strip_colour(std::string_view line, std::string& scratch) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      std::size_t k = i + 2;
      while (k < line.size() && ((line[k] >= '0' && line[k] <= '9') || line[k] == ';')) ++k;
      if (k < line.size() && line[k] == 'm') {
        i = k + 1;
        continue;
      }
    }
    out.push_back(line[i++]);
  }
  scratch.swap(out);
  return scratch;
}

std::size_t line_prefix_length(std::string_view s) {
  if (s.empty() || !line_prefix_may_start(s[0])) return 0;
  switch (s[0]) {
    case '[':
      if (std::size_t t = ctime_prefix(s); t > 0) return t;  // PMIx's "[Www Mmm dd ...]"
      return bracket_prefix(s);
    case '(':
      return ray_prefix(s);
    case ' ': {
      if (std::size_t t = srun_prefix(s); t > 0) return t;
      // An indented excerpt of NCCL lines without their head ("  NCCL INFO Using network IB").
      std::size_t b = 0;
      while (b < s.size() && b < 16 && (s[b] == ' ' || s[b] == '\t')) ++b;
      if (at(s, b, "NCCL ")) return b;
      return column_prefix(s);
    }
    case '|':
      return column_prefix(s);
    case '>':
      return quote_prefix(s);
    case '`':
      return backtick_prefix(s);
    default:
      break;
  }
  if (digit(s[0])) {
    if (std::size_t t = timestamp_prefix(s); t > 0) {
      // journald / rsyslog with an ISO time: "2024-05-01T12:34:56+00:00 host tag[1]: ". A
      // "host tag: " that is the whole rest of the line is the line's own text ("Last error: ").
      const std::size_t tag = syslog_host_tag(s, t);
      return tag > 0 && tag < s.size() ? tag : t;
    }
    if (std::size_t t = srun_prefix(s); t > 0) return t;
    return line_number_prefix(s);
  }
  if (std::size_t t = ctime_prefix(s); t > 0) return t;
  if (s[0] >= 'A' && s[0] <= 'S') return syslog_prefix(s);
  return 0;
}

// Docker's json-file log driver writes each line as {"log":"<the line, JSON-escaped, with its
// \n>","stream":"stderr","time":"..."}, "log" first (moby daemon/logger/jsonfilelog/jsonlog/
// jsonlogbytes.go, MarshalJSONBuf). The line is the "log" string decoded, without its newline;
// anything else that starts the same way is left as it is (a blank after the colon too, as a
// re-serialised copy has it).
std::string_view docker_json_log(std::string_view line, std::string& scratch) {
  if (!is_docker_json_log(line)) return line;
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return line;
  const auto it = j.find("log");
  if (it == j.end() || !it->is_string()) return line;
  scratch = it->get<std::string>();
  while (!scratch.empty() && (scratch.back() == '\n' || scratch.back() == '\r')) scratch.pop_back();
  return scratch;
}

// A Markdown autolink a log picked up on its way into an issue or a chat: GitHub links a word
// that ends in a top-level domain, and NCCL's source files end in ".cc" (the Cocos Islands), as
// do addresses: "transport/[net_ib.cc:101](http://net_ib.cc:101/)", "peer
// [10.1.3.201](http://10.1.3.201/)<33057>" (NVIDIA/nccl#1710). A link is unwrapped only when its
// URL is "http://" or "https://" followed by its own text (and at most a "/"): the text the log
// had. Connection lines ("INFO Channel ... via ...") are left as they are: the scanner reads them
// from fixed offsets (nccl_log_scan.cpp), and no autolink falls inside one of NCCL's - their head
// holds the hostname only up to its first '.' (getHostName(hostname, 1024, '.'), src/debug.cc:98
// @ v2.21.5-1) and the rest no word with a dot. Linear in the line: a link's text is looked for
// in the 256 bytes before its "](" and its URL compared in place.
namespace {

std::string_view unwrap_autolinks(std::string_view line, std::string& scratch) {
  std::size_t p = line.find("](http");
  if (p == std::string_view::npos || line.find("INFO Channel ") != std::string_view::npos)
    return line;
  std::string out;
  std::size_t from = 0;  // the bytes of `line` not yet copied
  for (; p != std::string_view::npos; p = line.find("](http", p + 1)) {
    std::size_t open = p;
    const std::size_t stop = p > from + 256 ? p - 256 : from;
    while (open > stop && line[open - 1] != '[' && line[open - 1] != ']' && line[open - 1] != ' ')
      --open;
    if (open == stop || line[open - 1] != '[' || open == p) continue;
    const std::string_view text = line.substr(open, p - open);
    std::size_t u = p + 2;  // the URL
    if (line.compare(u, 7, "http://") == 0)
      u += 7;
    else if (line.compare(u, 8, "https://") == 0)
      u += 8;
    else
      continue;
    if (line.compare(u, text.size(), text) != 0) continue;
    u += text.size();
    if (u < line.size() && line[u] == '/') ++u;
    if (u >= line.size() || line[u] != ')') continue;
    out.append(line.substr(from, open - 1 - from));
    out.append(text);
    from = u + 1;
    p = u;
  }
  if (from == 0) return line;
  out.append(line.substr(from));
  scratch = std::move(out);
  return scratch;
}

// The length of the quotation mark `s` starts with (ASCII '"', '\'' and '`'; the typographic
// and CJK ones an editor or an input method puts around a pasted line: U+201C-U+201E, U+00AB,
// U+00BB, U+300C-U+300F), or 0.
std::size_t quote_mark_at(std::string_view s, std::size_t i) {
  if (i >= s.size()) return 0;
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  if (s[i] == '"' || s[i] == '\'' || s[i] == '`') return 1;
  if (i + 1 < s.size() && b(i) == 0xC2 && (b(i + 1) == 0xAB || b(i + 1) == 0xBB)) return 2;
  if (i + 2 < s.size() && b(i) == 0xE2 && b(i + 1) == 0x80 && b(i + 2) >= 0x9C && b(i + 2) <= 0x9E)
    return 3;
  if (i + 2 < s.size() && b(i) == 0xE3 && b(i + 1) == 0x80 && b(i + 2) >= 0x8C && b(i + 2) <= 0x8F)
    return 3;
  return 0;
}

// A whole NCCL line a paste put between quotation marks ("\u201dmisc/ibvwrap.cc:280 NCCL WARN Call
// to ibv_create_qp failed\u201c", NVIDIA/nccl#1129): the line without them. Both ends must carry
// one and the text between must name NCCL: a terminal's continuation of a folded line can be a
// quoted string of NCCL's own ("'CUDA driver version is insufficient ...'"), which stays whole.
std::string_view unquote_line(std::string_view line) {
  if (line.size() < 8) return line;
  const std::size_t open = quote_mark_at(line, 0);
  if (open == 0) return line;
  for (std::size_t close : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
    if (line.size() < open + close + 4) break;
    if (quote_mark_at(line, line.size() - close) != close) continue;
    const std::string_view inner = line.substr(open, line.size() - open - close);
    return inner.find("NCCL ") != std::string_view::npos ? inner : line;
  }
  return line;
}

}  // namespace

std::string_view normalize_nccl_line(std::string_view line, std::string& scratch) {
  if (!line.empty() && line[0] == '{') line = docker_json_log(line, scratch);
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  line = unquote_line(line);
  // Most lines carry neither colour nor a prefix: two byte tests and one memchr.
  if (!line.empty() && std::memchr(line.data(), '\x1b', line.size()) != nullptr)
    line = strip_colour(line, scratch);
  bool cut = false;
  for (int k = 0; k < 8; ++k) {
    const std::size_t n = line_prefix_length(line);
    if (n == 0 || n >= line.size()) break;
    line.remove_prefix(n);
    cut = true;
  }
  // Ray's workers' lines carry a prefix, so only a line that had one is looked at for its suffix.
  if (cut && line.size() > 30) line = ray_dedup_cut(line);
  if (line.size() > 12 && std::memchr(line.data(), '(', line.size()) != nullptr)
    line = unwrap_autolinks(line, scratch);
  return line;
}

}  // namespace trainready
