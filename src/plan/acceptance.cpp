// Acceptance against the plan: the plan's recommended candidate recomputed with measured values
// in place of its assumptions, through the planner's own models.
#include "plan/acceptance.h"

#include <algorithm>
#include <cmath>

#include "core/input_error.h"
#include "core/units.h"

namespace trainready {
namespace {

// Measured values that replace assumptions; unset ones keep the plan's.
struct Overrides {
  std::optional<double> dp_busbw;  // B/s, one data-parallel group's all-reduce
  std::optional<double> tp_busbw;  // B/s, tensor-parallel all-reduce inside a VM
  std::optional<double> pp_bytes;  // B/s per GPU across VMs
  std::optional<double> feed;      // B/s per VM from storage
};

struct Recomputed {
  CommEstimate comm;
  ModelParallelEstimate model_parallel;
  DataEstimate data;
  StepEstimate step;
  std::optional<CostEstimate> cost;
};

Recomputed recompute(const PlannedRun& p, const Overrides& o, const SkuEntry& sku,
                     const StorageCatalog& storage) {
  Recomputed r;
  CommInputs co = p.comm;
  if (o.dp_busbw) co.busbw = *o.dp_busbw;
  r.comm = estimate_comm(co);
  ModelParallelInputs mp = p.model_parallel;
  if (o.tp_busbw) mp.tp_busbw = *o.tp_busbw;
  if (o.pp_bytes) mp.pp_bytes_per_s = *o.pp_bytes;
  r.model_parallel = estimate_model_parallel(mp);
  DataInputs di = p.data;
  di.sku = &sku;
  di.storage = &storage;
  di.step_seconds =
      co.compute_seconds + r.model_parallel.seconds.value + r.comm.exposed_seconds.value;
  di.delivered_per_vm = o.feed.value_or(p.delivered_per_vm);
  r.data = estimate_data(di);
  // The plan's chosen option at its planned rate, or what bench storage measured: the option
  // the data model would choose again at a different step time is not what the cluster has.
  r.data.read_seconds.source = o.feed ? "delivered per VM: measured by bench storage"
                                      : "delivered per VM: the plan's " + p.storage_name;
  StepInputs si;
  si.compute_seconds = co.compute_seconds;
  si.comm_exposed_seconds = r.comm.exposed_seconds.value;
  si.model_parallel_seconds = r.model_parallel.seconds.value;
  si.data_exposed_seconds = r.data.exposed_seconds.value;
  si.total_tokens = p.total_tokens;
  si.tokens_per_step = p.tokens_per_step;
  r.step = estimate_step(si);
  if (p.price) {
    CostInputs ci;
    ci.price = *p.price;
    ci.vms = p.vms;
    ci.gpus_per_vm = p.gpus_per_vm;
    ci.run_seconds = r.step.run_seconds.value;
    ci.utilization = r.step.utilization.value;
    r.cost = estimate_cost(ci);
  }
  return r;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(b), 1e-9); }

Quantity rate(double value, std::string formula, std::string source) {
  return quantity(value, "B/s", std::move(formula), std::move(source));
}

// The sweep with the most ranks: the closest to the job's own all-reduce.
const BusbwSweep* widest(const std::vector<BusbwSweep>& sweeps, std::vector<std::string>& notes) {
  const BusbwSweep* best = nullptr;
  for (const BusbwSweep& s : sweeps) {
    if (best == nullptr || s.ranks > best->ranks) best = &s;
  }
  for (const BusbwSweep& s : sweeps) {
    if (&s != best)
      notes.push_back(s.file + ": " + s.origin + " not used: " + best->file +
                      " spans more ranks (" + std::to_string(best->ranks) + ")");
  }
  return best;
}

Quantity measured_busbw(const BusbwSweep& s, double size, std::vector<std::string>& notes) {
  bool clamped = false;
  const double v = busbw_at(s, size, &clamped);
  Quantity q = rate(v, "busbw interpolated log-linearly in message size between measured sizes",
                    s.file + ": " + s.origin);
  q.in("message", size, "B");
  if (clamped) {
    const double edge = size < s.points.front().size_bytes ? s.points.front().size_bytes
                                                           : s.points.back().size_bytes;
    notes.push_back("the sweep does not reach " + format_bytes_si(size) + ": its busbw at " +
                    format_bytes_si(edge) + " is taken (sweep to " + format_bytes_si(size) +
                    " with -e for the figure itself)");
  }
  return q;
}

}  // namespace

