#pragma once
// The NCCL knowledge base as the build packs it: constant tables the compiler lays out (no code
// runs to make them), written by tools/nccl_kb_pack.cpp from what NcclKnowledgeBase::parse read
// in data/nccl-kb/*.yaml (the file is generated/nccl_kb_packed.cpp in the build dir).
// NcclKnowledgeBase::builtin() copies them into NcclKbEntry and its kin (nccl_kb_builtin.cpp); a
// test compares the result with the YAML parsed at test time. Text is an offset and a length
// into one array, not a pointer: the tables need no relocation when the binary is loaded, so
// a command that never reads them pays nothing for them.
#include <cstdint>
#include <span>
#include <string_view>

#include "knowledge/nccl_kb.h"

namespace trainready::nccl_kb_packed {

// Text: text(s) is the knowledge base's characters [off, off + len).
struct Str {
  std::uint32_t off = 0, len = 0;
};
std::string_view text(Str s);

// A regex (NcclKbRegex): its text and what names it in an error; none when `present` is false.
struct Regex {
  bool present = false;
  Str text, where;
};

struct Env {
  Str name;
  Regex value;
};

// A cause with its context (NcclKbCause, NcclKbWhen); its env conditions are
// envs()[env_begin, env_begin + env_count).
struct Cause {
  Str cause, fix, confirm;
  Str link_layer;
  Regex net, plugin, log_has, line_has, framework, trail_call;
  std::uint32_t env_begin = 0, env_count = 0;
  Str nccl, driver;
  std::int8_t multi_node = -1, mnnvl = -1, gdr = -1, rccl = -1;  // -1 not given, 0 false, 1 true
  std::int8_t info_shown = -1, one_process = -1, container = -1;
  std::int8_t severity = -1;  // -1 the entry's, else a Severity
};

// NcclKbEntry; its causes are causes()[cause_begin, cause_begin + cause_count).
struct Entry {
  Str id, file, subsystem;
  Regex match;
  Str literal;
  NcclKbLevel level = NcclKbLevel::kAny;
  NcclKbKind kind = NcclKbKind::kMessage;
  Str versions;
  Regex in_file;
  Regex not_via;
  Str fixed_in, what;
  Severity severity = Severity::kError;
  int rank = 50;
  bool consequence = false;
  bool local_socket = false;
  std::uint32_t cause_begin = 0, cause_count = 0;
  Str source, doc;
};

struct File {
  Str prefix, subsystem;
};

std::span<const Entry> entries();
std::span<const Cause> causes();
std::span<const Env> envs();
std::span<const File> files();  // longest prefix first

}  // namespace trainready::nccl_kb_packed
