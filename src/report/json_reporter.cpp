#include "report/json_reporter.h"

#include "facts/facts_json.h"
#include "facts/nccl_facts_json.h"
#include "rules/registry.h"

namespace trainready {

nlohmann::json finding_json(const Finding& f) {
  using nlohmann::json;
  json ev = json::array();
  for (const auto& e : f.evidence) {
    json x{{"text", e.text}, {"source", e.where.source}};
    x["line"] = e.where.line > 0 ? json(e.where.line) : json(nullptr);
    ev.push_back(std::move(x));
  }
  const Rule* rule = find_rule(f.rule_id);
  json j{{"rule", f.rule_id},
         {"severity", std::string(to_string(f.severity))},
         {"title", rule ? std::string(rule->title()) : std::string()},
         {"node", f.node},
         {"message", f.message},
         {"evidence", ev},
         {"cause", f.cause},
         {"fix", f.fix},
         {"doc", "docs/rules/" + f.rule_id + ".md"}};
  if (!f.resource.empty() || !f.location.source.empty()) {
    j["resource"] = f.resource;
    j["location"] = {{"source", f.location.source},
                     {"line", f.location.line > 0 ? json(f.location.line) : json(nullptr)}};
  }
  return j;
}

nlohmann::json findings_json(const std::vector<Finding>& findings) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : findings) a.push_back(finding_json(f));
  return a;
}

nlohmann::json counts_json(const Evaluation& ev) {
  std::size_t counts[3] = {0, 0, 0};
  for (const auto& f : ev.findings) ++counts[static_cast<int>(f.severity)];
  return {{"error", counts[2]},
          {"warning", counts[1]},
          {"info", counts[0]},
          {"rule_evaluations", ev.evaluations}};
}

nlohmann::json doctor_report_json(const DoctorReport& r) {
  using nlohmann::json;
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "trainready"}, {"version", r.tool_version}};
  j["command"] = r.command;
  j["catalog"] = r.catalog_origin;
  j["verdict"] = {{"status", verdict_status_name(r.verdict.status, r.command)},
                  {"summary", r.verdict.line}};
  j["counts"] = counts_json(r.evaluation);
  j["counts"]["skipped"] = r.evaluation.skipped.size();
  j["fail_on"] = std::string(to_string(r.fail_on));
  j["exit_code"] = r.exit_code;
  j["findings"] = findings_json(r.evaluation.findings);
  json skipped = json::array();
  for (const auto& s : r.evaluation.skipped)
    skipped.push_back({{"rule", s.rule_id}, {"node", s.node}, {"reason", s.reason}});
  j["skipped"] = skipped;
  json notes = json::array();
  for (const auto& s : r.evaluation.notes)
    notes.push_back({{"rule", s.rule_id}, {"node", s.node}, {"note", s.reason}});
  j["notes"] = notes;
  json nodes = json::array();
  for (const auto& n : r.nodes) nodes.push_back(to_json(n));
  j["nodes"] = nodes;
  if (r.nccl_log) j["nccl_log"] = to_json(*r.nccl_log);
  if (r.nccl_tests) {
    json t = to_json(*r.nccl_tests);
    if (r.busbw_expected) {
      const BusbwExpectation& e = *r.busbw_expected;
      json x{{"known", e.known}};
      if (e.known) {
        const NcclTestsRow* big = r.nccl_tests->largest();
        x["sku"] = e.sku->name;
        x["sku_origin"] = e.sku_origin;
        x["nodes"] = e.nodes;
        x["nodes_origin"] = e.nodes_origin;
        x["intra_vm_gbytes_per_s"] = e.intra_gbytes;
        x["inter_vm_gbytes_per_s"] = e.inter_gbytes ? json(*e.inter_gbytes) : json(nullptr);
        x["efficiency"] = e.efficiency;
        x["expected_gbytes_per_s"] = e.expected_gbytes;
        x["formula"] = e.formula;
        x["ratio"] = big && big->busbw() ? json(*big->busbw() / e.expected_gbytes) : json(nullptr);
      } else {
        x["why_unknown"] = e.why_unknown;
      }
      t["expected_busbw"] = x;
    }
    j["nccl_tests"] = t;
  }
  return j;
}

std::string render_json(const DoctorReport& r) { return doctor_report_json(r).dump(2) + "\n"; }

}  // namespace trainready
