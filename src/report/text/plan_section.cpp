#include "report/text/plan_section.h"

#include <cmath>
#include <cstdio>

#include "core/units.h"

namespace trainready {
namespace {

std::string pct(double v) { return format_number(v * 100, 3) + "%"; }

std::string value_text(const Quantity& q) {
  if (q.unit == "B") return format_gb(q.value, 2);
  if (q.unit == "B/s") return format_rate_si(q.value);
  if (q.unit == "s") return format_duration(q.value);
  if (q.unit == "USD" || q.unit == "USD/h")
    return format_usd(q.value) + (q.unit == "USD/h" ? "/h" : "");
  if (q.unit == "FLOP")
    return q.value >= 1e15 ? format_number(q.value / 1e15, 4) + " PFLOP"
                           : format_number(q.value / 1e9, 4) + " GFLOP";
  if (q.unit == "FLOP/s") return format_number(q.value / 1e12, 4) + " TFLOP/s";
  if (q.unit.empty() && q.value > 0 && q.value <= 1.0 &&
      q.formula.find("share") != std::string::npos)
    return pct(q.value);
  return format_number(q.value, 4) + (q.unit.empty() ? "" : " " + q.unit);
}

std::string input_text(const QuantityInput& i) {
  Quantity q;
  q.value = i.value;
  q.unit = i.unit;
  if (i.unit == "bit/s") return i.name + " = " + format_number(i.value / 1e9, 4) + " Gb/s";
  if (i.unit == "B" && i.value < 100) return i.name + " = " + format_number(i.value, 3) + " B";
  if (!i.unit.empty()) return i.name + " = " + value_text(q);
  if (i.value == std::floor(i.value) && std::fabs(i.value) < 1e6)
    return i.name + " = " + format_number(i.value, 0);  // whole, below a million: "%.0f"
  if (std::fabs(i.value) >= 1e6) return i.name + " = " + format_number(i.value / 1e9, 4) + "e9";
  return i.name + " = " + format_number(i.value, 4);
}

void line(std::string& out, const std::string& label, const Quantity& q, bool explain) {
  char b[64];
  std::snprintf(b, sizeof b, "  %-24s ", label.c_str());
  out += b + value_text(q) + "\n";
  if (!explain) return;
  out += "      = " + q.formula + "\n";
  std::string ins;
  for (const QuantityInput& i : q.inputs) ins += (ins.empty() ? "" : ", ") + input_text(i);
  if (!ins.empty()) out += "      " + wrap_text(ins, 6, 6) + "\n";
  if (!q.source.empty()) out += "      source: " + wrap_text(q.source, 14, 14) + "\n";
}

std::string stage(int zero) { return zero == 0 ? "DDP" : "ZeRO-" + std::to_string(zero); }

// ", vp 5" and ", ep 8" where the layout interleaves or shards experts; nothing otherwise.
std::string vp_ep(const Layout& l) {
  return (l.vp > 1 ? ", vp " + std::to_string(l.vp) : std::string()) +
         (l.ep > 1 ? ", ep " + std::to_string(l.ep) : std::string());
}

std::string heading(const Candidate& c) {
  return std::to_string(c.vms) + " × " + c.sku->name + " (" + std::to_string(c.gpus) + " GPUs, " +
         stage(c.zero) + ", tp " + std::to_string(c.layout.tp) + ", pp " +
         std::to_string(c.layout.pp) + vp_ep(c.layout) + ", dp " + std::to_string(c.dp) + ")";
}

std::string model_line(const Plan& p) {
  const JobSpec& j = p.job;
  std::string m = j.model.empty() ? "custom model" : j.model;
  m += " (" + format_number(j.params.value_or(0) / 1e9, 4) + "B parameters";
  if (j.layers && j.hidden)
    m += ", " + std::to_string(*j.layers) + " layers, hidden " + std::to_string(*j.hidden);
  if (j.seq) m += ", seq " + std::to_string(*j.seq);
  m += ")";
  std::string layout = p.job.origin.count("zero") ? stage(j.zero) : "least ZeRO sharding that fits";
  if (j.offload != Offload::kNone) layout += " + offload " + std::string(to_string(j.offload));
  m += ", " + std::string(to_string(j.precision)) + ", " + to_string(j.optimizer) + ", " + layout;
  if (!p.layout_search.empty()) return m + ", layout searched (see Layouts)";
  m += ", tp " + std::to_string(j.tp) + ", pp " + std::to_string(j.pp) + ", recompute " +
       to_string(j.recompute) + ", micro-batch " + std::to_string(j.micro_batch);
  return m;
}

void table(std::string& out, const Plan& p) {
  out += wrap_text("Candidates, ranked " + p.ranking, 0, 2) + "\n";
  char b[256];
  std::snprintf(b, sizeof b, "  %-2s %-31s %4s %5s %-6s %9s %4s %9s %5s %-13s %10s %12s\n", "#",
                "size", "VMs", "GPUs", "layout", "mem/GPU", "fits", "step", "util", "waits on",
                "run", "cost/run");
  out += b;
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    const Candidate& c = p.candidates[i];
    const bool shown = c.runnable;
    std::snprintf(b, sizeof b, "  %-2zu %-31s %4d %5d %-6s %9s %4s %9s %5s %-13s %10s %12s\n",
                  i + 1, c.sku->name.c_str(), c.vms, c.gpus, stage(c.zero).c_str(),
                  shown ? format_gb(c.memory.total.value).c_str() : "-", c.fits() ? "yes" : "no",
                  shown ? format_duration(c.step_seconds.value).c_str() : "-",
                  shown ? pct(c.utilization.value).c_str() : "-",
                  shown ? c.dominant_wait.c_str() : "-",
                  shown ? format_duration(c.run_seconds.value).c_str() : "-",
                  c.cost && shown ? format_usd(c.cost->per_run.value).c_str() : "no price");
    out += b;
    if (!c.why_not.empty())
      out += "     " +
             wrap_text("why not" +
                           (p.layout_search.empty()
                                ? std::string()
                                : " (tp " + std::to_string(c.layout.tp) + ", pp " +
                                      std::to_string(c.layout.pp) + vp_ep(c.layout) + ", dp " +
                                      std::to_string(c.dp) + ", recompute " +
                                      to_string(c.layout.recompute) + ", micro-batch " +
                                      std::to_string(c.layout.micro_batch) + ")") +
                           ": " + c.why_not,
                       5, 5) +
             "\n";
    else if (!p.recommended && !c.problems.empty())
      out += "     " + wrap_text(c.problems.front(), 5, 5) + "\n";
  }
}

// The layout search: the winner (or the nearest miss) and the runners-up with why each lost.
void layouts(std::string& out, const Plan& p, bool explain) {
  if (p.layout_search.empty() || p.layouts.empty()) return;
  out += "\n" + wrap_text("Layouts (" + p.layout_search + ")", 0, 2) + "\n";
  for (std::size_t i = 0; i < p.layouts.size(); ++i) {
    const Candidate& c = p.layouts[i];
    const Layout& l = c.layout;
    std::string row =
        std::to_string(c.vms) + " × " + c.sku->name + ": tp " + std::to_string(l.tp) + ", pp " +
        std::to_string(l.pp) + vp_ep(l) + ", dp " + std::to_string(c.dp) + ", " + stage(c.zero) +
        ", recompute " + to_string(l.recompute) + ", micro-batch " + std::to_string(l.micro_batch) +
        (l.sequence_parallel ? ", sequence parallel" : "") + "; " +
        format_gb(c.memory.total.value) + " per GPU, step " +
        format_duration(c.step_seconds.value) + ", run " + format_duration(c.run_seconds.value);
    if (i == 0 && p.recommended) row += " (chosen)";
    out += "  " + std::to_string(i + 1) + ". " + wrap_text(row, 5, 5) + "\n";
    if (!c.why_not.empty())
      out += "     " + wrap_text((p.recommended ? "lost: " : "nearest miss: ") + c.why_not, 5, 7) +
             "\n";
    if (!explain || !c.runnable) continue;
    // Each layout's memory and step terms with their formulas and sources.
    const MemoryEstimate& m = c.memory;
    line(out, "model states (" + m.convention_used + ")", m.states, true);
    if (m.activations) line(out, "activations", *m.activations, true);
    if (m.megatron && m.convention_used != "megatron")
      line(out, "(Megatron-LM total)", m.megatron->total, true);
    line(out, "memory total", m.total, true);
    line(out, "compute", c.compute.seconds, true);
    if (c.model_parallel.tp_seconds.value > 0)
      line(out, "tensor-parallel", c.model_parallel.tp_seconds, true);
    if (c.model_parallel.pp_seconds.value > 0)
      line(out, "pipeline p2p", c.model_parallel.pp_seconds, true);
    line(out, "gradient sync exposed", c.comm.exposed_seconds, true);
    line(out, "step", c.step_seconds, true);
  }
}

void breakdown(std::string& out, const Plan& p, const Candidate& c, bool explain) {
  const MemoryEstimate& m = c.memory;
  out += "\nMemory per GPU (" + m.convention_used + " convention; GB = 1e9 bytes)\n";
  line(out, "model states", m.states, explain);
  if (m.states_other)
    line(out, std::string(m.convention_used == "paper" ? "(DeepSpeed estimator)" : "(ZeRO paper)"),
         *m.states_other, explain);
  if (m.states_deepspeed_before_0_14_3)
    line(out, "(DeepSpeed < 0.14.3)", *m.states_deepspeed_before_0_14_3, explain);
  if (m.activations)
    line(out, "activations", *m.activations, explain);
  else
    out += "  activations              not estimated: give layers, hidden and heads\n";
  if (m.megatron && m.convention_used != "megatron") {
    // Megatron-LM's own count of the same layout (theoretical_memory_usage.py), for comparison.
    line(out, "(Megatron-LM states)", m.megatron->weight_and_optimizer, explain);
    line(out, "(Megatron activations)", m.megatron->activations, explain);
  }
  if (m.buffers.value > 0) line(out, "ZeRO-3 gather buffer", m.buffers, explain);
  line(out, "context and workspaces", m.context, explain);
  line(out, "total", m.total, explain);
  line(out, "usable", m.usable, explain);
  out += "  " + std::string(m.fits ? "fits" : "DOES NOT FIT") + "; " +
         (m.largest_params.value > 0
              ? "the largest model whose states fit beside these activations: " +
                    format_number(m.largest_params.value / 1e9, 4) + "B parameters"
              : std::string("activations, buffers and context alone exceed the usable memory")) +
         "\n";
  if (explain) line(out, "largest model", m.largest_params, explain);

  out += "\nCompute per step (" + std::to_string(c.global_batch) + " sequences, " +
         format_number(c.tokens_per_step, 6) + " tokens, " + std::to_string(c.accumulation) +
         " micro-batch" + (c.accumulation > 1 ? "es" : "") + " per GPU, peak " +
         format_number(c.peak_tflops, 5) + " TFLOPS " + c.peak_precision + ")\n";
  line(out, "FLOPs per token", c.compute.flops_per_token, explain);
  line(out, "compute time", c.compute.seconds, explain);

  out += "\nCommunication per step: " + c.comm_path + "\n";
  line(out, "bus bandwidth", c.busbw, explain);
  line(out, "volume per GPU", c.comm.volume, explain);
  line(out, "time", c.comm.seconds, explain);
  if (c.comm.cross_domain_seconds.value > 0)
    line(out, "between domains", c.comm.cross_domain_seconds, explain);
  line(out, "not hidden by compute", c.comm.exposed_seconds, explain);
  if (c.model_parallel.tp_seconds.value > 0)
    line(out, "tensor-parallel (NVLink)", c.model_parallel.tp_seconds, explain);
  if (c.model_parallel.pp_seconds.value > 0)
    line(out, "pipeline point-to-point", c.model_parallel.pp_seconds, explain);
  if (c.step_seconds.value > 0)
    out += "  share of the step         " +
           pct((c.comm.exposed_seconds.value + c.model_parallel.seconds.value) /
               c.step_seconds.value) +
           "\n";

  out += "\nData\n";
  line(out, "demand, whole job", c.data.demand_total, explain);
  line(out, "demand per VM", c.data.demand_per_vm, explain);
  line(out, "demand per GPU", c.data.demand_per_gpu, explain);
  for (const StorageOption& o : c.data.options) {
    std::string tail = !o.feasible      ? "  (" + o.why_not + ")"
                       : o.meets_demand ? "  keeps up"
                                        : "  too slow";
    if (o.staging_seconds && o.feasible)
      tail += "; staging " + format_duration(o.staging_seconds->value);
    out += "  " + std::string(&o == &c.data.options[c.data.chosen] ? "* " : "  ") +
           wrap_text(o.name + ": " + format_rate_si(o.per_vm.value) + " per VM" + tail, 4, 6) +
           "\n";
    if (explain) {
      out += "      = " + o.per_vm.formula + "\n";
      if (!o.per_vm.source.empty())
        out += "      source: " + wrap_text(o.per_vm.source, 14, 14) + "\n";
    }
  }
  out += "  " + wrap_text("chosen: " + c.data.reason, 2, 4) + "\n";
  line(out, "read per step", c.data.read_seconds, explain);
  line(out, "not hidden by compute", c.data.exposed_seconds, explain);

  out += "\nStep and utilization\n";
  line(out, "step", c.step_seconds, explain);
  line(out, "GPU utilization", c.utilization, explain);
  line(out, "steps", c.steps, explain);
  line(out, "run", c.run_seconds, explain);

  out += "\nPlacement\n  " + wrap_text(c.placement.advice, 2, 2) + "\n";
  if (explain) out += "      source: " + wrap_text(c.placement.source, 14, 14) + "\n";

  out += "\nCost\n";
  if (c.cost) {
    line(out, "per hour", c.cost->per_hour, explain);
    line(out, "per run", c.cost->per_run, explain);
    line(out, "paid for waiting GPUs", c.cost->idle, explain);
  } else {
    out += "  no price for " + c.sku->name + " in " + p.job.region +
           " in the catalog: pass --price " + c.sku->name + "=USD_PER_HOUR\n";
  }
}

}  // namespace

