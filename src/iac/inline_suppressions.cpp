#include "iac/inline_suppressions.h"

#include "core/text.h"

namespace trainready {

using json = nlohmann::json;

namespace {

void add_one(std::string_view entry, const Provenance& where, DeploymentResource* d) {
  entry = trim(entry);
  if (entry.empty()) return;
  auto colon = entry.find(':');
  std::string rule(trim(entry.substr(0, colon)));
  std::string why =
      colon == std::string_view::npos ? "" : std::string(trim(entry.substr(colon + 1)));
  if (rule.empty()) return;
  d->suppressions.emplace_back(rule, why);
  if (d->suppressions_where.source.empty()) d->suppressions_where = where;
}

}  // namespace

void add_suppression_list(std::string_view text, const Provenance& where, DeploymentResource* d) {
  std::size_t start = 0;
  while (start <= text.size()) {
    auto semi = text.find(';', start);
    add_one(
        text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start),
        where, d);
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
}

void read_arm_suppressions(const json& resource, const LocatedJson& doc, const std::string& ptr,
                           const std::string& file, DeploymentResource* d) {
  auto md = resource.find("metadata");
  if (md == resource.end() || !md->is_object()) return;
  auto list = md->find("trainready");
  if (list == md->end()) return;
  std::string at = ptr + "/metadata/trainready";
  if (list->is_string()) {
    add_suppression_list(list->get<std::string>(), Provenance{file, doc.line_of(at)}, d);
    return;
  }
  if (!list->is_array()) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    if (e.is_string())
      add_one(e.get<std::string>(), Provenance{file, doc.line_of(at + "/" + std::to_string(i))}, d);
  }
}

bool parse_tf_skip_comment(std::string_view line, std::string* rule, std::string* why) {
  std::string_view t = trim(line);
  if (t.rfind('#', 0) == 0) {
    t.remove_prefix(1);
  } else if (t.rfind("//", 0) == 0) {
    t.remove_prefix(2);
  } else {
    return false;
  }
  t = trim(t);
  constexpr std::string_view kPrefix = "trainready:skip=";
  if (t.rfind(kPrefix, 0) != 0) return false;
  t.remove_prefix(kPrefix.size());
  auto colon = t.find(':');
  *rule = std::string(trim(t.substr(0, colon)));
  *why = colon == std::string_view::npos ? "" : std::string(trim(t.substr(colon + 1)));
  return !rule->empty();
}

}  // namespace trainready
