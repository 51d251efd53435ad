#pragma once
// --scrub: replaces GUIDs, serial numbers and host names with stable pseudonyms. The same input
// always maps to the same pseudonym, so nodes scrubbed separately still compare equal where
// they were equal (placement group ids, scale set names).
#include <map>
#include <string>
#include <string_view>

namespace trainready {

class Scrubber {
 public:
  // Values known to be identifying (host name, serials, IMDS names): replaced wherever they appear.
  void add_literal(const std::string& value, std::string_view kind);
  // Literal replacement first, then GUID-shaped tokens (0x + 16 hex, 4 x 4 hex, UUIDs, GPU-UUIDs).
  std::string apply(std::string_view text) const;
  const std::map<std::string, std::string>& literals() const { return literals_; }

 private:
  std::map<std::string, std::string> literals_;  // original -> pseudonym
};

}  // namespace trainready
