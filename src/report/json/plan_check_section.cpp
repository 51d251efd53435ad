#include "report/json/plan_check_section.h"

#include "report/json/plan_section.h"

namespace trainready {

nlohmann::json plan_check_json(const PlanAcceptance& a) {
  using nlohmann::json;
  const PlannedRun& p = a.planned;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json checks = json::array();
  for (const AssumptionCheck& c : a.checks) {
    checks.push_back({{"id", c.id},
                      {"what", c.what},
                      {"assumed_bytes_per_s", quantity_json(c.assumed)},
                      {"measured_bytes_per_s", quantity_json(c.measured)},
                      {"measured_over_assumed", c.ratio},
                      {"notes", c.notes},
                      {"alone",
                       {{"step_seconds", c.step_seconds},
                        {"run_seconds", c.run_seconds},
                        {"cost_per_run_usd", opt(c.cost_per_run)}}}});
  }
  std::optional<double> cost;
  if (a.cost) cost = a.cost->per_run.value;
  json measured{{"step_seconds", quantity_json(a.step.step_seconds)},
                {"utilization", quantity_json(a.step.utilization)},
                {"dominant_wait", a.step.dominant_wait},
                {"run_seconds", quantity_json(a.step.run_seconds)},
                {"communication_seconds", quantity_json(a.comm.seconds)},
                {"communication_exposed_seconds", quantity_json(a.comm.exposed_seconds)},
                {"tensor_parallel_seconds", quantity_json(a.model_parallel.tp_seconds)},
                {"pipeline_parallel_seconds", quantity_json(a.model_parallel.pp_seconds)},
                {"data_read_seconds", quantity_json(a.data.read_seconds)},
                {"data_exposed_seconds", quantity_json(a.data.exposed_seconds)},
                {"cost_per_run", a.cost ? quantity_json(a.cost->per_run) : json(nullptr)}};
  return json{{"plan_file", p.file},
              {"plan_catalog", p.catalog},
              {"measured_files", a.measured_files},
              {"sku", p.sku},
              {"vms", p.vms},
              {"gpus", p.gpus},
              {"layout", {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}}},
              {"margin", a.margin},
              {"checks", checks},
              {"planned",
               {{"step_seconds", p.step_seconds},
                {"run_seconds", p.run_seconds},
                {"cost_per_run_usd", opt(p.cost_per_run)},
                {"price_origin", p.price ? json(p.price->origin) : json(nullptr)}}},
              {"measured", measured},
              {"step_ratio", quantity_json(a.step_ratio)},
              {"notes", a.notes}};
}

}  // namespace trainready
