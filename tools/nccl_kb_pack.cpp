// Build step: checks data/nccl-kb/*.yaml with the knowledge base's own loader
// (NcclKnowledgeBase::parse, src/knowledge/nccl_kb_yaml.cpp: every key, range and version, every
// regex compiled) and writes the result as C++ tables (src/knowledge/nccl_kb_packed.h), so the
// binary reads the knowledge base without parsing YAML.
//
//   nccl_kb_pack OUT.cpp FILE.yaml...
//
// A bad file fails the build with "FILE:LINE: error: what" and writes nothing.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "knowledge/nccl_kb.h"

namespace {

using trainready::NcclKbCause;
using trainready::NcclKbEntry;
using trainready::NcclKbRegex;

// A C++ string literal: bytes outside printable ASCII as three-digit octal escapes, which no
// following character can extend.
std::string lit(std::string_view s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      r += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      r += buf;
    }
  }
  return r + "\"";
}

// An id for a comment of the generated file: letters, digits and ".-_" kept (no newline, and no
// backslash to join the next line to the comment).
std::string note(std::string_view id) {
  std::string r(id);
  for (char& c : r)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '?';
  return r;
}

// The knowledge base's text: every distinct string once, in one array (kText), each row of the
// tables an offset and a length into it (nccl_kb_packed.h says why).
class Text {
 public:
  std::string str(const std::string& s) {
    if (s.empty()) return "{}";
    auto [it, added] = at_.emplace(s, size_);
    if (added) {
      pieces_ << "    " << lit(s) << "  // " << size_ << "\n";
      size_ += s.size();
    }
    return "{" + std::to_string(it->second) + ", " + std::to_string(s.size()) + "}";
  }
  std::string regex(const std::optional<NcclKbRegex>& r) {
    if (!r) return "{}";
    // One after the other: the order of a + b's operands is unspecified, and the array's
    // layout (so the generated file's bytes) must not depend on the compiler.
    const std::string text = str(r->text);
    const std::string where = str(r->where());
    return "{true, " + text + ", " + where + "}";
  }
  std::string pieces() const { return pieces_.str(); }
  std::size_t size() const { return size_; }

 private:
  std::map<std::string, std::size_t> at_;
  std::ostringstream pieces_;
  std::size_t size_ = 0;
};

std::string boolean(const std::optional<bool>& b) { return b ? (*b ? "1" : "0") : "-1"; }

std::string level(trainready::NcclKbLevel l) {
  switch (l) {
    case trainready::NcclKbLevel::kWarn:
      return "NcclKbLevel::kWarn";
    case trainready::NcclKbLevel::kInfo:
      return "NcclKbLevel::kInfo";
    case trainready::NcclKbLevel::kAny:
      break;
  }
  return "NcclKbLevel::kAny";
}

std::string kind(trainready::NcclKbKind k) {
  switch (k) {
    case trainready::NcclKbKind::kTrail:
      return "NcclKbKind::kTrail";
    case trainready::NcclKbKind::kPassthrough:
      return "NcclKbKind::kPassthrough";
    case trainready::NcclKbKind::kMessage:
      break;
  }
  return "NcclKbKind::kMessage";
}

std::string severity(trainready::Severity s) {
  switch (s) {
    case trainready::Severity::kInfo:
      return "Severity::kInfo";
    case trainready::Severity::kWarning:
      return "Severity::kWarning";
    case trainready::Severity::kError:
      break;
  }
  return "Severity::kError";
}

