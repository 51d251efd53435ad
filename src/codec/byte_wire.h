#pragma once
// Little-endian integers and length-prefixed strings: the fleet's own binary messages between
// ranks (a group leader's judgement of its group), which are read without copying and checked
// for every length. A reader throws WireError (codec/node_facts_wire.h) on bytes cut short.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "codec/node_facts_wire.h"

namespace trainready {

inline void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
inline void put_u32(std::string& out, std::uint64_t v) { put_le(out, v, 4); }
inline void put_f64(std::string& out, double d) {
  std::uint64_t v = 0;
  std::memcpy(&v, &d, sizeof v);
  put_le(out, v, 8);
}
inline void put_str(std::string& out, std::string_view s) {
  put_u32(out, s.size());
  out += s;
}

class ByteReader {
 public:
  ByteReader(std::string_view b, const char* what) : b_(b), what_(what) {}
  std::uint64_t get(int bytes) {
    need(static_cast<std::size_t>(bytes));
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(
               static_cast<unsigned char>(b_[at_ + static_cast<std::size_t>(i)]))
           << (8 * i);
    at_ += static_cast<std::size_t>(bytes);
    return v;
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  double f64() {
    const std::uint64_t v = get(8);
    double d = 0;
    std::memcpy(&d, &v, sizeof d);
    return d;
  }
  std::string_view take(std::size_t n) {
    need(n);
    std::string_view v = b_.substr(at_, n);
    at_ += n;
    return v;
  }
  std::string_view str() { return take(u32()); }
  // A count of items of at least `min_bytes` each: more than the bytes left can hold is an error
  // (before anything is allocated for them).
  std::size_t count(std::size_t min_bytes) {
    const std::uint32_t n = u32();
    if (min_bytes > 0 && n > (b_.size() - at_) / min_bytes) fail("a count larger than the bytes");
    return n;
  }
  std::size_t at() const { return at_; }
  bool done() const { return at_ == b_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw WireError(std::string(what_) + ": " + why + " at byte " + std::to_string(at_));
  }

 private:
  void need(std::size_t n) const {
    if (b_.size() - at_ < n) fail("cut short");
  }
  std::string_view b_;
  const char* what_;
  std::size_t at_ = 0;
};

}  // namespace trainready
