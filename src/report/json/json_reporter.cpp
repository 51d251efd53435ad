#include "report/json/json_reporter.h"
#include "engine/shared_findings.h"
#include "report/json/fleet_section.h"
#include "report/json/stage_section.h"
#include "report/json/watch_section.h"

#include "codec/collective_progress_json.h"
#include "codec/nccl_facts_json.h"
#include "codec/node_facts_json.h"
#include "codec/pretty_json_writer.h"
#include "engine/folded_runs.h"
#include "report/json/bench_section.h"
#include "report/json/pair_bandwidth_section.h"
#include "report/json/plan_check_section.h"
#include "report/json/plan_section.h"
#include "report/rule_doc.h"
#include "rules/registry.h"

namespace trainready {
namespace {

using nlohmann::json;

json line_or_null(int line) { return line > 0 ? json(line) : json(nullptr); }

json counts_json(const Report& r) {
  std::size_t counts[3] = {0, 0, 0};
  for_each_finding(r.evaluation, [&](const Finding& f) { ++counts[static_cast<int>(f.severity)]; });
  json c{{"error", counts[2]},
         {"warning", counts[1]},
         {"info", counts[0]},
         {"rule_evaluations", r.evaluation.evaluations},
         {"skipped", skip_count(r.evaluation)},
         {"skipped_in_part", partly_evaluated(r.evaluation)}};
  if (r.lint) c["suppressed"] = r.lint->suppressed.size();
  return c;
}

const char* outcome_name(RuleRun::Outcome o) {
  switch (o) {
    case RuleRun::Outcome::kFailed:
      return "failed";
    case RuleRun::Outcome::kSkipped:
      return "skipped";
    case RuleRun::Outcome::kNotApplicable:
      return "not_applicable";
    case RuleRun::Outcome::kPassed:
      break;
  }
  return "passed";
}

json lint_json(const LintInputs& l) {
  json suppressed = json::array();
  for (const auto& s : l.suppressed) {
    json x = finding_json(s.finding);
    x["suppression"] = {{"kind", s.kind},
                        {"justification", s.justification},
                        {"source", s.where.source},
                        {"line", line_or_null(s.where.line)}};
    suppressed.push_back(std::move(x));
  }
  json errors = json::array();
  for (const auto& e : l.input_errors)
    errors.push_back({{"file", e.file}, {"line", line_or_null(e.line)}, {"message", e.message}});
  return json{{"files", l.files},
              {"input_errors", errors},
              {"resources", l.resources},
              {"suppressed", suppressed},
              {"suppression_warnings", l.suppression_warnings},
              {"not_resolved", l.input_notes}};
}

json expected_busbw_json(const BusbwExpectation& e, const NcclTestsFacts& t) {
  json x{{"known", e.known}, {"collective", e.collective}};
  if (!e.known) {
    x["why_unknown"] = e.why_unknown;
    return x;
  }
  const NcclTestsRow* big = t.largest();
  x["sku"] = e.sku->name;
  x["sku_origin"] = e.sku_origin;
  x["nodes"] = e.nodes;
  x["nodes_origin"] = e.nodes_origin;
  x["intra_vm_gbytes_per_s"] = e.intra_gbytes;
  x["ring_vm_gbytes_per_s"] = e.ring_gbytes;
  x["inter_vm_gbytes_per_s"] = e.inter_gbytes ? json(*e.inter_gbytes) : json(nullptr);
  x["efficiency"] = e.efficiency;
  x["expected_gbytes_per_s"] = e.expected_gbytes;
  x["formula"] = e.formula;
  x["ratio"] = big && big->busbw() ? json(*big->busbw() / e.expected_gbytes) : json(nullptr);
  return x;
}

}  // namespace

json finding_json(const Finding& f) {
  json ev = json::array();
  for (const auto& e : f.evidence)
    ev.push_back(
        {{"text", e.text}, {"source", e.where.source}, {"line", line_or_null(e.where.line)}});
  const Rule* rule = find_rule(f.rule_id);
  json j{{"rule", f.rule_id},
         {"severity", std::string(to_string(f.severity))},
         {"title", rule ? std::string(rule->title()) : std::string()},
         {"node", f.node},
         {"message", f.message},
         {"evidence", ev},
         {"cause", f.cause},
         {"fix", f.fix},
         {"doc", rule_doc_path(f.rule_id)}};
  if (!f.nodes.empty()) j["nodes"] = f.nodes;  // cluster findings: the nodes that differ
  if (!f.resource.empty() || !f.location.source.empty()) {
    j["resource"] = f.resource;
    j["location"] = {{"source", f.location.source}, {"line", line_or_null(f.location.line)}};
  }
  return j;
}

namespace {

bool has_nodes_section(const Report& r) { return r.command == "doctor" || !r.nodes.empty(); }

// Everything but the nodes' facts; `findings`: with the findings (render_json writes them as it
// goes).
json report_head_json(const Report& r, bool findings_too = true) {
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "trainready"}, {"version", r.tool_version}};
  j["command"] = r.command;
  if (!r.catalog_origin.empty()) j["catalog"] = r.catalog_origin;
  j["verdict"] = {{"status", verdict_status_name(r.verdict.status, r.command)},
                  {"summary", r.verdict.line}};
  j["counts"] = counts_json(r);
  j["options"] = {{"sku", r.options.sku ? json(*r.options.sku) : json(nullptr)},
                  {"nodes", r.options.nodes ? json(*r.options.nodes) : json(nullptr)},
                  {"efficiency", r.options.efficiency}};
  j["fail_on"] = std::string(to_string(r.fail_on));
  j["exit_code"] = r.exit_code;
  json findings = json::array();
  if (findings_too)
    for_each_finding(r.evaluation, [&](const Finding& f) { findings.push_back(finding_json(f)); });
  j["findings"] = findings;
  json skipped = json::array();
  for_each_skip(r.evaluation, [&](const RuleSkip& s) {
    skipped.push_back({{"rule", s.rule_id}, {"node", s.node}, {"reason", s.reason}});
  });
  j["skipped"] = skipped;
  json notes = json::array();
  for_each_note(r.evaluation, [&](const RuleSkip& s) {
    notes.push_back({{"rule", s.rule_id}, {"node", s.node}, {"note", s.reason}});
  });
  j["notes"] = notes;
  if (r.nccl_log) j["nccl_log"] = to_json(*r.nccl_log);
  if (r.progress) j["nccl_telemetry"] = to_json(*r.progress);
  if (r.nccl_tests) {
    json t = to_json(*r.nccl_tests);
    if (r.busbw_expected)
      t["expected_busbw"] = expected_busbw_json(*r.busbw_expected, *r.nccl_tests);
    if (r.busbw_from_log) {
      t["explained_by_log"] = r.busbw_from_log->lines;
      t["nccl_model_busbw_gbytes_per_s"] =
          r.busbw_from_log->model_gbytes > 0 ? json(r.busbw_from_log->model_gbytes) : json(nullptr);
    }
    j["nccl_tests"] = t;
  }
  if (r.lint) j["lint"] = lint_json(*r.lint);
  if (r.plan) j["plan"] = plan_json(*r.plan);
  if (r.acceptance) j["plan_check"] = plan_check_json(*r.acceptance);
  if (r.collective) j["bench"] = collective_json(*r.collective);
  if (r.storage) j["storage"] = storage_json(*r.storage);
  if (r.pairs) j["pair_bandwidth"] = pair_bandwidth_json(*r.pairs);
  if (r.fleet) j["fleet"] = fleet_json(r);
  if (r.stage) j["stage"] = stage_json(*r.stage);
  if (r.watch) j["watch"] = watch_json(*r.watch);
  return j;
}

