// `trainready rules` and `trainready explain ID`.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/embedded.h"
#include "core/input_error.h"
#include "rules/health/health_rules.h"
#include "rules/registry.h"

namespace trainready {

Runner add_rules_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* c = app.add_subcommand("rules", "List the rules: id, severity, scope, title");
  c->add_flag("--json", *json, "JSON output");
  return [json] {
    if (*json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& r : all_rules()) {
        arr.push_back({{"id", std::string(r->id())},
                       {"severity", std::string(to_string(r->severity()))},
                       {"scope", scope_name(r->scope())},
                       {"title", std::string(r->title())},
                       {"doc", "docs/rules/" + std::string(r->id()) + ".md"}});
      }
      for (const auto& r : health_rules()) {  // judged only by `trainready health`
        arr.push_back({{"id", std::string(r->id())},
                       {"severity", std::string(to_string(r->severity()))},
                       {"scope", "health"},
                       {"title", std::string(r->title())},
                       {"doc", "docs/rules/" + std::string(r->id()) + ".md"}});
      }
      std::printf("%s\n", nlohmann::json{{"schema_version", 1}, {"rules", arr}}.dump(2).c_str());
      return 0;
    }
    std::printf("%-28s %-8s %-10s %s\n", "ID", "SEVERITY", "SCOPE", "TITLE");
    for (const auto& r : all_rules()) {
      std::printf("%-28s %-8s %-10s %s\n", std::string(r->id()).c_str(),
                  std::string(to_string(r->severity())).c_str(), scope_name(r->scope()),
                  std::string(r->title()).c_str());
    }
    for (const auto& r : health_rules())
      std::printf("%-28s %-8s %-10s %s\n", std::string(r->id()).c_str(),
                  std::string(to_string(r->severity())).c_str(), "health",
                  std::string(r->title()).c_str());
    std::printf("\n`trainready explain ID` prints a rule's page.\n");
    return 0;
  };
}

Runner add_explain_command(CLI::App& app) {
  auto id = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("explain", "Print a rule's documentation page");
  c->add_option("id", *id, "Rule id, e.g. ib-port-not-active")->required();
  return [id] {
    for (const auto& [doc_id, page] : embedded_rule_docs()) {
      if (doc_id == *id) {
        std::fwrite(page.data(), 1, page.size(), stdout);
        return 0;
      }
    }
    throw InputError("explain", 0, "unknown rule id '" + *id + "' (see `trainready rules`)");
  };
}

}  // namespace trainready
