#include "parsers/libfabric_log_line.h"

#include <cstring>

namespace trainready {

std::optional<LibfabricLogLine> read_libfabric_log_line(std::string_view t) {
  constexpr std::string_view kPackage = "libfabric:";
  if (t.substr(0, kPackage.size()) != kPackage) return std::nullopt;
  // "():LINE<" ends the head: the function name is the field before it.
  const std::size_t call = t.find("():", kPackage.size());
  if (call == std::string_view::npos || call > 512) return std::nullopt;
  std::size_t i = call + 3;
  const std::size_t digits = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == digits || i >= t.size() || t[i] != '<') return std::nullopt;
  const std::size_t close = t.find('>', i);
  if (close == std::string_view::npos || close - i > 8) return std::nullopt;
  LibfabricLogLine l;
  l.level = t.substr(i + 1, close - i - 1);
  if (l.level != "warn" && l.level != "trace" && l.level != "info" && l.level != "debug")
    return std::nullopt;
  // The fields between the package and the function: [PID[:TIME[:PREFIX]]:]PROV:SUBSYS:FUNC.
  const std::string_view head = t.substr(kPackage.size(), call - kPackage.size());
  if (head.find(' ') != std::string_view::npos) return std::nullopt;
  const std::size_t f = head.rfind(':');
  if (f == std::string_view::npos || f == 0) return std::nullopt;
  const std::size_t s = head.rfind(':', f - 1);
  if (s == std::string_view::npos || s == 0) return std::nullopt;
  const std::size_t p = head.rfind(':', s - 1);
  const std::size_t p0 = p == std::string_view::npos ? 0 : p + 1;
  l.provider = head.substr(p0, s - p0);
  l.subsystem = head.substr(s + 1, f - s - 1);
  if (l.provider.empty() || l.subsystem.empty() || f + 1 >= head.size()) return std::nullopt;
  // Provider names ("efa", "ofi_rxm", "efa;ofi_rxd") and subsystems are lower-case words.
  auto word = [](std::string_view w) {
    for (const char c : w)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ';' || c == '-'))
        return false;
    return w.size() <= 64;
  };
  if (!word(l.provider) || !word(l.subsystem)) return std::nullopt;
  l.site = t.substr(kPackage.size() + f + 1, i - (kPackage.size() + f + 1));
  std::size_t m = close + 1;
  if (m < t.size() && t[m] == ' ') ++m;
  l.message = t.substr(m);
  return l;
}

std::size_t find_libfabric_head(std::string_view line) {
  constexpr std::string_view kPackage = "libfabric:";
  const std::string_view window = line.substr(0, 256 + kPackage.size());
  for (std::size_t p = window.find(kPackage); p != std::string_view::npos;
       p = window.find(kPackage, p + 1))
    if (read_libfabric_log_line(line.substr(p))) return p;
  return std::string_view::npos;
}

std::size_t libfabric_unterminated_end(std::string_view line) {
  static constexpr std::string_view kEnds[] = {
      "FI_HMEM cannot be supported because no compatible libraries were found.",
      "FI_HMEM_P2P_DISABLED was set to 1/on/true.",
  };
  // Both are warnings: a line without "<warn>" has nothing to split (one memchr pass, where the
  // head's search would compare at every 'l'; this runs on every line the fast path does not take).
  bool warn = false;
  const char* const end_of_line = line.data() + line.size();
  for (const char* c = line.data(); !warn && c < end_of_line; ++c) {
    c = static_cast<const char*>(std::memchr(c, '<', static_cast<std::size_t>(end_of_line - c)));
    if (!c) break;
    warn = end_of_line - c >= 6 && std::memcmp(c, "<warn>", 6) == 0;
  }
  if (!warn) return std::string_view::npos;
  const std::size_t head = find_libfabric_head(line);
  if (head == std::string_view::npos) return std::string_view::npos;
  // The last such end with another writer's text after it: one per EFA device comes before the
  // next line when a host has several (efa_user_info_get_rdm asks each device), and libfabric's
  // own next warning or a collector's copy after a bar is libfabric's line (read whole, as one).
  std::size_t cut = std::string_view::npos;
  for (std::string_view e : kEnds) {
    for (std::size_t p = line.find(e, head); p != std::string_view::npos; p = line.find(e, p + 1)) {
      const std::size_t end = p + e.size();
      if (end >= line.size() || (cut != std::string_view::npos && end <= cut)) continue;
      if (find_libfabric_head(line.substr(end)) != std::string_view::npos) continue;
      cut = end;
    }
  }
  return cut;
}

}  // namespace trainready
