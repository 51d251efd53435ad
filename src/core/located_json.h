#pragma once
// JSON with the line of every member and element, for findings that point at the property that
// is wrong (SARIF region.startLine). nlohmann's DOM keeps no positions, so the document is read
// through its SAX interface with an input iterator that counts lines as the lexer consumes them.
//
// Two dialects. Strict JSON (RFC 8259) for the tool's own formats, and the dialect Azure Resource
// Manager accepts in templates and parameter files: `//` and `/* */` comments, a trailing comma
// before `]` or `}`, and raw line breaks (control characters) inside strings, which multi-line
// expressions ("[if(...,\n ...)]") use. The ARM dialect is read by a filter between the text and
// the lexer, so there is one copy of the text and every line number stays that of the file.
//
// A key that appears twice in one object is refused in both dialects, naming both lines: parsers
// disagree on which value wins (Newtonsoft.Json, which ARM uses, and nlohmann keep the last), and
// a finding that cites the first line while the second value is judged is a lie.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainready {

enum class JsonDialect { kStrict, kArm };

struct LocatedJson {
  nlohmann::json value;
  // Hash of a JSON pointer ("/resources/0/properties/singlePlacementGroup") → 1-based line of
  // its key (members) or of its first character (array elements), sorted by hash. Hashes, not
  // strings, in a flat vector: a large template has hundreds of thousands of values (16 bytes
  // each here; a node-based map costs four times that), and a 64-bit collision only misplaces
  // a line.
  std::vector<std::pair<std::uint64_t, int>> lines;

  // The line of `pointer`, or of its nearest ancestor that has one; 1 for the whole document.
  int line_of(std::string_view pointer) const;
  // Whether the pointer names a value of the document.
  bool has(std::string_view pointer) const;
};

// Parses `text`; on error throws InputError naming `file`, the line and the column, and for a
// duplicate key both lines.
LocatedJson parse_located_json(std::string_view text, const std::string& file,
                               JsonDialect dialect = JsonDialect::kStrict);

// Parses JSON found inside an input (ARM json(), a -p value): nullopt when it is not JSON or is
// nested deeper than parse_located_json allows.
std::optional<nlohmann::json> parse_embedded_json(std::string_view text);

// Escapes one reference token for a JSON pointer ("~" → "~0", "/" → "~1").
std::string json_pointer_token(std::string_view key);
// The same, appended to `pointer` (no string per key: the readers build every key's path).
void append_json_pointer_token(std::string* pointer, std::string_view key);

}  // namespace trainready
