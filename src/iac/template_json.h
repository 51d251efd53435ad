#pragma once
// A deployment JSON file as lint reads it: the located DOM (core/located_json.h), except that
// the elements of an ARM template's top-level "resources" array stay as text, parsed one at a
// time while the template is walked and dropped after. A 10,000-resource template then never
// holds a tree of every value, only the file and one resource's tree (issue 35: memory at most
// 3x the template).
//
// The file is read with simdjson's on-demand parser (Debian's libsimdjson-dev): one pass checks
// the whole text (UTF-8, structure, numbers, escapes, duplicate keys, depth) and builds the
// values outside "resources"; positions are byte offsets, turned into line numbers as the pass
// moves forward. Whatever that pass does not take — the ARM dialect (comments, trailing commas,
// line breaks inside strings), any error, a number nlohmann reads differently — goes to
// parse_located_json, so error messages (file:line, column) and every line number are the same
// as with the located DOM.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/located_json.h"

namespace trainready {

struct DeploymentJson {
  // The document. For a deferred element of "resources", value["resources"][i] is null.
  LocatedJson json;
  // The file's text, kept only while elements are deferred.
  std::string text;
  std::string file;
  // Top-level resources[i], parallel to value["resources"]; begin == end: not deferred (built in
  // `json` as usual). Empty: nothing is deferred.
  struct Span {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    int line = 1;
  };
  std::vector<Span> resources;

  bool deferred(std::size_t i) const {
    return i < resources.size() && resources[i].end > resources[i].begin;
  }
  // resources[i] parsed, its lines under "/resources/<i>" as in the whole document's table.
  // Each is read once, in order: the pages of text before it are given back to the system as
  // the walk moves on, so the text and the facts read from it are not both held whole.
  LocatedJson resource(std::size_t i) const;

 private:
  mutable std::size_t released_ = 0;     // text before this offset is gone
  mutable bool pages_released_ = false;  // some pages of `text` were given back (read as zeros)
};

// Parses a deployment file in the ARM dialect; throws InputError as parse_located_json does.
// Elements of "resources" are deferred only when the document is an ARM template.
DeploymentJson parse_deployment_document(std::string text, const std::string& file);

}  // namespace trainready