double busbw_at(const BusbwSweep& sweep, double size, bool* clamped) {
  if (clamped) *clamped = false;
  const std::vector<BusbwPoint>& p = sweep.points;
  if (p.empty()) return 0;
  if (size <= p.front().size_bytes || size >= p.back().size_bytes) {
    const bool below = size <= p.front().size_bytes;
    const BusbwPoint& edge = below ? p.front() : p.back();
    if (clamped) *clamped = !close(size, edge.size_bytes);
    return edge.busbw;
  }
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (size > p[i].size_bytes) continue;
    const double x0 = std::log2(p[i - 1].size_bytes);
    const double x1 = std::log2(p[i].size_bytes);
    const double t = x1 > x0 ? (std::log2(size) - x0) / (x1 - x0) : 0;
    return p[i - 1].busbw + t * (p[i].busbw - p[i - 1].busbw);
  }
  return p.back().busbw;
}

PlanAcceptance check_plan(const PlannedRun& planned, const Measurements& measured,
                          const SkuEntry& sku, const StorageCatalog& storage, double margin) {
  PlanAcceptance a;
  a.planned = planned;
  a.measured_files = measured.files;
  a.notes = measured.notes;
  a.margin = margin;

  // The plan's own inputs must give back its own predictions: otherwise it was edited by hand
  // or written by models that are not these, and no comparison with them means anything.
  const Recomputed base = recompute(planned, {}, sku, storage);
  auto mismatch = [&](const std::string& what, double stated, double derived, const char* unit) {
    throw InputError(planned.file, 0,
                     "the recommended candidate's " + what + " (" + format_number(stated, 6) + " " +
                         unit + ") does not follow from its own inputs (" +
                         format_number(derived, 6) + " " + unit +
                         "): the plan was edited by hand or written by another trainready "
                         "version; write it again with `trainready plan ... --format json -o "
                         "FILE`");
  };
  if (!close(base.step.step_seconds.value, planned.step_seconds))
    mismatch("step_seconds", planned.step_seconds, base.step.step_seconds.value, "s");
  if (!close(base.step.run_seconds.value, planned.run_seconds))
    mismatch("run_seconds", planned.run_seconds, base.step.run_seconds.value, "s");
  if (planned.cost_per_run && base.cost && !close(base.cost->per_run.value, *planned.cost_per_run))
    mismatch("cost.per_run", *planned.cost_per_run, base.cost->per_run.value, "USD");

  Overrides all;
  auto add = [&](AssumptionCheck c, const Overrides& alone) {
    c.ratio = c.assumed.value > 0 ? c.measured.value / c.assumed.value : 0;
    const Recomputed r = recompute(planned, alone, sku, storage);
    c.step_seconds = r.step.step_seconds.value;
    c.run_seconds = r.step.run_seconds.value;
    if (r.cost) c.cost_per_run = r.cost->per_run.value;
    a.checks.push_back(std::move(c));
  };
  const std::string plan_at = planned.file + ": candidates[0].";
  const std::string gpus = std::to_string(planned.gpus) + " GPUs";

  // Data-parallel all-reduce across VMs (or inside the one VM of a one-VM plan).
  std::vector<std::string> unused;
  const BusbwSweep* dp_sweep = widest(measured.inter_vm, unused);
  const BusbwSweep* tp_sweep = widest(measured.intra_vm, unused);
  a.notes.insert(a.notes.end(), unused.begin(), unused.end());
  const BusbwSweep* dp_source = dp_sweep ? dp_sweep : (planned.vms == 1 ? tp_sweep : nullptr);
  if (dp_source != nullptr && planned.allreduce_busbw > 0) {
    AssumptionCheck c;
    c.id = dp_source == dp_sweep ? "inter-vm-busbw" : "intra-vm-busbw-dp";
    c.what = "all-reduce bus bandwidth over all " + gpus + " at " +
             format_bytes_si(planned.gradient_message) + " (one all-reduce of a GPU's gradients)";
    c.assumed = rate(planned.allreduce_busbw, "the plan's all-reduce busbw over every GPU",
                     plan_at + "communication.allreduce_all_gpus_busbw_bytes_per_s");
    c.measured = measured_busbw(*dp_source, planned.gradient_message, c.notes);
    if (dp_source->ranks != planned.gpus)
      c.notes.push_back("measured over " + std::to_string(dp_source->ranks) +
                        " ranks; the plan's all-reduce spans " + gpus +
                        ": run the sweep over the job's own GPUs for the figure that applies");
    const double dp_busbw = planned.comm.busbw * c.measured.value / planned.allreduce_busbw;
    c.notes.push_back("one data-parallel group's all-reduce planned at " +
                      format_rate_si(planned.comm.busbw) +
                      " is taken at the same share: " + format_rate_si(dp_busbw));
    if (planned.dp <= 1) c.notes.push_back("no data parallelism: this bandwidth costs no time");
    all.dp_busbw = dp_busbw;
    Overrides alone;
    alone.dp_busbw = dp_busbw;
    add(std::move(c), alone);
  }
  // Tensor-parallel all-reduce inside a VM.
  if (tp_sweep != nullptr) {
    AssumptionCheck c;
    c.id = "intra-vm-busbw";
    c.what = "all-reduce bus bandwidth inside one VM at " + format_bytes_si(planned.tp_message) +
             " (one tensor-parallel all-reduce)";
    c.assumed = rate(planned.model_parallel.tp_busbw, "the catalog's single-VM all-reduce busbw",
                     plan_at + "communication.tensor_parallel_seconds.inputs.busbw");
    c.measured = measured_busbw(*tp_sweep, planned.tp_message, c.notes);
    if (planned.tp <= 1)
      c.notes.push_back("no tensor parallelism (tp 1): this bandwidth costs no time");
    all.tp_busbw = c.measured.value;
    Overrides alone;
    alone.tp_busbw = c.measured.value;
    add(std::move(c), alone);
  }
  // The slowest link between two VMs, for pipeline parallelism's point-to-point.
  if (measured.slowest_link) {
    const SlowestLink& l = *measured.slowest_link;
    AssumptionCheck c;
    c.id = "slowest-link";
    const double share = static_cast<double>(std::max(1, l.rails)) / planned.gpus_per_vm;
    c.what = "bandwidth of the slowest link between two VMs (" + l.pair + ", per direction, " +
             std::to_string(l.rails) + " pair(s) per node pair at once)";
    c.assumed = rate(planned.model_parallel.pp_bytes_per_s / share,
                     "network per GPU × GPUs per VM / rails measured at once",
                     plan_at + "communication.pipeline_parallel_seconds.inputs.network_per_gpu");
    c.assumed.in("network_per_gpu", planned.model_parallel.pp_bytes_per_s, "B/s");
    c.assumed.in("gpus_per_vm", planned.gpus_per_vm).in("rails", l.rails);
    c.measured = rate(l.bytes_per_s, "the lowest pair of the matrix", l.file + ": " + l.pair);
    c.measured.in("size", l.size_bytes, "B").in("median_pair", l.median_bytes_per_s, "B/s");
    if (planned.pp <= 1)
      c.notes.push_back(
          "no pipeline parallelism (pp 1): the slowest link costs no time here; "
          "the all-reduce sweep carries its effect on data parallelism");
    all.pp_bytes = l.bytes_per_s * share;
    Overrides alone;
    alone.pp_bytes = *all.pp_bytes;
    add(std::move(c), alone);
  }
  // The storage feed per VM.
  if (!measured.storage.empty()) {
    const StorageFeed* slowest = &measured.storage.front();
    for (const StorageFeed& f : measured.storage) {
      if (f.bytes_per_s < slowest->bytes_per_s) slowest = &f;
    }
    AssumptionCheck c;
    c.id = "storage-feed";
    c.what = "data read per VM from storage (the plan reads from " + planned.storage_name + ")";
    c.assumed = rate(planned.delivered_per_vm, "the chosen storage option's rate per VM",
                     plan_at + "data.read_seconds.inputs.delivered_per_vm");
    c.measured =
        rate(slowest->bytes_per_s, "bytes read / seconds", slowest->file + ": " + slowest->origin);
    if (slowest->lower_bound)
      c.notes.push_back("every feed trial met its demand: the path delivers at least this much");
    for (const StorageFeed& f : measured.storage) {
      if (&f != slowest)
        c.notes.push_back(f.file + " (" + format_rate_si(f.bytes_per_s) +
                          ") not used: the slowest node feeds the job");
    }
    all.feed = c.measured.value;
    Overrides alone;
    alone.feed = c.measured.value;
    add(std::move(c), alone);
  }

  Recomputed r = recompute(planned, all, sku, storage);
  a.comm = std::move(r.comm);
  a.model_parallel = std::move(r.model_parallel);
  a.data = std::move(r.data);
  a.step = std::move(r.step);
  a.cost = std::move(r.cost);
  a.step_ratio =
      quantity(planned.step_seconds > 0 ? a.step.step_seconds.value / planned.step_seconds : 0, "",
               "measured step / planned step");
  a.step_ratio.in("measured", a.step.step_seconds.value, "s")
      .in("planned", planned.step_seconds, "s");
  return a;
}

}  // namespace trainready
