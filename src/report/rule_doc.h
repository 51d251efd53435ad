#pragma once
// Where a rule's page lives: in the repository (JSON "doc"), and on the web (SARIF helpUri,
// HTML links).
#include <string>

namespace trainready {

inline std::string rule_doc_path(const std::string& rule_id) {
  return "docs/rules/" + rule_id + ".md";
}

inline std::string rule_doc_url(const std::string& rule_id) {
  return "https://github.com/trainready/trainready/blob/main/" + rule_doc_path(rule_id);
}

}  // namespace trainready
