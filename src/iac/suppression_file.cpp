#include "iac/suppression_file.h"

#include <cctype>

#include "core/input_error.h"
#include "core/located_json.h"

namespace trainready {

namespace {

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  int month = std::stoi(s.substr(5, 2));
  int day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

std::vector<SuppressionEntry> parse_suppression_file(const std::string& text,
                                                     const std::string& file) {
  LocatedJson doc = parse_located_json(text, file);
  const auto& v = doc.value;
  if (!v.is_object() || !v.contains("suppressions") || !v["suppressions"].is_array())
    throw InputError(file, 1, "expected {\"suppressions\": [ ... ]}");
  std::vector<SuppressionEntry> out;
  const auto& list = v["suppressions"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ptr = "/suppressions/" + std::to_string(i);
    const int line = doc.line_of(ptr);
    const auto& e = list[i];
    if (!e.is_object()) throw InputError(file, line, "expected an object {\"rule\": ..., ...}");
    SuppressionEntry s;
    s.where = Provenance{file, line};
    for (auto it = e.begin(); it != e.end(); ++it) {
      const int kl = doc.line_of(ptr + "/" + json_pointer_token(it.key()));
      if (!it.value().is_string())
        throw InputError(file, kl, "expected a string for \"" + it.key() + "\"");
      const std::string val = it.value().get<std::string>();
      if (it.key() == "rule") {
        s.rule = val;
      } else if (it.key() == "resource") {
        s.resource = val;
      } else if (it.key() == "justification") {
        s.justification = val;
      } else if (it.key() == "expires") {
        if (!is_date(val)) throw InputError(file, kl, "expected \"expires\" as YYYY-MM-DD");
        s.expires = val;
      } else {
        throw InputError(
            file, kl,
            "unknown key \"" + it.key() + "\" (expected rule, resource, justification, expires)");
      }
    }
    if (s.rule.empty()) throw InputError(file, line, "expected a \"rule\" in each suppression");
    if (s.justification.empty())
      throw InputError(file, line, "expected a \"justification\" in each suppression");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace trainready
