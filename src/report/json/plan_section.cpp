#include "report/json/plan_section.h"

#include <cmath>

#include "parsers/job_settings.h"

namespace trainready {
namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json optional_quantity(const std::optional<Quantity>& q) {
  return q ? quantity_json(*q) : json(nullptr);
}

json job_json(const Plan& plan) {
  const JobSpec& j = plan.job;
  auto opt = [](const auto& o) { return o ? json(*o) : json(nullptr); };
  json out{{"model", j.model.empty() ? json(nullptr) : json(j.model)},
           {"params", opt(j.params)},
           {"layers", opt(j.layers)},
           {"hidden", opt(j.hidden)},
           {"heads", opt(j.heads)},
           {"vocab", opt(j.vocab)},
           {"seq", opt(j.seq)},
           {"precision", to_string(j.precision)},
           {"optimizer", to_string(j.optimizer)},
           {"convention", to_string(j.convention)},
           {"zero", j.origin.count("zero") ? json(j.zero) : json(nullptr)},
           {"tp", j.tp},
           {"pp", j.pp},
           {"vp", j.vp},
           {"sequence_parallel", j.sequence_parallel.value_or(false)},
           {"recompute", to_string(j.recompute)},
           {"offload", to_string(j.offload)},
           {"micro_batch", j.micro_batch},
           {"global_batch", opt(j.global_batch)},
           {"gpus", opt(j.gpus)},
           {"vms", opt(j.vms)},
           {"budget_usd", opt(j.budget_usd)},
           {"skus", j.skus},
           {"dataset_bytes", opt(j.dataset_bytes)},
           {"sample_bytes", opt(j.sample_bytes)},
           {"tokens", opt(j.tokens)},
           {"epochs", opt(j.epochs)},
           {"region", j.region},
           {"spot", j.spot},
           {"prices_usd_per_vm_hour", j.prices}};
  json origin = json::object();
  for (const auto& [k, v] : j.origin) origin[k] = v;
  out["origin"] = origin;
  return out;
}

json option_json(const StorageOption& o) {
  return json{{"kind", o.kind},
              {"name", o.name},
              {"feasible", o.feasible},
              {"why_not", o.why_not.empty() ? json(nullptr) : json(o.why_not)},
              {"size_tib", o.size_tib ? json(*o.size_tib) : json(nullptr)},
              {"per_vm_bytes_per_s", quantity_json(o.per_vm)},
              {"staging_seconds", optional_quantity(o.staging_seconds)},
              {"meets_demand", o.meets_demand}};
}

json candidate_json(const Candidate& c, std::size_t rank) {
  const MemoryEstimate& m = c.memory;
  json options = json::array();
  for (const StorageOption& o : c.data.options) options.push_back(option_json(o));
  json cost = nullptr;
  if (c.cost) {
    cost = json{{"usd_per_vm_hour", c.price->usd_per_vm_hour},
                {"price_kind", c.price->kind},
                {"price_origin", c.price->origin},
                {"per_hour", quantity_json(c.cost->per_hour)},
                {"per_run", quantity_json(c.cost->per_run)},
                {"idle", quantity_json(c.cost->idle)}};
  }
  return json{
      {"rank", rank},
      {"sku", c.sku->name},
      {"vms", c.vms},
      {"gpus", c.gpus},
      {"zero", c.zero},
      {"layout",
       {{"tp", c.layout.tp},
        {"pp", c.layout.pp},
        {"vp", c.layout.vp},
        {"ep", c.layout.ep},
        {"dp", c.dp},
        {"recompute", to_string(c.layout.recompute)},
        {"micro_batch", c.layout.micro_batch},
        {"sequence_parallel", c.layout.sequence_parallel}}},
      {"data_parallel", c.dp},
      {"accumulation_steps", c.accumulation},
      {"global_batch", c.global_batch},
      {"tokens_per_step", c.tokens_per_step},
      {"runnable", c.runnable},
      {"fits", c.fits()},
      {"problems", c.problems},
      {"notes", c.notes},
      {"mfu", c.mfu},
      {"mfu_origin", c.mfu_origin},
      {"why_not", c.why_not.empty() ? json(nullptr) : json(c.why_not)},
      {"memory",
       {{"convention", m.convention_used},
        {"model_states_bytes", quantity_json(m.states)},
        {"model_states_other_convention_bytes", optional_quantity(m.states_other)},
        {"model_states_deepspeed_before_0_14_3_bytes",
         optional_quantity(m.states_deepspeed_before_0_14_3)},
        {"activations_bytes", optional_quantity(m.activations)},
        {"megatron",
         m.megatron
             ? json{{"params_total", quantity_json(m.megatron->params_total)},
                    {"params_on_shard", quantity_json(m.megatron->params_on_shard)},
                    {"weight_and_optimizer_bytes", quantity_json(m.megatron->weight_and_optimizer)},
                    {"activations_bytes", quantity_json(m.megatron->activations)},
                    {"total_bytes", quantity_json(m.megatron->total)}}
             : json(nullptr)},
        {"buffers_bytes", quantity_json(m.buffers)},
        {"context_bytes", quantity_json(m.context)},
        {"total_bytes", quantity_json(m.total)},
        {"usable_bytes", quantity_json(m.usable)},
        {"fits", m.fits},
        {"largest_params", quantity_json(m.largest_params)}}},
      {"compute",
       {{"peak_tflops", c.peak_tflops},
        {"peak_precision", c.peak_precision},
        {"flops_per_token", quantity_json(c.compute.flops_per_token)},
        {"flops_per_step", quantity_json(c.compute.flops_per_step)},
        {"seconds", quantity_json(c.compute.seconds)},
        {"backward_seconds", quantity_json(c.compute.backward_seconds)}}},
      {"communication",
       {{"path", c.comm_path},
        {"busbw_bytes_per_s", quantity_json(c.busbw)},
        {"allreduce_all_gpus_busbw_bytes_per_s", quantity_json(c.allreduce_busbw)},
        {"volume_bytes", quantity_json(c.comm.volume)},
        {"seconds", quantity_json(c.comm.seconds)},
        {"cross_domain_seconds", quantity_json(c.comm.cross_domain_seconds)},
        {"exposed_seconds", quantity_json(c.comm.exposed_seconds)},
        {"tensor_parallel_seconds", quantity_json(c.model_parallel.tp_seconds)},
        {"pipeline_parallel_seconds", quantity_json(c.model_parallel.pp_seconds)}}},
      {"data",
       {{"demand_bytes_per_s", quantity_json(c.data.demand_total)},
        {"demand_per_vm_bytes_per_s", quantity_json(c.data.demand_per_vm)},
        {"demand_per_gpu_bytes_per_s", quantity_json(c.data.demand_per_gpu)},
        {"options", options},
        {"chosen", c.data.chosen >= 0 ? json(c.data.options[c.data.chosen].name) : json(nullptr)},
        {"reason", c.data.reason},
        {"read_seconds", quantity_json(c.data.read_seconds)},
        {"exposed_seconds", quantity_json(c.data.exposed_seconds)}}},
      {"step_seconds", quantity_json(c.step_seconds)},
      {"utilization", quantity_json(c.utilization)},
      {"dominant_wait", c.dominant_wait},
      {"steps", quantity_json(c.steps)},
      {"run_seconds", quantity_json(c.run_seconds)},
      {"placement",
       {{"limit", to_string(c.placement.limit)},
        {"domains", c.placement.domains},
        {"vms_per_domain", c.placement.vms_per_domain},
        {"advice", c.placement.advice},
        {"source", c.placement.source}}},
      {"cost", cost}};
}

}  // namespace

