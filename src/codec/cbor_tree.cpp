#include "codec/cbor_tree.h"

#include <cmath>
#include <cstring>

#include "codec/node_facts_wire.h"

namespace trainready {
namespace {

// Far deeper than any fleet message (facts nest 6 levels), shallow enough that hostile nesting
// cannot exhaust the stack.
constexpr int kMaxDepth = 64;

// RFC 8949 appendix D: IEEE 754 half precision to double.
double half_to_double(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp != 31)
    v = std::ldexp(mant + 1024, exp - 25);
  else
    v = mant == 0 ? INFINITY : NAN;
  return (h & 0x8000) ? -v : v;
}

}  // namespace

const char* cbor_type_name(CborType t) {
  switch (t) {
    case CborType::kUnsigned:
    case CborType::kNegative:
    case CborType::kFloat:
      return "number";
    case CborType::kText:
      return "string";
    case CborType::kArray:
      return "array";
    case CborType::kMap:
      return "object";
    case CborType::kBool:
      return "boolean";
    case CborType::kNull:
      return "null";
  }
  return "null";
}

void CborTree::fail(const std::string& what) const {
  throw WireError("not CBOR: " + what + " at byte " + std::to_string(pos_));
}

void CborTree::parse(std::string_view bytes) {
  in_ = bytes;
  pos_ = 0;
  items_.clear();
  if (in_.empty()) fail("no bytes");
  item(0);
  if (pos_ != in_.size()) fail("bytes after the end of the document");
}

// The argument of an initial byte (RFC 8949 section 3): in the byte itself below 24, else in
// the 1, 2, 4 or 8 big-endian bytes that follow.
std::uint64_t CborTree::argument(std::uint8_t info) {
  if (info < 24) return info;
  if (info > 27) fail(info == 31 ? "an indefinite length" : "a reserved length");
  const std::size_t n = std::size_t{1} << (info - 24);
  if (in_.size() - pos_ < n) fail("truncated");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<std::uint8_t>(in_[pos_ + i]);
  pos_ += n;
  return v;
}

void CborTree::item(int depth) {
  if (depth > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth));
  if (pos_ >= in_.size()) fail("truncated");
  const auto initial = static_cast<std::uint8_t>(in_[pos_++]);
  const int major = initial >> 5;
  const auto info = static_cast<std::uint8_t>(initial & 0x1f);
  const std::uint32_t self = size();
  items_.emplace_back();
  // Each element takes at least one byte: a count beyond the bytes left is a lie, refused
  // before it sizes anything.
  auto counted = [&](std::uint64_t n, std::uint64_t per) {
    if (n > (in_.size() - pos_) / per) fail("truncated");
    return static_cast<std::uint32_t>(n);
  };
  switch (major) {
    case 0:
    case 1: {
      const std::uint64_t v = argument(info);
      items_[self].type = major == 0 ? CborType::kUnsigned : CborType::kNegative;
      items_[self].u = v;
      break;
    }
    case 3: {
      const std::uint32_t n = counted(argument(info), 1);
      items_[self].type = CborType::kText;
      items_[self].text = in_.substr(pos_, n);
      pos_ += n;
      break;
    }
    case 4: {
      const std::uint32_t n = counted(argument(info), 1);
      items_[self].type = CborType::kArray;
      items_[self].count = n;
      for (std::uint32_t i = 0; i < n; ++i) item(depth + 1);
      break;
    }
    case 5: {
      const std::uint32_t n = counted(argument(info), 2);
      items_[self].type = CborType::kMap;
      items_[self].count = n;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (pos_ < in_.size() && (static_cast<std::uint8_t>(in_[pos_]) >> 5) != 3)
          fail("a map key that is not a text string");
        item(depth + 1);
        item(depth + 1);
      }
      break;
    }
    case 7: {
      CborItem& x = items_[self];
      if (info == 20 || info == 21) {
        x.type = CborType::kBool;
        x.u = info == 21;
      } else if (info == 22) {
        x.type = CborType::kNull;
      } else if (info >= 25 && info <= 27) {
        const std::uint64_t bits = argument(info);
        x.type = CborType::kFloat;
        if (info == 25) {
          x.f = half_to_double(static_cast<std::uint16_t>(bits));
        } else if (info == 26) {
          float f32;
          const auto b32 = static_cast<std::uint32_t>(bits);
          std::memcpy(&f32, &b32, sizeof f32);
          x.f = f32;
        } else {
          std::memcpy(&x.f, &bits, sizeof x.f);
        }
      } else {
        fail("an unsupported simple value " + std::to_string(info));
      }
      break;
    }
    default:
      fail(major == 2 ? "a byte string" : major == 6 ? "a tag" : "an unknown item");
  }
  items_[self].next = size();
}

}  // namespace trainready