std::string render_plan_text(const Plan& p, bool explain, const Palette& pal) {
  std::string out = wrap_text("trainready plan: " + model_line(p), 0, 2) + "\n";
  out += "  " +
         wrap_text("scale: " + p.scale_origin + "; run: " + format_number(p.total_tokens / 1e9, 4) +
                       "B tokens (" + p.run_length_origin + ")",
                   2, 4) +
         "\n\n";
  if (p.recommended) {
    const Candidate& b = p.candidates.front();
    out += pal.wrap("RECOMMENDED: " + heading(b), "1;32") + "\n";
    for (const std::string& r : p.reasons) out += "  - " + wrap_text(r, 4, 4) + "\n";
  } else {
    // "Does not fit" only when memory is what stops it; a layout that cannot run says why.
    const bool layout = !p.candidates.empty() && !p.candidates.front().runnable &&
                        p.candidates.front().memory.fits && !p.candidates.front().problems.empty();
    out += pal.wrap(layout ? "CANNOT RUN AS ASKED: " + p.candidates.front().problems.front()
                           : "DOES NOT FIT: no candidate holds this job in GPU memory",
                    "1;31") +
           "\n";
    for (const std::string& h : p.hints) out += "  - " + wrap_text(h, 4, 4) + "\n";
  }
  out += "\n";
  table(out, p);
  layouts(out, p, explain);
  if (!p.candidates.empty()) {
    const Candidate& first = p.candidates.front();
    out += "\n" + std::string(p.recommended ? "The recommendation in detail: " : "The closest: ") +
           heading(first) + "\n";
    for (const std::string& n : first.notes) out += "  note: " + wrap_text(n, 8, 8) + "\n";
    breakdown(out, p, first, explain);
  }
  if (!p.checklist.empty()) {
    out += "\nAfter deploying, check\n";
    for (std::size_t i = 0; i < p.checklist.size(); ++i)
      out += "  " + std::to_string(i + 1) + ". " + wrap_text(p.checklist[i], 5, 5) + "\n";
  }
  const JobSpec& j = p.job;
  out += "\n" +
         wrap_text(
             "Assumptions (each can be set): MFU " +
                 (p.candidates.empty() || p.candidates.front().mfu_origin.rfind("implied", 0) != 0
                      ? format_number(j.mfu, 2) + " (--mfu)"
                      : format_number(p.candidates.front().mfu, 3) +
                            " from a published run (see the recommendation; --mfu sets it)") +
                 ", overlap " + format_number(j.overlap, 2) + " (--overlap), memory headroom " +
                 pct(j.headroom) + " (--headroom), InfiniBand efficiency " +
                 format_number(j.ib_efficiency, 2) + ", Ethernet efficiency " +
                 format_number(j.ethernet_efficiency, 2) + "; samples of " +
                 format_bytes_si(p.sample_bytes) + " (" + p.sample_bytes_origin + "); dataset " +
                 format_bytes_si(p.dataset_bytes) + " (" + p.dataset_origin + ")",
             0, 2) +
         "\n";
  if (!explain) out += "Every figure's formula, inputs and source: --explain (or --json).\n";
  return out;
}

}  // namespace trainready
