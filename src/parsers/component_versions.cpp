#include "parsers/component_versions.h"

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready {

ImageComponents parse_component_versions(std::string_view text, const std::string& source) {
  ImageComponents c;
  std::string_view body = trim(text);
  if (body.empty()) throw InputError(source, 1, "empty; expected a JSON object or KEY=VALUE lines");
  if (body.front() == '{') {
    c.format = "json";
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw InputError(source, 1,
                       "not a JSON object; expected {\"COMPONENT\": \"VERSION\", ...} as "
                       "azhpc-images writes it");
    for (const auto& [k, v] : j.items()) {
      if (v.is_string())
        c.versions[k] = v.get<std::string>();
      else if (v.is_number() || v.is_boolean())
        c.versions[k] = v.dump();
      else
        throw InputError(source, 1, "component \"" + k + "\": expected a version string");
    }
    return c;
  }
  c.format = "key=value";
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw InputError(source, lineno,
                       "expected COMPONENT=VERSION (or a JSON object), got \"" +
                           std::string(line.substr(0, 80)) + "\"");
    c.versions[std::string(trim(line.substr(0, eq)))] = std::string(trim(line.substr(eq + 1)));
  }
  if (c.versions.empty()) throw InputError(source, 1, "no COMPONENT=VERSION line");
  return c;
}

}  // namespace trainready
