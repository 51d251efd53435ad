#include "parsers/pasted_session.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace trainready {
namespace {

// Programs whose output people paste when they ask about a GPU node, and the shell tools around
// them. After a bare "# " (root prompt or comment?) or "+ " (set -x), a program of this list
// makes the line a command; anything else stays output ("# Port info: Lid 1 port 6").
constexpr std::string_view kShellPrograms[] = {
    "az",          "cat",        "cd",          "curl",         "dcgmi",       "df",
    "dmesg",       "docker",     "dpkg",        "echo",         "egrep",       "env",
    "ethtool",     "export",     "free",        "grep",         "head",        "hostname",
    "ib_read_bw",  "ib_send_bw", "ib_write_bw", "ibdev2netdev", "iblinkinfo",  "ibnetdiscover",
    "ibportstate", "ibstat",     "ibstatus",    "ibv_devices",  "ibv_devinfo", "ip",
    "journalctl",  "kubectl",    "less",        "ls",           "lsb_release", "lscpu",
    "lsmod",       "lspci",      "lstopo",      "mst",          "mlxconfig",   "mlxlink",
    "modinfo",     "modprobe",   "mount",       "mpirun",       "nvcc",        "nvidia-smi",
    "numactl",     "ofed_info",  "perfquery",   "pip",          "pip3",        "printenv",
    "python",      "python3",    "rdma",        "rpm",          "scontrol",    "service",
    "show_gids",   "sinfo",      "sminfo",      "srun",         "ssh",         "sudo",
    "systemctl",   "tail",       "uname",       "zgrep"};

// Programs whose name alone on a line (or as a label, "ibv_devinfo:", "Log ibstat:") says what
// follows: the captures doctor reads, and the ones helpers read next to them.
constexpr std::string_view kCapturePrograms[] = {
    "dcgmi",      "dmesg",     "ib_read_bw",  "ib_send_bw", "ib_write_bw", "ibdev2netdev",
    "ibstat",     "ibstatus",  "ibv_devinfo", "journalctl", "lspci",       "mst",
    "nvidia-smi", "ofed_info", "scontrol",    "show_gids",  "sinfo"};

template <std::size_t N>
bool in(const std::string_view (&list)[N], std::string_view w) {
  return std::find(std::begin(list), std::end(list), w) != std::end(list);
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

// "user@host" at the start of s: its length, or 0.
std::size_t user_at_host(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && name_char(s[i])) ++i;
  if (i == 0 || i >= s.size() || s[i] != '@') return 0;
  const std::size_t host = ++i;
  while (i < s.size() && name_char(s[i])) ++i;
  return i == host ? 0 : i;
}

// What follows a prompt character: "" for a prompt alone, the command after one space, or
// nullopt when the character is not followed by a space or the end of the line.
std::optional<std::string> after_prompt(std::string_view line, std::size_t at) {
  if (at + 1 >= line.size()) return std::string();
  if (line[at + 1] != ' ' && line[at + 1] != '\t') return std::nullopt;
  return std::string(trim(line.substr(at + 2)));
}

std::string basename_of(std::string_view w) {
  if (auto slash = w.rfind('/'); slash != std::string_view::npos && slash + 1 < w.size())
    w.remove_prefix(slash + 1);
  return std::string(w);
}

// The first program the command runs, wrappers removed ("sudo -E ibstat" -> "ibstat").
std::string first_program(std::string_view command) {
  auto stages = command_stages(command);
  if (stages.empty() || stages.front().empty()) return "";
  return stages.front().front();
}

std::optional<std::string> shell_prompt(std::string_view line) {
  // "(venv) ", "(base) " before the prompt.
  if (!line.empty() && line.front() == '(') {
    auto close = line.find(") ");
    if (close != std::string_view::npos && close < 40) line = trim(line.substr(close + 2));
  }
  if (line.empty()) return std::nullopt;
  // "[root@node ~]# cmd", "[user@host dir]$ cmd"
  if (line.front() == '[') {
    if (user_at_host(line.substr(1)) == 0) return std::nullopt;
    auto close = line.find(']');
    if (close == std::string_view::npos || close > 80 || close + 1 >= line.size())
      return std::nullopt;
    const char p = line[close + 1];
    if (p != '$' && p != '#' && p != '%') return std::nullopt;
    return after_prompt(line, close + 1);
  }
  // "user@host:~/dir$ cmd", "root@host:/# cmd", "user@host$ cmd"
  if (std::size_t n = user_at_host(line); n > 0) {
    std::size_t i = n;
    if (i < line.size() && line[i] == ':') {
      ++i;
      while (i < line.size() && line[i] != ' ' && line[i] != '$' && line[i] != '#') ++i;
    } else if (i < line.size() && line[i] == ' ') {
      // "user@host ~ $ " / "user@host ~$ "
      ++i;
      while (i < line.size() && line[i] != ' ' && line[i] != '$' && line[i] != '#') ++i;
      if (i < line.size() && line[i] == ' ') ++i;
    }
    if (i < line.size() && (line[i] == '$' || line[i] == '#' || line[i] == '%'))
      return after_prompt(line, i);
    return std::nullopt;
  }
  // "~$ cmd", "~/DeepEP# cmd", "/opt/x$ cmd"
  if (line.front() == '~' || line.front() == '/') {
    std::size_t i = 0;
    while (i < line.size() && line[i] != ' ' && line[i] != '$' && line[i] != '#') ++i;
    if (i < line.size() && (line[i] == '$' || line[i] == '#')) return after_prompt(line, i);
    return std::nullopt;
  }
  // "PS C:\> cmd", "PS C:\Users\me> cmd", "C:\Users\me>cmd"
  if (line.rfind("PS ", 0) == 0 ||
      (line.size() > 3 && std::isalpha(static_cast<unsigned char>(line[0])) && line[1] == ':' &&
       line[2] == '\\')) {
    auto gt = line.find('>');
    if (gt == std::string_view::npos || gt > 120) return std::nullopt;
    if (line.substr(0, gt).find(":\\") == std::string_view::npos) return std::nullopt;
    return std::string(trim(line.substr(gt + 1)));
  }
  // ">>> import torch" (Python): the code is the command; no program of ours reads it.
  if (line.rfind(">>>", 0) == 0 && (line.size() == 3 || line[3] == ' '))
    return std::string(trim(line.substr(3)));
  // "$ cmd", "$"
  if (line.front() == '$') return after_prompt(line, 0);
  // "# cmd" (root prompt) and "+ cmd" (set -x) only before a program we know.
  if ((line.front() == '#' || line.front() == '+') && line.size() > 2 && line[1] == ' ') {
    std::string cmd(trim(line.substr(2)));
    if (in(kShellPrograms, first_program(cmd))) return cmd;
  }
  return std::nullopt;
}

// A line that is only a capture program's command ("ibstat", "nvidia-smi topo -m") or a label
// naming one ("ibv_devinfo:", "Log ibstat:", "ib_send_bw shows:").
std::optional<std::string> bare_command(std::string_view line) {
  auto words = split_ws(line);
  if (words.empty() || words.size() > 8) return std::nullopt;
  if (line.back() == ':') {
    if (words.size() > 4) return std::nullopt;
    for (std::string_view w : words) {
      std::string_view bare = w;
      while (!bare.empty() && (bare.back() == ':' || bare.back() == ',')) bare.remove_suffix(1);
      if (in(kCapturePrograms, bare)) return std::string(bare);
    }
    return std::nullopt;
  }
  std::string prog = first_program(line);
  if (!in(kCapturePrograms, prog) || words.front() != prog) {
    if (!(words.front() == "sudo" && in(kCapturePrograms, prog))) return std::nullopt;
  }
  // Output lines never hold '=' or "==>" (ibdev2netdev output starts with a device, not this).
  for (std::string_view w : words) {
    if (w.find('=') != std::string_view::npos || w.find('(') != std::string_view::npos)
      return std::nullopt;
  }
  return std::string(trim(line));
}

// Splits at unquoted '|', ';', "&&", "||".
std::vector<std::string_view> pipeline(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '|' || c == ';' || (c == '&' && i + 1 < s.size() && s[i + 1] == '&')) {
      out.push_back(s.substr(start, i - start));
      if (i + 1 < s.size() && (s[i + 1] == '|' || s[i + 1] == '&')) ++i;
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

std::vector<std::string> words_of(std::string_view stage) {
  std::vector<std::string> out;
  for (std::string_view w : split_ws(stage)) {
    std::string t(w);
    t.erase(std::remove(t.begin(), t.end(), '"'), t.end());
    t.erase(std::remove(t.begin(), t.end(), '\''), t.end());
    if (t.empty()) continue;
    // Redirections: "> out.txt", "2>&1", "&>/dev/null".
    if (t.front() == '>' || t.front() == '<' || t.rfind("2>", 0) == 0 || t.rfind("&>", 0) == 0)
      continue;
    out.push_back(std::move(t));
  }
  return out;
}

bool is_assignment(const std::string& w) {
  auto eq = w.find('=');
  return eq != std::string::npos && eq > 0 && w.front() != '-' &&
         std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

// Removes the wrappers in front of the program that does the work.
std::vector<std::string> unwrap(std::vector<std::string> w) {
  for (int guard = 0; guard < 8 && !w.empty(); ++guard) {
    const std::string prog = basename_of(w.front());
    std::size_t drop = 0;
    if (prog == "sudo" || prog == "time" || prog == "nohup" || prog == "stdbuf" || prog == "srun") {
      drop = 1;
      // Options (and sudo -u USER, srun -w NODE).
      while (drop < w.size() && w[drop].front() == '-') {
        const bool takes_value = w[drop] == "-u" || w[drop] == "-w" || w[drop] == "-N" ||
                                 w[drop] == "-n" || w[drop] == "-p";
        drop += takes_value ? 2 : 1;
      }
    } else if (prog == "env") {
      drop = 1;
      while (drop < w.size() && (w[drop].front() == '-' || is_assignment(w[drop]))) ++drop;
      if (drop >= w.size()) return {"env"};  // `env` alone prints the environment
    } else if (is_assignment(w.front())) {
      drop = 1;
    } else if (prog == "timeout") {
      drop = 1;
      while (drop < w.size() && w[drop].front() == '-') ++drop;
      ++drop;  // the duration
    } else if (prog == "kubectl" || prog == "oc") {
      auto dd = std::find(w.begin(), w.end(), "--");
      if (dd == w.end()) return w;
      drop = static_cast<std::size_t>(dd - w.begin()) + 1;
    } else if ((prog == "docker" || prog == "podman") && w.size() > 2 && w[1] == "exec") {
      drop = 2;
      while (drop < w.size() && w[drop].front() == '-') ++drop;
      ++drop;  // the container
    } else if (prog == "ssh") {
      drop = 1;
      while (drop < w.size() && w[drop].front() == '-') drop += w[drop].size() == 2 ? 2 : 1;
      ++drop;  // the host
    } else {
      break;
    }
    if (drop >= w.size()) return {};
    w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  if (!w.empty()) w.front() = basename_of(w.front());
  return w;
}

}  // namespace

std::vector<std::vector<std::string>> command_stages(std::string_view command) {
  std::vector<std::vector<std::string>> out;
  for (std::string_view stage : pipeline(command)) {
    auto w = unwrap(words_of(stage));
    if (!w.empty()) out.push_back(std::move(w));
  }
  return out;
}

std::optional<std::string> command_of_line(std::string_view raw) {
  std::string_view line = trim(raw);
  if (line.empty() || line.size() > 4096) return std::nullopt;
  // Markdown quote markers of a pasted reply ("> $ ibstat").
  if (auto c = shell_prompt(line)) return c;
  return bare_command(line);
}

std::vector<PastedSection> split_pasted_session(std::string_view text) {
  std::vector<PastedSection> out;
  PastedSection cur;
  cur.first_line = 1;
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    auto cmd = command_of_line(raw);
    if (!cmd) {
      cur.last_line = lineno;
      continue;
    }
    if (cur.command_line != 0 || cur.last_line >= cur.first_line) out.push_back(cur);
    cur = PastedSection{};
    cur.command_line = lineno;
    cur.command = *cmd;
    cur.first_line = lineno + 1;
    cur.last_line = lineno;
  }
  if (cur.command_line != 0 || cur.last_line >= cur.first_line) out.push_back(cur);
  return out;
}

}  // namespace trainready
