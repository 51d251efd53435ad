#include "fleet/fleet_message.h"

#include <nlohmann/json.hpp>

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

template <class T>
T field(const json& j, const char* key, json::value_t type) {
  auto it = j.find(key);
  if (it == j.end()) throw WireError(std::string("message: missing key \"") + key + "\"");
  const bool ok =
      it->type() == type || (type == json::value_t::number_integer && it->is_number_unsigned());
  if (!ok) throw WireError(std::string("message: \"") + key + "\" has the wrong type");
  return it->get<T>();
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
  json j;
  try {
    j = json::from_cbor(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    throw WireError(std::string("not CBOR: ") + e.what());
  }
  if (!j.is_object()) throw WireError("message: expected a CBOR map");
  auto magic = j.find("magic");
  if (magic == j.end() || !magic->is_string() || magic->get<std::string>() != kMagic)
    throw WireError("message: not a trainready fleet message (no \"magic\": \"trainready-fleet\")");
  RankMessage m;
  m.format = static_cast<int>(field<long long>(j, "format", json::value_t::number_integer));
  if (auto v = j.find("version"); v != j.end() && v->is_string()) m.tool_version = *v;
  if (auto h = j.find("host"); h != j.end() && h->is_string()) m.host = *h;
  if (m.format != kFleetMessageFormat) return m;  // another build's shape: the envelope only
  const long long rank = field<long long>(j, "rank", json::value_t::number_integer);
  const long long pid = field<long long>(j, "pid", json::value_t::number_integer);
  if (rank < 0 || rank > 1'000'000'000 || pid < 0 || pid > 2'000'000'000)
    throw WireError("message: rank or pid out of range");
  m.rank = static_cast<int>(rank);
  m.pid = static_cast<int>(pid);
  const std::string kind = field<std::string>(j, "kind", json::value_t::string);
  if (kind == "hello") {
    m.kind = RankMessageKind::kHello;
  } else if (kind == "facts") {
    m.kind = RankMessageKind::kFacts;
    auto f = j.find("facts");
    if (f == j.end()) throw WireError("message: a facts message without \"facts\"");
    m.facts = node_facts_from_wire(*f);
  } else if (kind == "failed") {
    m.kind = RankMessageKind::kFailed;
    m.error = field<std::string>(j, "error", json::value_t::string);
  } else {
    throw WireError("message: unknown kind \"" + kind + "\"");
  }
  return m;
}

}  // namespace trainready
