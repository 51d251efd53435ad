#pragma once
// The wire's reading and writing helpers (codec/node_facts_wire.cpp, codec/host_health_wire.cpp):
// an In walks the CBOR items of a message (codec/cbor_tree.h) with the field's path for errors;
// fact()/fact_in() are a Fact's shape on the wire ({s: status, w: provenance, v: value | r:
// reason}). Internal to the codec.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/cbor_tree.h"
#include "codec/node_facts_wire.h"
#include "core/fact.h"

namespace trainready::wire {

using nlohmann::json;

// Decoding walks the CBOR items (codec/cbor_tree.h) with a path, so a bad message names the
// field it broke on. Paths cost a string per field, most of the decode time at thousands of
// nodes, so the first pass runs without them and only a message that fails is decoded again with
// them (node_facts_from_wire).
inline thread_local bool t_track_paths = false;

class In {
 public:
  In(const CborTree& t, std::uint32_t i, std::string path)
      : t_(&t), i_(i), path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw WireError((path_.empty() ? std::string("facts") : path_) + ": " + what);
  }
  const CborItem& raw() const { return (*t_)[i_]; }
  const std::string& path() const { return path_; }
  In at(const char* key) const {
    const CborItem& m = raw();
    if (m.type != CborType::kMap) fail("expected an object");
    const std::string_view want(key);
    std::uint32_t k = i_ + 1;
    for (std::uint32_t p = 0; p < m.count; ++p) {
      const std::uint32_t v = (*t_)[k].next;
      if ((*t_)[k].text == want) return In(*t_, v, join(key));
      k = (*t_)[v].next;
    }
    fail(std::string("missing key \"") + key + "\"");
  }
  bool has(const char* key) const {
    const CborItem& m = raw();
    if (m.type != CborType::kMap) return false;
    std::uint32_t k = i_ + 1;
    for (std::uint32_t p = 0; p < m.count; ++p) {
      if ((*t_)[k].text == key) return true;
      k = (*t_)[(*t_)[k].next].next;
    }
    return false;
  }
  std::uint32_t array_size() const {
    if (raw().type != CborType::kArray) fail("expected an array");
    return raw().count;
  }
  // f(In) for every element of an array, in order.
  template <class F>
  void each(F&& f) const {
    const std::uint32_t n = array_size();
    std::uint32_t k = i_ + 1;
    for (std::uint32_t e = 0; e < n; ++e) {
      f(In(*t_, k, t_track_paths ? path_ + "[" + std::to_string(e) + "]" : std::string()));
      k = (*t_)[k].next;
    }
  }
  In element(std::uint32_t e) const {  // e < array_size()
    std::uint32_t k = i_ + 1;
    for (std::uint32_t x = 0; x < e; ++x) k = (*t_)[k].next;
    return In(*t_, k, t_track_paths ? path_ + "[" + std::to_string(e) + "]" : std::string());
  }
  std::vector<In> items() const {
    std::vector<In> out;
    out.reserve(array_size());
    each([&](In x) { out.push_back(std::move(x)); });
    return out;
  }
  // f(key, In) for every pair of a map, in order.
  template <class F>
  void each_pair(F&& f, const char* what = "expected an object") const {
    const CborItem& m = raw();
    if (m.type != CborType::kMap) fail(what);
    std::uint32_t k = i_ + 1;
    for (std::uint32_t p = 0; p < m.count; ++p) {
      const std::uint32_t v = (*t_)[k].next;
      const std::string_view key = (*t_)[k].text;
      f(key, In(*t_, v, join(key)));
      k = (*t_)[v].next;
    }
  }
  std::string str() const {
    if (raw().type != CborType::kText) fail("expected a string");
    return std::string(raw().text);
  }
  bool boolean() const {
    if (raw().type != CborType::kBool) fail("expected true or false");
    return raw().u != 0;
  }
  long long integer() const {
    const CborItem& x = raw();
    if (x.type != CborType::kUnsigned && x.type != CborType::kNegative) fail("expected an integer");
    if (x.u > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
      fail("integer out of range");
    return x.type == CborType::kUnsigned ? static_cast<long long>(x.u)
                                         : -1 - static_cast<long long>(x.u);
  }
  int int32() const {
    const long long v = integer();
    if (v < -2147483647LL || v > 2147483647LL) fail("integer out of range");
    return static_cast<int>(v);
  }
  std::uint64_t u64() const {
    if (raw().type != CborType::kUnsigned) fail("expected a non-negative integer");
    return raw().u;
  }
  double number() const {
    const CborItem& x = raw();
    switch (x.type) {
      case CborType::kUnsigned:
        return static_cast<double>(x.u);
      case CborType::kNegative:
        return -1.0 - static_cast<double>(x.u);
      case CborType::kFloat:
        return x.f;
      default:
        fail("expected a number");
    }
  }
  bool is_null() const { return raw().type == CborType::kNull; }
  std::map<std::string, std::string> string_map() const {
    std::map<std::string, std::string> m;
    each_pair([&](std::string_view key, const In& v) { m.emplace(key, v.str()); },
              "expected an object of strings");
    return m;
  }
  std::vector<std::string> strings() const {
    std::vector<std::string> v;
    v.reserve(array_size());
    each([&](const In& x) { v.push_back(x.str()); });
    return v;
  }

 private:
  std::string join(std::string_view key) const {
    if (!t_track_paths) return std::string();
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  const CborTree* t_;
  std::uint32_t i_;
  std::string path_;
};

inline json prov(const Provenance& p) { return json::array({p.source, p.line}); }
inline Provenance prov_in(const In& in) {
  if (in.array_size() != 2) in.fail("expected [source, line]");
  return Provenance{in.element(0).str(), in.element(1).int32()};
}

inline int status_code(FactStatus s) { return static_cast<int>(s); }
inline FactStatus status_in(const In& in) {
  const int s = in.int32();
  if (s < 0 || s > 2) in.fail("fact status must be 0, 1 or 2");
  return static_cast<FactStatus>(s);
}

template <class T, class F>
json fact(const Fact<T>& f, F&& enc) {
  json j{{"s", status_code(f.status)}, {"w", prov(f.where)}};
  if (f.ok()) {
    j["v"] = enc(f.value);
  } else {
    j["r"] = f.reason;
  }
  return j;
}

template <class T, class F>
Fact<T> fact_in(const In& in, F&& dec) {
  Fact<T> f;
  f.status = status_in(in.at("s"));
  f.where = prov_in(in.at("w"));
  if (f.ok()) {
    f.reason.clear();
    f.value = dec(in.at("v"));
  } else {
    f.reason = in.at("r").str();
  }
  return f;
}

inline json str_enc(const std::string& s) { return json(s); }
inline std::string str_dec(const In& in) { return in.str(); }

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
template <class T, class F>
std::optional<T> opt_in(const In& in, F&& dec) {
  if (in.is_null()) return std::nullopt;
  return dec(in);
}

}  // namespace trainready::wire
