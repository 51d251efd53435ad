#include "parsers/kernel_log.h"

#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "core/input_error.h"
#include "core/line_reader.h"
#include "core/text.h"

namespace trainready {
namespace {

// Everything before "NVRM:" on the line, without the syslog "kernel:" tag: the timestamp as the
// tool that wrote the log printed it.
std::string timestamp_of(std::string_view line, std::size_t nvrm_at) {
  std::string_view ts = trim(line.substr(0, nvrm_at));
  if (ts.size() >= 7 && ts.substr(ts.size() - 7) == "kernel:")
    ts = trim(ts.substr(0, ts.size() - 7));
  return std::string(ts);
}

// Any timestamp-looking prefix of a line ("[  12.3]", "[Sun Feb 23 ...]", "Feb 23 16:24:18",
// "2026-08-15T14:32:10+0000"), for how far back the log goes.
std::string line_timestamp(std::string_view line) {
  line = trim(line);
  if (line.empty()) return "";
  if (line.front() == '[') {
    auto close = line.find(']');
    if (close != std::string_view::npos && close < 40)
      return std::string(line.substr(0, close + 1));
    return "";
  }
  // syslog "Mmm dd hh:mm:ss" or ISO 8601: up to the third space / the first space.
  if (line.size() > 15 && std::isalpha(static_cast<unsigned char>(line[0])) && line[3] == ' ' &&
      line[9] == ':') {
    return std::string(line.substr(0, 15));
  }
  if (line.size() > 19 && std::isdigit(static_cast<unsigned char>(line[0])) && line[4] == '-' &&
      line[10] == 'T') {
    auto sp = line.find(' ');
    return std::string(line.substr(0, sp == std::string_view::npos ? line.size() : sp));
  }
  return "";
}

// "pid=2024380, name=nvidia-smi, rest" -> process "nvidia-smi", detail "rest". Old drivers print
// "pid='<unknown>', name=<unknown>, ..." or no pid at all.
void split_pid_name(std::string_view rest, XidEvent& e) {
  rest = trim(rest);
  if (rest.rfind("pid=", 0) == 0) {
    auto comma = rest.find(',');
    rest = comma == std::string_view::npos ? std::string_view{} : trim(rest.substr(comma + 1));
  }
  if (rest.rfind("name=", 0) == 0) {
    auto comma = rest.find(',');
    std::string_view name =
        rest.substr(5, comma == std::string_view::npos ? std::string_view::npos : comma - 5);
    if (name != "<unknown>") e.process = std::string(trim(name));
    rest = comma == std::string_view::npos ? std::string_view{} : trim(rest.substr(comma + 1));
  }
  e.detail = std::string(rest);
}

// "NVRM: Xid (PCI:0000:9b:00): 119, pid=..., ..." (also "(0000:01:00)" of old drivers).
bool parse_xid_line(std::string_view line, std::size_t nvrm_at, XidEvent& e) {
  std::string_view s = line.substr(nvrm_at);
  auto x = s.find("Xid (");
  if (x == std::string_view::npos) return false;
  s = s.substr(x + 5);
  auto close = s.find("):");
  if (close == std::string_view::npos || close > 32) return false;
  std::string_view pci = s.substr(0, close);
  if (pci.rfind("PCI:", 0) == 0) pci.remove_prefix(4);
  s = trim(s.substr(close + 2));
  std::size_t digits = 0;
  while (digits < s.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(s[digits])))
    ++digits;
  if (digits == 0) return false;
  auto code = parse_int(s.substr(0, digits));
  if (!code) return false;
  e.code = static_cast<int>(*code);
  e.pci = to_lower(pci);
  s = s.substr(digits);
  if (!s.empty() && s.front() == ',') s.remove_prefix(1);
  split_pid_name(s, e);
  return true;
}

// "NVRM: The NVIDIA GPU 0000:b3:00.0" ... "NVRM: fallen off the bus and is not responding" (no
// Xid line: NVIDIA/NVSentinel#155), or "NVRM: GPU at 0000:01:00.0 has fallen off the bus."
std::string fallen_off_pci(std::string_view text) {
  for (std::string_view key : {"NVIDIA GPU ", "GPU at ", "GPU "}) {
    auto at = text.find(key);
    if (at == std::string_view::npos) continue;
    std::string_view rest = text.substr(at + key.size());
    if (rest.rfind("PCI:", 0) == 0) rest.remove_prefix(4);
    std::size_t n = 0;
    while (n < rest.size() &&
           (std::isxdigit(static_cast<unsigned char>(rest[n])) || rest[n] == ':' || rest[n] == '.'))
      ++n;
    std::string_view addr = rest.substr(0, n);
    while (!addr.empty() && (addr.back() == ':' || addr.back() == '.')) addr.remove_suffix(1);
    if (addr.size() >= 7 && addr.find(':') != std::string_view::npos) {
      // "0000:b3:00.0" -> "0000:b3:00", the form Xid lines use.
      if (auto dot = addr.rfind('.'); dot != std::string_view::npos && addr.size() - dot == 2)
        addr = addr.substr(0, dot);
      return to_lower(addr);
    }
  }
  return "";
}

// The kernel's own "[ 3606.832215]" (seconds since boot) at the start of a line or after the
// syslog "kernel: " tag; nullopt when the line has none.
std::optional<double> boot_seconds(std::string_view line) {
  line = trim(line);
  if (line.empty()) return std::nullopt;
  if (line.front() != '[') {
    const auto tag = line.find("kernel: [");
    if (tag == std::string_view::npos || tag > 120) return std::nullopt;
    line = line.substr(tag + 8);
  }
  const auto close = line.find(']');
  if (close == std::string_view::npos || close > 24) return std::nullopt;
  const std::string_view inner = trim(line.substr(1, close - 1));
  if (inner.empty() || !std::isdigit(static_cast<unsigned char>(inner.front())))
    return std::nullopt;
  for (char c : inner)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return std::nullopt;
  const auto v = parse_double(inner);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return *v;
}

int month_of(std::string_view m) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (m == kMonths[i]) return i;
  return -1;
}

