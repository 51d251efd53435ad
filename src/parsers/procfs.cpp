#include "parsers/procfs.h"

#include "core/text.h"

namespace trainready {

std::string unescape_octal(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view o = s.substr(i + 1, 3);
      if (o[0] >= '0' && o[0] <= '3' && o[1] >= '0' && o[1] <= '7' && o[2] >= '0' && o[2] <= '7') {
        out += static_cast<char>((o[0] - '0') * 64 + (o[1] - '0') * 8 + (o[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::map<std::string, int> parse_proc_modules(std::string_view text) {
  std::map<std::string, int> out;
  int lineno = 0;
  for (std::string_view line : split_lines(text)) {
    ++lineno;
    auto toks = split_ws(line);
    if (toks.size() < 2) continue;
    if (!parse_int(toks[1])) continue;  // second field is the size in bytes
    out.emplace(std::string(toks[0]), lineno);
  }
  return out;
}

std::vector<MountEntry> parse_proc_mounts(std::string_view text) {
  std::vector<MountEntry> out;
  for (std::string_view line : split_lines(text)) {
    auto toks = split_ws(line);
    if (toks.size() < 3) continue;
    out.push_back({unescape_octal(toks[0]), unescape_octal(toks[1]), std::string(toks[2])});
  }
  return out;
}

std::vector<MdstatArray> parse_proc_mdstat(std::string_view text) {
  std::vector<MdstatArray> out;
  int lineno = 0;
  for (std::string_view line : split_lines(text)) {
    ++lineno;
    // "md0 : active raid0 nvme1n1[1] nvme0n1[0]"
    auto toks = split_ws(line);
    if (toks.size() < 3 || toks[0].rfind("md", 0) != 0 || toks[1] != ":") continue;
    MdstatArray a;
    a.name = std::string(toks[0]);
    a.line = lineno;
    std::size_t i = 2;
    a.state = std::string(toks[i++]);
    if (i < toks.size() && (toks[i] == "(read-only)" || toks[i] == "(auto-read-only)")) ++i;
    if (i < toks.size() && toks[i].find('[') == std::string_view::npos)
      a.level = std::string(toks[i++]);
    for (; i < toks.size(); ++i) {
      std::string_view m = toks[i];
      if (auto b = m.find('['); b != std::string_view::npos) m = m.substr(0, b);
      if (!m.empty()) a.members.emplace_back(m);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<std::string> parse_nvidia_module_flavor(std::string_view text) {
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.rfind("NVRM version:", 0) != 0) continue;
    if (line.find("Open Kernel Module") != std::string_view::npos) return "open";
    if (line.find("Kernel Module") != std::string_view::npos) return "proprietary";
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace trainready
