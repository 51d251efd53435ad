#include "parsers/kernel_log.h"

#include <cctype>
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

}  // namespace

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
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    ++k.lines;
    if (std::string ts = line_timestamp(raw); !ts.empty()) {
      if (k.first_timestamp.empty()) k.first_timestamp = ts;
      k.last_timestamp = ts;
    }
    auto nvrm = raw.find("NVRM:");
    if (nvrm == std::string_view::npos) {
      recent.clear();
      continue;
    }
    XidEvent e;
    e.where = {source, lineno};
    e.timestamp = timestamp_of(raw, nvrm);
    if (parse_xid_line(raw, nvrm, e)) {
      k.xids.push_back(std::move(e));
    } else if (raw.find("fallen off the bus") != std::string_view::npos) {
      std::string pci = fallen_off_pci(raw.substr(nvrm));
      for (auto it = recent.rbegin(); pci.empty() && it != recent.rend(); ++it)
        pci = fallen_off_pci(*it);
      e.code = 79;
      e.pci = pci;
      e.without_xid = true;
      e.detail = "GPU has fallen off the bus (reported without an Xid line)";
      fallen.push_back(std::move(e));
    }
    recent.push_back(raw.substr(nvrm));
    if (recent.size() > 4) recent.erase(recent.begin());
  }
  // One loss of a GPU reads as one event: drop the Xid-less report when an Xid 79 names the GPU.
  std::set<std::string> with_79;
  for (const XidEvent& e : k.xids)
    if (e.code == 79) with_79.insert(e.pci);
  std::set<std::string> seen;
  for (XidEvent& e : fallen) {
    if (with_79.count(e.pci) || !seen.insert(e.pci).second) continue;
    k.xids.push_back(std::move(e));
  }
  return k;
}

}  // namespace trainready
