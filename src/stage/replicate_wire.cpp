#include "stage/replicate_wire.h"

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/utf8.h"

namespace trainready::stage::fanout {

const char* status_kind(std::uint8_t s) {
  switch (s) {
    case kChangedSt:
      return "changed";
    case kVanishedSt:
      return "vanished";
    case kPermissionSt:
      return "permission";
    default:
      return "io";
  }
}

std::uint8_t status_of(SourceError::Kind k) {
  switch (k) {
    case SourceError::Kind::kChanged:
      return kChangedSt;
    case SourceError::Kind::kNotFound:
      return kVanishedSt;
    case SourceError::Kind::kPermission:
      return kPermissionSt;
    case SourceError::Kind::kIo:
    case SourceError::Kind::kSymlink:  // listing only
    case SourceError::Kind::kSpecial:
    case SourceError::Kind::kTooLarge:
      break;
  }
  return kIoSt;
}

std::string encode(const Batch& b) {
  std::size_t n = 32;
  for (const UnitResult& u : b.units) n += 24 + u.message.size() + u.bytes.size();
  std::string s;
  s.reserve(n);
  put<std::uint32_t>(s, kBatchMagic);
  put<std::uint8_t>(s, b.last ? 1 : 0);
  put<double>(s, b.owner_wait_s);
  put<std::uint32_t>(s, static_cast<std::uint32_t>(b.units.size()));
  for (const UnitResult& u : b.units) {
    put<std::uint64_t>(s, u.unit);
    put<std::uint8_t>(s, u.status);
    put<std::uint32_t>(s, static_cast<std::uint32_t>(u.message.size()));
    s += u.message;
    put<std::uint64_t>(s, u.bytes.size());
    s += u.bytes;
  }
  return s;
}

Batch decode(const std::string& s, const std::vector<Unit>& units) {
  Reader r(s);
  if (r.get<std::uint32_t>() != kBatchMagic) throw std::runtime_error("not a fan-out message");
  Batch b;
  b.last = r.get<std::uint8_t>() != 0;
  b.owner_wait_s = r.get<double>();
  const std::uint32_t n = r.get<std::uint32_t>();
  for (std::uint32_t i = 0; i < n; ++i) {
    UnitResult u;
    u.unit = r.get<std::uint64_t>();
    u.status = r.get<std::uint8_t>();
    u.message = r.bytes(r.get<std::uint32_t>());
    const auto len = r.get<std::uint64_t>();
    if (u.unit >= units.size() || (u.status == kOk && len != units[u.unit].len))
      throw std::runtime_error("a fan-out message names a unit that is not in the manifest");
    u.bytes = r.bytes(static_cast<std::size_t>(len));
    b.units.push_back(std::move(u));
  }
  if (!r.end()) throw std::runtime_error("a fan-out message has trailing bytes");
  return b;
}

std::string encode_manifest(const std::vector<SourceEntry>& all, std::uint64_t chunk,
                            const std::string& error, const std::vector<StageProblem>& problems) {
  // "unreadable": the listing failed before it found anything, so the source cannot be read at
  // all (an input error on every rank, as without --replicate).
  nlohmann::json j{{"chunk_bytes", chunk},
                   {"error", error},
                   {"unreadable", !error.empty() && all.empty() && problems.empty()}};
  nlohmann::json es = nlohmann::json::array();
  for (const SourceEntry& e : all) {
    nlohmann::json x{e.path, e.size, e.mtime_ns, e.etag, e.content_md5, e.mode};
    // A name that is not UTF-8 travels as its bytes (base64), as the journal keeps it.
    if (valid_utf8(e.path) != e.path) x.push_back(base64_encode(e.path));
    es.push_back(std::move(x));
  }
  j["entries"] = std::move(es);
  nlohmann::json ps = nlohmann::json::array();
  for (const StageProblem& p : problems) ps.push_back({p.path, p.kind, p.message});
  j["problems"] = std::move(ps);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace trainready::stage::fanout
