#pragma once
// A CBOR document (RFC 8949) read straight from its bytes into one flat array of items, for rank
// 0 of `fleet`: decoding 4,096 nodes' facts through nlohmann::json built a full json document per
// message (a node per value, a std::map per object, a std::string per key and string) and spent
// most of its time in allocation. Here strings stay views into the bytes, and an item's subtree
// is the items that follow it (`next` skips it), so a message costs one vector, reused.
// What the fleet encoder writes is read: unsigned and negative integers, definite-length text
// strings, arrays and maps with text keys, half/single/double floats, false, true and null.
// Anything else (byte strings, tags, indefinite lengths, undefined) is refused with the offset.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

enum class CborType : std::uint8_t {
  kUnsigned,
  kNegative,
  kFloat,
  kText,
  kArray,
  kMap,
  kBool,
  kNull
};

struct CborItem {
  CborType type = CborType::kNull;
  std::uint32_t count = 0;  // elements of an array, pairs of a map
  std::uint32_t next = 0;   // index of the first item after this one's subtree
  std::uint64_t u = 0;      // kUnsigned: the value; kNegative: -1 - value; kBool: 0 or 1
  double f = 0;             // kFloat
  std::string_view text;    // kText: a view into the parsed bytes
};

class CborTree {
 public:
  // Replaces the tree with the document in `bytes` (which must outlive it); throws WireError
  // ("not CBOR: ...at byte N") for bytes that are not one complete document of the kinds above.
  void parse(std::string_view bytes);
  const CborItem& operator[](std::uint32_t i) const { return items_[i]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(items_.size()); }

 private:
  void item(int depth);
  std::uint64_t argument(std::uint8_t info);
  [[noreturn]] void fail(const std::string& what) const;
  std::string_view in_;
  std::size_t pos_ = 0;
  std::vector<CborItem> items_;
};

// nlohmann's names for a type, for error messages: "string", "array", ...
const char* cbor_type_name(CborType t);

}  // namespace trainready
