#pragma once
// Where a rule's page lives on the web, for links from HTML and JUnit: the same address as
// SARIF's helpUri (lint_report.h's rule_doc_url), so every output lands on one document.
#include <string>

namespace trainready {

inline std::string rule_page_url(const std::string& rule_id) {
  return "https://github.com/trainready/trainready/blob/main/docs/rules/" + rule_id + ".md";
}

}  // namespace trainready