// "hh:mm:ss" -> the fields of `tm`; false when it is not one.
bool clock_of(std::string_view s, std::tm& tm) {
  if (s.size() < 8 || s[2] != ':' || s[5] != ':') return false;
  const auto h = parse_int(s.substr(0, 2));
  const auto m = parse_int(s.substr(3, 2));
  const auto sec = parse_int(s.substr(6, 2));
  if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) return false;
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*m);
  tm.tm_sec = static_cast<int>(*sec);
  return true;
}

std::int64_t to_epoch(std::tm tm, bool utc) {
  tm.tm_isdst = -1;
  const std::time_t t = utc ? ::timegm(&tm) : std::mktime(&tm);
  return t == static_cast<std::time_t>(-1) ? 0 : static_cast<std::int64_t>(t);
}

// "Mmm dd hh:mm:ss" (syslog, journalctl's default; the day may be space-padded), no year.
bool syslog_time(std::string_view s, std::tm& tm) {
  if (s.size() < 15 || s[3] != ' ') return false;
  const int mon = month_of(s.substr(0, 3));
  if (mon < 0) return false;
  const auto day = parse_int(trim(s.substr(4, 2)));
  if (!day || *day < 1 || *day > 31 || !clock_of(s.substr(7, 8), tm)) return false;
  tm.tm_mon = mon;
  tm.tm_mday = static_cast<int>(*day);
  return true;
}

