#pragma once
// Helpers of the plan --emit tests: the real `trainready lint` over a written template, the
// deployment rules in process, and a small HCL well-formedness check.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/ib_placement.h"
#include "core/text.h"
#include "emit/deployment_model.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"
#include "support/rule_harness.h"
#include "support/run_cli.h"

namespace trainready::test {

inline const std::vector<int> kVmCounts = {1, 2, 100, 101, 300};

inline std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

inline std::vector<const SkuEntry*> ib_sizes() {
  std::vector<const SkuEntry*> out;
  for (const SkuEntry& s : Catalog::builtin().skus()) {
    if (s.has_infiniband()) out.push_back(&s);
  }
  return out;
}

inline std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline const nlohmann::json& vmss_of(const nlohmann::json& t) {
  for (const auto& r : t["resources"]) {
    if (r["type"] == "Microsoft.Compute/virtualMachineScaleSets") return r;
  }
  throw std::runtime_error("no scale set in the template");
}

// Rule ids of the findings of `lint` over one template, through the binary.
struct LintRun {
  int code = -1;
  std::vector<std::string> rules;
  int suppressed = 0;
  std::string raw;
};

inline LintRun lint_file(const std::string& path) {
  LintRun out;
  CliResult r = run_trainready({"lint", path, "--format", "json", "--fail-on", "info"});
  out.code = r.code;
  out.raw = r.out + r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return out;
  for (const auto& f : j["findings"]) out.rules.push_back(f["rule"].get<std::string>());
  out.suppressed = j["counts"].value("suppressed", 0);
  return out;
}

// In process: every deployment rule over the template as `lint` reads it.
inline std::vector<std::string> fired(const std::string& arm_text, const std::string& rule) {
  DeploymentFacts d = read_deployment_text(arm_text, "azuredeploy.json");
  RuleOutcome o = run_deploy_rule(rule, d);
  std::vector<std::string> ids;
  for (const auto& f : o.findings) ids.push_back(f.rule_id);
  return ids;
}

// A small HCL well-formedness check: braces and brackets balance outside strings, comments
// and heredocs; every quoted string closes on its line; every top-level block header has the
// shape `resource "type" "name" {` (or variable/output/provider/terraform/locals).
inline std::string hcl_problems(const std::string& hcl) {
  int depth = 0;
  int brackets = 0;
  std::string heredoc_end;
  const std::regex header(
      R"(^(resource "[a-z0-9_]+" "[a-z0-9_]+"|variable "[a-z0-9_]+"|output "[a-z0-9_]+"|provider "[a-z0-9_]+"|terraform|locals) \{$)");
  int line_no = 0;
  for (std::string_view lv : split_lines(hcl)) {
    ++line_no;
    std::string line(lv);
    const std::string where = "line " + std::to_string(line_no) + ": ";
    if (!heredoc_end.empty()) {
      if (line == heredoc_end) heredoc_end.clear();
      continue;
    }
    std::string t(trim(line));
    if (t.empty() || t[0] == '#') continue;
    if (depth == 0 && !std::regex_match(line, header) && t != "}")
      return where + "top-level line is not a block header: " + line;
    bool in_string = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (--depth < 0) return where + "unbalanced '}'";
      } else if (c == '[') {
        ++brackets;
      } else if (c == ']') {
        if (--brackets < 0) return where + "unbalanced ']'";
      } else if (c == '<' && line.compare(i, 2, "<<") == 0) {
        std::string tag = line.substr(i + 2);
        if (!tag.empty() && tag[0] == '-') tag.erase(0, 1);
        heredoc_end = tag;
        break;
      } else if (c == '#') {
        break;
      }
    }
    if (in_string) return where + "a quoted string does not close: " + line;
  }
  if (!heredoc_end.empty()) return "heredoc " + heredoc_end + " does not end";
  if (depth != 0) return "unbalanced braces at the end (" + std::to_string(depth) + ")";
  if (brackets != 0) return "unbalanced brackets at the end";
  return "";
}

// Brace depth of a Bicep file outside its cloud-init multi-line string (0 when balanced; its
// other strings here never hold braces unescaped).
inline int bicep_brace_depth(const std::string& bicep) {
  std::string code =
      bicep.substr(0, bicep.find("var cloudInit")) + bicep.substr(bicep.find("'''\n\n") + 5);
  int depth = 0;
  for (char c : code) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  return depth;
}

}  // namespace trainready::test