std::string pack(const trainready::NcclKnowledgeBase& kb) {
  Text t;
  std::ostringstream entries, causes, envs, files;
  std::size_t n_causes = 0, n_envs = 0;
  for (const NcclKbEntry& e : kb.entries()) {
    const std::size_t cause_begin = n_causes;
    for (const NcclKbCause& c : e.causes) {
      const std::size_t env_begin = n_envs;
      for (const auto& x : c.when.env) {
        envs << "    {" << t.str(x.name) << ", " << t.regex(x.value) << "},  // " << note(e.id)
             << "\n";
        ++n_envs;
      }
      const auto& w = c.when;
      causes << "    {.cause = " << t.str(c.cause) << ", .fix = " << t.str(c.fix)
             << ", .confirm = " << t.str(c.confirm) << ", .link_layer = " << t.str(w.link_layer)
             << ",\n     .net = " << t.regex(w.net) << ", .plugin = " << t.regex(w.plugin)
             << ", .log_has = " << t.regex(w.log_has) << ", .line_has = " << t.regex(w.line_has)
             << ", .framework = " << t.regex(w.framework)
             << ", .trail_call = " << t.regex(w.trail_call) << ", .env_begin = " << env_begin
             << ", .env_count = " << n_envs - env_begin << ",\n     .nccl = " << t.str(w.nccl)
             << ", .driver = " << t.str(w.driver) << ", .multi_node = " << boolean(w.multi_node)
             << ", .mnnvl = " << boolean(w.mnnvl) << ", .gdr = " << boolean(w.gdr)
             << ", .rccl = " << boolean(w.rccl) << ", .info_shown = " << boolean(w.info_shown)
             << ", .one_process = " << boolean(w.one_process)
             << ", .container = " << boolean(w.container)
             << ", .severity = " << (c.severity ? static_cast<int>(*c.severity) : -1) << "},  // "
             << note(e.id) << "\n";
      ++n_causes;
    }
    entries << "    // " << note(e.id) << "\n    {.id = " << t.str(e.id)
            << ", .file = " << t.str(e.file) << ", .subsystem = " << t.str(e.subsystem)
            << ", .match = {true, " << t.str(e.match.text) << ", " << t.str(e.match.where())
            << "},\n     .literal = " << t.str(e.literal) << ", .level = " << level(e.level)
            << ", .kind = " << kind(e.kind) << ", .versions = " << t.str(e.versions)
            << ",\n     .in_file = " << t.regex(e.in_file) << ", .not_via = " << t.regex(e.not_via)
            << ", .fixed_in = " << t.str(e.fixed_in) << ", .what = " << t.str(e.what)
            << ", .severity = " << severity(e.severity) << ",\n     .rank = " << e.rank
            << ", .consequence = " << (e.consequence ? "true" : "false")
            << ", .local_socket = " << (e.local_socket ? "true" : "false")
            << ", .cause_begin = " << cause_begin << ", .cause_count = " << n_causes - cause_begin
            << ", .source = " << t.str(e.source) << ", .doc = " << t.str(e.doc) << "},\n";
  }
  for (const auto& f : kb.files())
    files << "    {" << t.str(f.prefix) << ", " << t.str(f.subsystem) << "},\n";
  // An empty array is not valid C++: each table has a last, unused row.
  std::ostringstream out;
  out << "// Generated by tools/nccl_kb_pack.cpp from data/nccl-kb/*.yaml. Do not edit.\n"
      << "#include \"knowledge/nccl_kb_packed.h\"\n\n"
      << "namespace trainready::nccl_kb_packed {\nnamespace {\n\n"
      << "// Every distinct string once; the tables below hold {offset, length} into it.\n"
      << "constexpr char kText[] =\n"
      << t.pieces() << "    \"\";\n\nconstexpr Entry kEntries[] = {\n"
      << entries.str() << "    {}};\n\nconstexpr Cause kCauses[] = {\n"
      << causes.str() << "    {}};\n\nconstexpr Env kEnvs[] = {\n"
      << envs.str() << "    {}};\n\nconstexpr File kFiles[] = {\n"
      << files.str() << "    {}};\n\n}  // namespace\n\n"
      << "std::string_view text(Str s) { return {kText + s.off, s.len}; }\n"
      << "std::span<const Entry> entries() { return {kEntries, " << kb.entries().size()
      << "}; }\nstd::span<const Cause> causes() { return {kCauses, " << n_causes
      << "}; }\nstd::span<const Env> envs() { return {kEnvs, " << n_envs
      << "}; }\nstd::span<const File> files() { return {kFiles, " << kb.files().size()
      << "}; }\n\n}  // namespace trainready::nccl_kb_packed\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: nccl_kb_pack OUT.cpp FILE.yaml...\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  // Sorted by path, as the YAML's own order is read: the entries keep the files' order.
  std::vector<std::string> paths(argv + 2, argv + argc);
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::string, std::string>> files;
  std::map<std::string, std::string> path_of;  // file name -> path, for the error
  for (const std::string& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << p << ": error: cannot read\n";
      return 1;
    }
    const std::string name = std::filesystem::path(p).filename().string();
    path_of[name] = p;
    files.emplace_back(name, text.str());
  }
  try {
    const std::string src = pack(trainready::NcclKnowledgeBase::parse(files, true));
    const std::filesystem::path tmp = out.string() + ".tmp";
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << src;
    o.close();
    if (!o) {
      std::cerr << tmp.string() << ": error: cannot write\n";
      return 1;
    }
    std::filesystem::rename(tmp, out);
  } catch (const trainready::NcclKbError& e) {
    const auto p = path_of.find(e.file());
    std::cerr << (p == path_of.end() ? std::string("data/nccl-kb") : p->second);
    if (e.line() > 0) std::cerr << ":" << e.line();
    std::cerr << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "nccl_kb_pack: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
