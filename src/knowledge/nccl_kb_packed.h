#pragma once
// The NCCL knowledge base as the build packs it: static tables of string views that the compiler
// lays out (no code runs to make them), written by tools/nccl_kb_pack.cpp from what
// NcclKnowledgeBase::parse read in data/nccl-kb/*.yaml (the file is generated/nccl_kb_packed.cpp
// in the build dir). NcclKnowledgeBase::builtin() copies them into NcclKbEntry and its kin
// (nccl_kb_builtin.cpp); a test compares the result with the YAML parsed at test time.
#include <cstdint>
#include <span>
#include <string_view>

#include "knowledge/nccl_kb.h"

namespace trainready::nccl_kb_packed {

// A regex (NcclKbRegex): its text and what names it in an error; none when `present` is false.
struct Regex {
  bool present = false;
  std::string_view text, where;
};

struct Env {
  std::string_view name;
  Regex value;
};

// A cause with its context (NcclKbCause, NcclKbWhen); its env conditions are
// envs()[env_begin, env_begin + env_count).
struct Cause {
  std::string_view cause, fix, confirm;
  std::string_view link_layer;
  Regex net, plugin, log_has;
  std::uint32_t env_begin = 0, env_count = 0;
  std::string_view nccl, driver;
  std::int8_t multi_node = -1, mnnvl = -1, gdr = -1;  // -1 not given, 0 false, 1 true
};

// NcclKbEntry; its causes are causes()[cause_begin, cause_begin + cause_count).
struct Entry {
  std::string_view id, file, subsystem;
  Regex match;
  std::string_view literal;
  NcclKbLevel level = NcclKbLevel::kAny;
  NcclKbKind kind = NcclKbKind::kMessage;
  std::string_view versions;
  Regex in_file;
  std::string_view fixed_in, what;
  Severity severity = Severity::kError;
  int rank = 50;
  bool consequence = false;
  std::uint32_t cause_begin = 0, cause_count = 0;
  std::string_view source, doc;
};

struct File {
  std::string_view prefix, subsystem;
};

std::span<const Entry> entries();
std::span<const Cause> causes();
std::span<const Env> envs();
std::span<const File> files();  // longest prefix first

}  // namespace trainready::nccl_kb_packed
