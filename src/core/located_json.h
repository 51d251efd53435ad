#pragma once
// JSON with the line of every member and element, for findings that point at the property that
// is wrong (SARIF region.startLine). nlohmann's DOM keeps no positions, so the document is read
// through its SAX interface with an input iterator that counts lines as the lexer consumes them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace trainready {

struct LocatedJson {
  nlohmann::json value;
  // Hash of a JSON pointer ("/resources/0/properties/singlePlacementGroup") → 1-based line of
  // its key (members) or of its first character (array elements). Hashes, not strings: a large
  // template has hundreds of thousands of values, and a 64-bit collision only misplaces a line.
  std::unordered_map<std::size_t, int> lines;

  // The line of `pointer`, or of its nearest ancestor that has one; 1 for the whole document.
  int line_of(std::string_view pointer) const;
  // Whether the pointer names a value of the document.
  bool has(std::string_view pointer) const;
};

// Parses `text`; on error throws InputError naming `file`, the line and the column.
LocatedJson parse_located_json(std::string_view text, const std::string& file);

// Parses JSON found inside an input (ARM json(), a -p value): nullopt when it is not JSON or is
// nested deeper than parse_located_json allows.
std::optional<nlohmann::json> parse_embedded_json(std::string_view text);

// Escapes one reference token for a JSON pointer ("~" → "~0", "/" → "~1").
std::string json_pointer_token(std::string_view key);

}  // namespace trainready