// The line's time, seconds since the epoch, or 0 when it cannot be placed.
std::int64_t place_one(std::string_view ts, const KernelLogClock& c, bool earlier_boot) {
  ts = trim(ts);
  if (ts.empty()) return 0;
  std::tm tm{};
  if (ts.front() == '[') {
    const auto close = ts.find(']');
    if (close == std::string_view::npos) return 0;
    const std::string_view inner = trim(ts.substr(1, close - 1));
    if (auto secs = boot_seconds(ts)) {
      if (earlier_boot || c.boot_time == 0) return 0;
      return c.boot_time + static_cast<std::int64_t>(*secs);
    }
    // dmesg -T: "Www Mmm dd hh:mm:ss yyyy"
    if (inner.size() >= 24 && inner[3] == ' ' && syslog_time(inner.substr(4), tm)) {
      const auto year = parse_int(trim(inner.substr(20)));
      if (!year || *year < 1970 || *year > 9999) return 0;
      tm.tm_year = static_cast<int>(*year) - 1900;
      return to_epoch(tm, c.zone_is_utc);
    }
    return 0;
  }
  if (std::isalpha(static_cast<unsigned char>(ts.front()))) {
    if (!syslog_time(ts, tm) || c.read_at == 0) return 0;
    // No year: the one that puts the line at or before the time the log was read.
    const std::time_t now = static_cast<std::time_t>(c.read_at);
    std::tm at{};
    if (c.zone_is_utc ? ::gmtime_r(&now, &at) == nullptr : ::localtime_r(&now, &at) == nullptr)
      return 0;
    tm.tm_year = at.tm_year;
    std::int64_t t = to_epoch(tm, c.zone_is_utc);
    if (t > c.read_at + 86400) {
      tm.tm_year -= 1;
      t = to_epoch(tm, c.zone_is_utc);
    }
    return t;
  }
  // ISO 8601: "2026-08-15T14:32:10[.123456][Z|+00:00|+0000]"
  if (ts.size() >= 19 && std::isdigit(static_cast<unsigned char>(ts.front())) && ts[4] == '-' &&
      ts[7] == '-' && ts[10] == 'T') {
    const auto y = parse_int(ts.substr(0, 4));
    const auto mo = parse_int(ts.substr(5, 2));
    const auto d = parse_int(ts.substr(8, 2));
    if (!y || !mo || !d || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 ||
        !clock_of(ts.substr(11, 8), tm))
      return 0;
    tm.tm_year = static_cast<int>(*y) - 1900;
    tm.tm_mon = static_cast<int>(*mo) - 1;
    tm.tm_mday = static_cast<int>(*d);
    std::string_view rest = ts.substr(19);
    if (!rest.empty() && (rest.front() == '.' || rest.front() == ',')) {
      std::size_t n = 1;
      while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
      rest.remove_prefix(n);
    }
    if (!rest.empty() && rest.front() == 'Z') return to_epoch(tm, true);
    if (!rest.empty() && (rest.front() == '+' || rest.front() == '-') && rest.size() >= 5) {
      std::string digits;
      for (char ch : rest.substr(1, 5))
        if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
      if (digits.size() < 4) return 0;
      const auto hh = parse_int(std::string_view(digits).substr(0, 2));
      const auto mm = parse_int(std::string_view(digits).substr(2, 2));
      if (!hh || !mm) return 0;
      const std::int64_t off = (*hh * 3600 + *mm * 60) * (rest.front() == '-' ? -1 : 1);
      const std::int64_t t = to_epoch(tm, true);
      return t == 0 ? 0 : t - off;
    }
    return to_epoch(tm, c.zone_is_utc);
  }
  return 0;
}

}  // namespace

std::int64_t kernel_log_time(std::string_view timestamp, const KernelLogClock& clock) {
  return place_one(timestamp, clock, false);
}

std::optional<std::int64_t> parse_proc_stat_btime(std::string_view text) {
  for (std::string_view line : split_lines(text)) {
    if (line.rfind("btime ", 0) != 0) continue;
    const auto v = parse_int(trim(line.substr(6)));
    if (v && *v > 0) return static_cast<std::int64_t>(*v);
    return std::nullopt;
  }
  return std::nullopt;
}

void place_kernel_log_times(KernelLogFacts& k, const KernelLogClock& clock) {
  k.boot_time = clock.boot_time;
  k.read_at = clock.read_at;
  k.time_note = clock.note;
  for (XidEvent& e : k.xids) e.time = place_one(e.timestamp, clock, e.earlier_boot);
}

namespace {}  // namespace