json runs_json(const Report& r) {
  json runs = json::array();
  for_each_run(r.evaluation, [&runs](const RuleRun& run) {
    json x{{"rule", run.rule_id}, {"node", run.node}, {"outcome", outcome_name(run.outcome)}};
    if (run.outcome == RuleRun::Outcome::kNotApplicable) x["reason"] = run.detail;
    runs.push_back(std::move(x));
  });
  return runs;
}

void write_runs(PrettyWriter& w, const Report& r) {  // runs_json, written as it goes
  w.open('[');
  for_each_run(r.evaluation, [&w](const RuleRun& run) {
    w.element();
    w.open('{');
    w.key("node");
    w.str(run.node);
    w.key("outcome");
    w.str(outcome_name(run.outcome));
    if (run.outcome == RuleRun::Outcome::kNotApplicable) {
      w.key("reason");
      w.str(run.detail);
    }
    w.key("rule");
    w.str(run.rule_id);
    w.close('}');
  });
  w.close(']');
}

}  // namespace

json report_json(const Report& r) {
  json j = report_head_json(r);
  j["runs"] = runs_json(r);
  if (has_nodes_section(r)) {
    json nodes = json::array();
    for (const auto& n : r.nodes) nodes.push_back(to_json(n));
    j["nodes"] = nodes;
  }
  return j;
}

std::string render_json(const Report& r) {
  // Input text need not be UTF-8 (a log, a host name): replace what is not rather than throw.
  // The same text as report_json(r).dump(2), with the parts that grow with the fleet (every
  // node's facts, about 50 KiB of JSON per node, a run per rule and node, the findings, which a
  // fleet holds once per distinct finding) written as they go: one tree of them all cost most of
  // the time of writing a fleet's report (allocating, walking and freeing millions of map nodes
  // at once).
  json j = report_head_json(r, false);
  const bool nodes = has_nodes_section(r);
  j["runs"] = nullptr;  // their places among the sorted keys
  if (nodes) j["nodes"] = nullptr;
  std::string out;
  PrettyWriter w(out, 0);
  w.open('{');
  for (auto it = j.begin(); it != j.end(); ++it) {
    w.key(it.key());
    if (it.key() == "runs") {
      write_runs(w, r);
    } else if (it.key() == "findings") {  // one finding's tree at a time
      w.open('[');
      for_each_finding(r.evaluation, [&w](const Finding& f) {
        w.element();
        w.any(finding_json(f));
      });
      w.close(']');
    } else if (nodes && it.key() == "nodes") {
      w.open('[');
      for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        w.element();
        const std::size_t before = out.size();
        write_node_facts_json(out, r.nodes[i], 4);
        // Room for the others at the first one's size, so hundreds of MiB are not copied again
        // at every doubling.
        if (i == 0) out.reserve(out.size() + (out.size() - before + 64) * r.nodes.size());
      }
      w.close(']');
    } else {
      w.any(it.value());
    }
  }
  w.close('}');
  out += '\n';
  return out;
}

}  // namespace trainready
