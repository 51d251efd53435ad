#include "cli/slurm_drain.h"

#include <unistd.h>

#include <cstdio>

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"

namespace trainready {
namespace {

// One line of printable ASCII: what every Slurm client prints unchanged and what NHC-style
// scripts split on. Each malformed byte or non-ASCII character becomes one '?'.
std::string ascii_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence_length(s, i);
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (n == 0) n = 1;
    if (n == 1 && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      space = true;
    } else {
      if (space && !out.empty()) out += ' ';
      space = false;
      out += (n == 1 && c >= 0x21 && c <= 0x7e) ? static_cast<char>(c) : '?';
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string drain_reason(const std::vector<Finding>& failing) {
  if (failing.empty()) return std::string(kDrainReasonLeader);
  const Finding& first = failing.front();
  std::string more;
  if (failing.size() > 1) {
    more = " (+" + std::to_string(failing.size() - 1) + " more:";
    std::string sep = " ";
    for (std::size_t i = 1; i < failing.size(); ++i) {
      more += sep + failing[i].rule_id;
      sep = ", ";
    }
    more += ")";
  }
  std::string line =
      std::string(kDrainReasonLeader) + " " + first.rule_id + ": " + first.message + more;
  line = ascii_line(line);
  if (line.size() > kDrainReasonMaxBytes) line = line.substr(0, kDrainReasonMaxBytes - 3) + "...";
  return line;
}

std::string node_name_problem(std::string_view name) {
  if (name.empty()) return "it is empty";
  if (name.size() > 64) return std::to_string(name.size()) + " bytes, more than 64";
  // scontrol reads "nodename=ALL" (any case) as every node of the cluster (measured on 22.05).
  if (iequals(name, "all")) return "scontrol reads ALL as every node of the cluster";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (ok) continue;
    if (c == '\n' || c == '\r') return "it holds a line break";
    if (c == ',' || c == '[' || c == ']')
      return std::string("'") + c + "' makes scontrol read it as a list of nodes";
    if (c == ' ' || c == '\t') return "it holds white space";
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", u);
      return std::string("the byte ") + hex + " is not allowed";
    }
    return std::string("the character '") + c + "' is not allowed";
  }
  return "";
}

bool is_single_node_name(std::string_view name) { return node_name_problem(name).empty(); }

std::string slurm_node_name(const char* slurmd_nodename, const std::string& fallback) {
  const bool from_env = slurmd_nodename != nullptr && *slurmd_nodename != '\0';
  std::string name = from_env ? std::string(slurmd_nodename) : fallback;
  if (const std::string why = node_name_problem(name); !why.empty()) {
    throw InputError(from_env ? "SLURMD_NODENAME" : "host name", 0,
                     "expected one node name (letters, digits, '.', '-', '_'; at most 64 bytes), "
                     "got '" +
                         clip_text(ascii_line(name), 80) + "': " + why);
  }
  return name;
}

std::vector<std::string> drain_argv(const std::string& scontrol, const std::string& node,
                                    const std::string& reason) {
  return {scontrol, "update", "nodename=" + node, "state=drain", "reason=" + reason};
}

std::vector<std::string> resume_argv(const std::string& scontrol, const std::string& node) {
  return {scontrol, "update", "nodename=" + node, "state=resume"};
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty();
    for (char c : a) {
      const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '-' || c == '_' ||
                        c == '=' || c == ':' || c == ',';
      if (!safe) plain = false;
    }
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

std::string find_scontrol(const char* path_env) {
  std::string dirs = path_env != nullptr ? std::string(path_env) : std::string();
  // Debian/Ubuntu and RPM packages install to /usr/bin, a build from source to /usr/local/bin,
  // and OpenHPC-style trees to /opt/slurm/bin.
  dirs += ":/usr/bin:/usr/local/bin:/bin:/opt/slurm/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // A relative PATH entry would make the program depend on the working directory slurmd
    // chose: only absolute directories count.
    if (!dir.empty() && dir.front() == '/') {
      const std::string candidate = dir + "/scontrol";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

}  // namespace trainready