json quantity_json(const Quantity& q) {
  json inputs = json::array();
  for (const QuantityInput& i : q.inputs) {
    json in{{"name", i.name}, {"value", number(i.value)}};
    if (!i.unit.empty()) in["unit"] = i.unit;
    inputs.push_back(std::move(in));
  }
  json out{
      {"value", number(q.value)}, {"unit", q.unit}, {"formula", q.formula}, {"inputs", inputs}};
  if (!q.source.empty()) out["source"] = q.source;
  return out;
}

json plan_json(const Plan& plan) {
  json candidates = json::array();
  for (std::size_t i = 0; i < plan.candidates.size(); ++i)
    candidates.push_back(candidate_json(plan.candidates[i], i + 1));
  json recommendation = nullptr;
  if (plan.recommended) {
    const Candidate& b = plan.candidates.front();
    recommendation = json{{"sku", b.sku->name},
                          {"vms", b.vms},
                          {"gpus", b.gpus},
                          {"reasons", plan.reasons},
                          {"checklist", plan.checklist}};
  }
  const JobSpec& j = plan.job;
  json out{{"outcome", plan.recommended ? "recommended" : "does-not-fit"},
           {"job", job_json(plan)},
           {"assumptions",
            {{"mfu", j.mfu},
             {"overlap", j.overlap},
             {"headroom", j.headroom},
             {"ib_efficiency", j.ib_efficiency},
             {"ethernet_efficiency", j.ethernet_efficiency}}},
           {"run",
            {{"total_tokens", plan.total_tokens},
             {"total_tokens_origin", plan.run_length_origin},
             {"sample_bytes", plan.sample_bytes},
             {"sample_bytes_origin", plan.sample_bytes_origin},
             {"dataset_bytes", plan.dataset_bytes},
             {"dataset_bytes_origin", plan.dataset_origin},
             {"scale", plan.scale_origin}}},
           {"ranking", plan.ranking},
           {"recommendation", recommendation},
           {"hints", plan.hints},
           {"candidates", candidates}};
  if (!plan.layout_search.empty()) {
    json layouts = json::array();
    for (std::size_t i = 0; i < plan.layouts.size(); ++i)
      layouts.push_back(candidate_json(plan.layouts[i], i + 1));
    out["layout_search"] = json{{"searched", plan.layout_search},
                                {"layouts_evaluated", plan.layouts_evaluated},
                                {"layouts", layouts}};
  } else {
    out["layout_search"] = nullptr;
  }
  return out;
}

}  // namespace trainready
