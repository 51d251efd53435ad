#include "fleet/fleet_message.h"

#include <nlohmann/json.hpp>

#include "codec/cbor_tree.h"

#include "codec/node_facts_wire.h"

namespace trainready {
namespace {

using nlohmann::json;

constexpr const char* kMagic = "trainready-fleet";

const char* kind_name(RankMessageKind k) {
  switch (k) {
    case RankMessageKind::kHello:
      return "hello";
    case RankMessageKind::kFacts:
      return "facts";
    case RankMessageKind::kFailed:
      return "failed";
  }
  return "hello";
}

// The envelope's map, item 0 of the tree: where a key's value is, if it is there.
const CborItem* find(const CborTree& t, const char* key) {
  std::uint32_t k = 1;
  for (std::uint32_t p = 0; p < t[0].count; ++p) {
    const std::uint32_t v = t[k].next;
    if (t[k].text == key) return &t[v];
    k = t[v].next;
  }
  return nullptr;
}

const CborItem& field(const CborTree& t, const char* key, CborType type) {
  const CborItem* x = find(t, key);
  if (x == nullptr) throw WireError(std::string("message: missing key \"") + key + "\"");
  if (x->type != type) throw WireError(std::string("message: \"") + key + "\" has the wrong type");
  return *x;
}

// A non-negative integer field no larger than `max`.
long long count_field(const CborTree& t, const char* key, long long max, const char* what) {
  const CborItem* x = find(t, key);
  if (x == nullptr) throw WireError(std::string("message: missing key \"") + key + "\"");
  if (x->type == CborType::kNegative) throw WireError(std::string("message: ") + what);
  const CborItem& u = field(t, key, CborType::kUnsigned);
  if (u.u > static_cast<std::uint64_t>(max)) throw WireError(std::string("message: ") + what);
  return static_cast<long long>(u.u);
}

}  // namespace

std::string encode_rank_message(const RankMessage& m) {
  json j{{"magic", kMagic}, {"format", m.format}, {"kind", kind_name(m.kind)}, {"rank", m.rank},
         {"host", m.host},  {"pid", m.pid},       {"version", m.tool_version}};
  if (m.kind == RankMessageKind::kFacts && m.facts) j["facts"] = node_facts_to_wire(*m.facts);
  if (m.kind == RankMessageKind::kFailed) j["error"] = m.error;
  const std::vector<std::uint8_t> bytes = json::to_cbor(j);
  return std::string(bytes.begin(), bytes.end());
}

RankMessage decode_rank_message(std::string_view bytes) {
  // One tree per thread, reused: its items keep their capacity from message to message.
  thread_local CborTree t;
  t.parse(bytes);
  if (t[0].type != CborType::kMap) throw WireError("message: expected a CBOR map");
  const CborItem* magic = find(t, "magic");
  if (magic == nullptr || magic->type != CborType::kText || magic->text != kMagic)
    throw WireError("message: not a trainready fleet message (no \"magic\": \"trainready-fleet\")");
  RankMessage m;
  const CborItem* format = find(t, "format");
  if (format == nullptr) throw WireError("message: missing key \"format\"");
  if (format->type != CborType::kUnsigned && format->type != CborType::kNegative)
    throw WireError("message: \"format\" has the wrong type");
  // Any other number is another build's shape; one beyond an int is reported as -1.
  if (format->u <= 2147483647u)
    m.format = format->type == CborType::kUnsigned ? static_cast<int>(format->u)
                                                   : -1 - static_cast<int>(format->u);
  else
    m.format = -1;
  if (const CborItem* v = find(t, "version"); v && v->type == CborType::kText)
    m.tool_version = std::string(v->text);
  if (const CborItem* h = find(t, "host"); h && h->type == CborType::kText)
    m.host = std::string(h->text);
  if (m.format != kFleetMessageFormat) return m;  // another build's shape: the envelope only
  m.rank = static_cast<int>(count_field(t, "rank", 1'000'000'000, "rank or pid out of range"));
  m.pid = static_cast<int>(count_field(t, "pid", 2'000'000'000, "rank or pid out of range"));
  const std::string kind(field(t, "kind", CborType::kText).text);
  if (kind == "hello") {
    m.kind = RankMessageKind::kHello;
  } else if (kind == "facts") {
    m.kind = RankMessageKind::kFacts;
    const CborItem* f = find(t, "facts");
    if (f == nullptr) throw WireError("message: a facts message without \"facts\"");
    m.facts = node_facts_from_wire(t, static_cast<std::uint32_t>(f - &t[0]));
  } else if (kind == "failed") {
    m.kind = RankMessageKind::kFailed;
    m.error = std::string(field(t, "error", CborType::kText).text);
  } else {
    throw WireError("message: unknown kind \"" + kind + "\"");
  }
  return m;
}

}  // namespace trainready