bool looks_like_kernel_log(std::string_view text) {
  return text.find("NVRM:") != std::string_view::npos;
}

KernelLogFacts parse_kernel_log(std::string_view text, const std::string& source) {
  // rsyslog pads kern.log with NULs after a hard crash, exactly when Xid 79/48 lines matter:
  // NULs are dropped; only a log that is mostly binary is refused.
  std::string without_nul;
  if (text.find('\0') != std::string_view::npos) {
    if (LineReader::looks_binary(text, /*nul_is_text=*/true))
      throw InputError(source, 0,
                       "binary data; expected kernel log text (dmesg, journalctl -k, "
                       "/var/log/kern.log or /var/log/messages)");
    without_nul.reserve(text.size());
    for (char c : text)
      if (c != '\0') without_nul += c;
    text = without_nul;
  }
  KernelLogFacts k;
  k.source = source;
  std::vector<std::string_view> recent;  // NVRM lines before this one (multi-line messages)
  std::vector<XidEvent> fallen;          // "fallen off the bus" without an Xid line
  int lineno = 0;
  // Boots seen so far: a journal "-- Boot ID --" / "-- Reboot --" marker or the kernel's
  // "[seconds]" going backwards starts a new one; lines before the last boot are of an earlier one.
  int boot = 0;
  double last_seconds = -1;
  std::vector<int> boot_of;  // per Xid, then per fallen-off-the-bus event
  std::vector<int> fallen_boot;
  std::string last_nvrm_timestamp;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    ++k.lines;
    if (std::string_view t = trim(raw); t.rfind("-- Boot ", 0) == 0 || t == "-- Reboot --") {
      ++boot;
      last_seconds = -1;
    } else if (auto secs = boot_seconds(raw)) {
      if (last_seconds >= 0 && *secs + 1 < last_seconds) ++boot;
      last_seconds = *secs;
    }
    if (std::string ts = line_timestamp(raw); !ts.empty()) {
      if (k.first_timestamp.empty()) k.first_timestamp = ts;
      k.last_timestamp = ts;
    }
    auto nvrm = raw.find("NVRM:");
    if (nvrm == std::string_view::npos) {
      recent.clear();
      last_nvrm_timestamp.clear();
      continue;
    }
    XidEvent e;
    e.where = {source, lineno};
    e.timestamp = timestamp_of(raw, nvrm);
    // A continuation line ("               NVRM: fallen off the bus") has the time of its first.
    if (e.timestamp.empty()) e.timestamp = last_nvrm_timestamp;
    last_nvrm_timestamp = e.timestamp;
    if (parse_xid_line(raw, nvrm, e)) {
      k.xids.push_back(std::move(e));
      boot_of.push_back(boot);
    } else if (raw.find("fallen off the bus") != std::string_view::npos) {
      std::string pci = fallen_off_pci(raw.substr(nvrm));
      for (auto it = recent.rbegin(); pci.empty() && it != recent.rend(); ++it)
        pci = fallen_off_pci(*it);
      e.code = 79;
      e.pci = pci;
      e.without_xid = true;
      e.detail = "GPU has fallen off the bus (reported without an Xid line)";
      fallen.push_back(std::move(e));
      fallen_boot.push_back(boot);
    }
    recent.push_back(raw.substr(nvrm));
    if (recent.size() > 4) recent.erase(recent.begin());
  }
  // One loss of a GPU reads as one event: drop the Xid-less report when an Xid 79 names the GPU.
  std::set<std::string> with_79;
  for (const XidEvent& e : k.xids)
    if (e.code == 79) with_79.insert(e.pci);
  for (std::size_t i = 0; i < k.xids.size(); ++i) k.xids[i].earlier_boot = boot_of[i] < boot;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < fallen.size(); ++i) {
    XidEvent& e = fallen[i];
    if (with_79.count(e.pci) || !seen.insert(e.pci).second) continue;
    e.earlier_boot = fallen_boot[i] < boot;
    k.xids.push_back(std::move(e));
  }
  return k;
}

}  // namespace trainready
