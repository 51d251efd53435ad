#include "report/text/plan_check_section.h"

#include <cstdio>

#include "core/units.h"

namespace trainready {
namespace {

std::string percent(double fraction) { return format_number(fraction * 100, 3) + " %"; }

std::string money(const std::optional<double>& usd) {
  return usd ? format_usd(*usd) : std::string("no price");
}

void explain_line(std::string& out, const std::string& label, const Quantity& q) {
  out += "  " + label + " = " + q.formula + "\n";
  std::string ins;
  for (const QuantityInput& i : q.inputs)
    ins += (ins.empty() ? "" : ", ") + i.name + " = " + format_number(i.value, 6) +
           (i.unit.empty() ? "" : " " + i.unit);
  if (!ins.empty()) out += "      " + wrap_text(ins, 6, 6) + "\n";
  if (!q.source.empty()) out += "      source: " + wrap_text(q.source, 14, 14) + "\n";
}

}  // namespace

std::string render_plan_check_text(const PlanAcceptance& a, bool explain, const Palette& pal) {
  const PlannedRun& p = a.planned;
  std::string out = pal.wrap("Plan check", "1") + ": " + std::to_string(p.vms) + " × " + p.sku +
                    " (" + std::to_string(p.gpus) + " GPUs, tp " + std::to_string(p.tp) + ", pp " +
                    std::to_string(p.pp) + ", dp " + std::to_string(p.dp) + ") from " + p.file +
                    "\n";
  std::string files;
  for (const std::string& f : a.measured_files) files += (files.empty() ? "" : ", ") + f;
  out += "  measured: " + wrap_text(files, 12, 12) + "\n\n";
  char b[256];
  std::snprintf(b, sizeof b, "  %-18s %-11s %-11s %-10s %s\n", "assumption", "assumed", "measured",
                "of assumed", "step with it alone");
  out += b;
  for (const AssumptionCheck& c : a.checks) {
    std::snprintf(b, sizeof b, "  %-18s %-11s %-11s %-10s %s\n", c.id.c_str(),
                  format_rate_si(c.assumed.value).c_str(), format_rate_si(c.measured.value).c_str(),
                  percent(c.ratio).c_str(), format_duration(c.step_seconds).c_str());
    out += b;
    out += "    " + wrap_text(c.what, 4, 4) + "\n";
    out += "    assumed: " + wrap_text(c.assumed.source, 13, 6) + "\n";
    out += "    measured: " + wrap_text(c.measured.source, 14, 6) + "\n";
    for (const std::string& n : c.notes) out += "    note: " + wrap_text(n, 10, 10) + "\n";
  }
  if (a.checks.empty()) out += "  (no measured file held a value the plan assumed)\n";
  out += "\n";
  std::snprintf(b, sizeof b, "  %-10s %-12s %-14s %s\n", "", "step", "run", "cost per run");
  out += b;
  std::snprintf(b, sizeof b, "  %-10s %-12s %-14s %s\n", "planned",
                format_duration(p.step_seconds).c_str(), format_duration(p.run_seconds).c_str(),
                money(p.cost_per_run).c_str());
  out += b;
  std::optional<double> measured_cost;
  if (a.cost) measured_cost = a.cost->per_run.value;
  std::snprintf(b, sizeof b, "  %-10s %-12s %-14s %s\n", "measured",
                format_duration(a.step.step_seconds.value).c_str(),
                format_duration(a.step.run_seconds.value).c_str(), money(measured_cost).c_str());
  out += b;
  out += "  measured step / planned step: " + percent(a.step_ratio.value) + " (--margin " +
         percent(a.margin) + "); the GPUs wait mostly on " + a.step.dominant_wait + "\n";
  for (const std::string& n : a.notes) out += "  note: " + wrap_text(n, 8, 8) + "\n";
  if (explain) {
    out += "\n";
    explain_line(out, "step", a.step.step_seconds);
    explain_line(out, "data-parallel communication", a.comm.seconds);
    explain_line(out, "exposed communication", a.comm.exposed_seconds);
    explain_line(out, "tensor-parallel", a.model_parallel.tp_seconds);
    explain_line(out, "pipeline-parallel", a.model_parallel.pp_seconds);
    explain_line(out, "data read", a.data.read_seconds);
    explain_line(out, "exposed data", a.data.exposed_seconds);
    explain_line(out, "run", a.step.run_seconds);
    if (a.cost) explain_line(out, "cost", a.cost->per_run);
  } else {
    out += "Every recomputed figure's formula, inputs and source: --explain (or --json).\n";
  }
  return out;
}

}  // namespace trainready
