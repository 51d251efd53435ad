#include "report/prom/prom_reporter.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "engine/shared_findings.h"
#include "report/prom/prom_writer.h"

namespace trainready {
namespace {

// nccl-tests' GB/s is 1e9 bytes per second (docs/busbw.md).
constexpr double kGBytes = 1e9;

void verdict_metrics(const Report& r, PromWriter& w) {
  const PromLabels cmd{{"command", r.command}};
  w.family("trainready_findings", "gauge", "Findings of the last run, by severity.");
  std::map<Severity, int> counts{
      {Severity::kError, 0}, {Severity::kWarning, 0}, {Severity::kInfo, 0}};
  for_each_finding(r.evaluation, [&](const Finding& f) { ++counts[f.severity]; });
  for (const auto& [s, n] : counts)
    w.sample("trainready_findings",
             {{"command", r.command}, {"severity", std::string(to_string(s))}}, n);
  w.family("trainready_rule_evaluations", "gauge", "Rule evaluations (rule, node pairs) run.");
  w.sample("trainready_rule_evaluations", cmd, r.evaluation.evaluations);
  w.family("trainready_checks_skipped", "gauge",
           "Rule evaluations skipped because their facts were missing.");
  w.sample("trainready_checks_skipped", cmd, static_cast<double>(skip_count(r.evaluation)));
  w.family("trainready_checks_skipped_in_part", "gauge",
           "Rule evaluations that judged only part of their facts (the rest was missing).");
  w.sample("trainready_checks_skipped_in_part", cmd,
           static_cast<double>(partly_evaluated(r.evaluation)));
  // A state set: one series per status, 1 for the current one, so a query or alert can select
  // on the status label without knowing the others.
  w.family("trainready_verdict", "gauge",
           "The verdict: 1 for the current status, 0 for the others.");
  for (VerdictStatus s : {VerdictStatus::kReady, VerdictStatus::kReadyWithWarnings,
                          VerdictStatus::kIncomplete, VerdictStatus::kNotReady})
    w.sample("trainready_verdict",
             {{"command", r.command}, {"status", verdict_status_name(s, r.command)}},
             s == r.verdict.status ? 1 : 0);
  w.family("trainready_exit_code", "gauge", "The exit code of the run (0 ok, 1 findings).");
  w.sample("trainready_exit_code", cmd, r.exit_code);
}

void busbw_metrics(const Report& r, PromWriter& w) {
  w.family("trainready_busbw_bytes_per_second", "gauge",
           "Bus bandwidth per message size and placement (nccl-tests' busbw, GB/s x 1e9).");
  w.family("trainready_busbw_largest_bytes_per_second", "gauge",
           "Bus bandwidth at the largest message size, the better placement.");
  w.family("trainready_busbw_expected_bytes_per_second", "gauge",
           "Bus bandwidth the VM size should reach at the largest size.");
  w.family("trainready_busbw_wrong_elements", "gauge",
           "Elements with a wrong result over the sweep (#wrong), 0 when all were right.");
  std::string collective;
  if (r.collective) {
    collective = spec_of(r.collective->options.collective).name;
    const HarnessResult& h = r.collective->result;
    for (const SizeResult& s : h.sizes) {
      const std::string size = std::to_string(s.size_bytes);
      w.sample("trainready_busbw_bytes_per_second",
               {{"collective", collective}, {"size_bytes", size}, {"placement", "out_of_place"}},
               s.out_of_place.busbw * kGBytes);
      w.sample("trainready_busbw_bytes_per_second",
               {{"collective", collective}, {"size_bytes", size}, {"placement", "in_place"}},
               s.in_place.busbw * kGBytes);
    }
    if (!h.sizes.empty()) {
      const SizeResult& big = h.sizes.back();
      w.sample("trainready_busbw_largest_bytes_per_second",
               {{"collective", collective}, {"size_bytes", std::to_string(big.size_bytes)}},
               std::max(big.out_of_place.busbw, big.in_place.busbw) * kGBytes);
    }
    if (r.collective->options.check)
      w.sample("trainready_busbw_wrong_elements", {{"collective", collective}},
               static_cast<double>(h.wrong));
  } else if (r.nccl_tests) {
    const NcclTestsFacts& t = *r.nccl_tests;
    collective = t.collective;
    for (const NcclTestsRow& row : t.rows) {
      const std::string size = std::to_string(row.size_bytes);
      if (row.oop_busbw)
        w.sample("trainready_busbw_bytes_per_second",
                 {{"collective", collective}, {"size_bytes", size}, {"placement", "out_of_place"}},
                 *row.oop_busbw * kGBytes);
      if (row.ip_busbw)
        w.sample("trainready_busbw_bytes_per_second",
                 {{"collective", collective}, {"size_bytes", size}, {"placement", "in_place"}},
                 *row.ip_busbw * kGBytes);
    }
    if (const NcclTestsRow* big = t.largest())
      w.sample("trainready_busbw_largest_bytes_per_second",
               {{"collective", collective}, {"size_bytes", std::to_string(big->size_bytes)}},
               *big->busbw() * kGBytes);
    // The old layout's error column is a max error, not a count: not #wrong.
    double wrong = 0;
    bool any = false;
    for (const NcclTestsRow& row : t.rows) {
      if (row.error_is_max_error) continue;
      for (const auto& v : {row.oop_wrong, row.ip_wrong})
        if (v) wrong += *v, any = true;
    }
    if (any) w.sample("trainready_busbw_wrong_elements", {{"collective", collective}}, wrong);
  }
  if (r.busbw_expected && r.busbw_expected->known && (r.collective || r.nccl_tests))
    w.sample("trainready_busbw_expected_bytes_per_second",
             {{"collective", collective},
              {"sku", r.busbw_expected->sku ? r.busbw_expected->sku->name : ""},
              {"nodes", std::to_string(r.busbw_expected->nodes)}},
             r.busbw_expected->expected_gbytes * kGBytes);
}

void storage_metrics(const Report& r, PromWriter& w) {
  if (!r.storage) return;
  const StorageRun& s = *r.storage;
  const std::string& path = s.info.path;
  if (s.raw) {
    const RawReadResult& raw = *s.raw;
    PromLabels l{{"path", path},
                 {"engine", raw.engine},
                 {"cache_state", raw.cache_state},
                 {"direct", raw.direct ? "true" : "false"}};
    if (s.raw_options) {
      l.emplace_back("rw", s.raw_options->random ? "randread" : "read");
      l.emplace_back("block_size_bytes", std::to_string(s.raw_options->block_size));
    }
    w.family("trainready_storage_read_bytes_per_second", "gauge",
             "Raw read bandwidth as fio's bw_bytes.");
    w.sample("trainready_storage_read_bytes_per_second", l, raw.bw_bytes);
    w.family("trainready_storage_read_iops", "gauge", "Raw read operations per second.");
    w.sample("trainready_storage_read_iops", l, raw.iops);
    // A summary, as fio's percentiles are: quantiles, and the sum and count of the reads.
    w.family("trainready_storage_read_clat_seconds", "summary",
             "Completion latency of raw reads (fio's clat), by quantile.");
    for (const auto& [key, ns] : raw.clat.percentiles) {
      PromLabels q = l;
      // fio's "99.900000" as the quantile "0.999" (%g: no 0.9990000000000001).
      char quantile[32];
      std::snprintf(quantile, sizeof(quantile), "%.6g", std::stod(key) / 100.0);
      q.emplace_back("quantile", quantile);
      w.sample("trainready_storage_read_clat_seconds", q, static_cast<double>(ns) / 1e9);
    }
    w.sample("trainready_storage_read_clat_seconds", l,
             raw.clat.mean_ns * static_cast<double>(raw.ios) / 1e9, "_sum");
    w.sample("trainready_storage_read_clat_seconds", l, static_cast<double>(raw.ios), "_count");
  }
  if (s.feed) {
    const std::string profile = s.feed_options ? s.feed_options->profile.name : "";
    w.family("trainready_storage_feed_accelerator_utilization_ratio", "gauge",
             "DLIO's accelerator utilization (compute / wall time, 0-1) per accelerator count.");
    w.family("trainready_storage_feed_delivered_bytes_per_second", "gauge",
             "Bytes per second the readers delivered to the emulated accelerators.");
    w.family("trainready_storage_feed_demand_bytes_per_second", "gauge",
             "Bytes per second the emulated accelerators need to compute without waiting.");
    for (const FeedResult& t : s.feed->trials) {
      const PromLabels l{
          {"path", path}, {"profile", profile}, {"accelerators", std::to_string(t.accelerators)}};
      w.sample("trainready_storage_feed_accelerator_utilization_ratio", l, t.au);
      w.sample("trainready_storage_feed_delivered_bytes_per_second", l, t.delivered_bytes_per_s);
      w.sample("trainready_storage_feed_demand_bytes_per_second", l, t.demand_bytes_per_s);
    }
    w.family("trainready_storage_feed_accelerators_kept_busy", "gauge",
             "The most accelerators the path keeps at or above the AU threshold.");
    w.sample("trainready_storage_feed_accelerators_kept_busy",
             {{"path", path}, {"profile", profile}}, s.feed->largest_meeting);
    if (s.feed_options) {
      w.family("trainready_storage_feed_au_threshold_ratio", "gauge",
               "The AU an accelerator must reach to count as fed (the profile's threshold).");
      w.sample("trainready_storage_feed_au_threshold_ratio", {{"path", path}, {"profile", profile}},
               s.feed_options->profile.au_threshold);
    }
  }
}

void plan_metrics(const Report& r, PromWriter& w) {
  if (!r.plan || r.plan->candidates.empty()) return;
  const Candidate& c = r.plan->candidates[0];
  if (!c.sku) return;
  const PromLabels l{
      {"sku", c.sku->name}, {"vms", std::to_string(c.vms)}, {"gpus", std::to_string(c.gpus)}};
  w.family("trainready_plan_recommended", "gauge",
           "1 when the first candidate fits and is recommended, 0 when nothing fits.");
  w.sample("trainready_plan_recommended", l, r.plan->recommended ? 1 : 0);
  w.family("trainready_plan_step_seconds", "gauge",
           "Predicted time of one optimizer step, waits included.");
  w.sample("trainready_plan_step_seconds", l, c.step_seconds.value);
  w.family("trainready_plan_gpu_utilization_ratio", "gauge",
           "Predicted share of GPU time spent computing (0-1).");
  w.sample("trainready_plan_gpu_utilization_ratio", l, c.utilization.value);
  w.family("trainready_plan_run_seconds", "gauge", "Predicted length of the whole run.");
  w.sample("trainready_plan_run_seconds", l, c.run_seconds.value);
  w.family("trainready_plan_memory_per_gpu_bytes", "gauge",
           "Predicted memory per GPU by component, and what is usable.");
  const auto mem = [&](const char* component, double v) {
    PromLabels m = l;
    m.emplace_back("component", component);
    w.sample("trainready_plan_memory_per_gpu_bytes", m, v);
  };
  mem("states", c.memory.states.value);
  if (c.memory.activations) mem("activations", c.memory.activations->value);
  mem("buffers", c.memory.buffers.value);
  mem("context", c.memory.context.value);
  mem("total", c.memory.total.value);
  mem("usable", c.memory.usable.value);
  if (c.cost) {
    w.family("trainready_plan_run_cost_usd", "gauge", "Predicted cost of the run, US dollars.");
    w.sample("trainready_plan_run_cost_usd", l, c.cost->per_run.value);
    w.family("trainready_plan_cost_per_hour_usd", "gauge",
             "Cost of the cluster per hour, US dollars.");
    w.sample("trainready_plan_cost_per_hour_usd", l, c.cost->per_hour.value);
  }
}

void node_metrics(const Report& r, PromWriter& w) {
  // Bytes, as node_exporter's node_infiniband_rate_bytes_per_second (400 Gb/s = 5e10 B/s).
  w.family("trainready_ib_port_rate_bytes_per_second", "gauge",
           "Rate of an InfiniBand or RoCE port as the HCA reports it.");
  w.family("trainready_ib_port_active", "gauge", "1 when the port state is ACTIVE, else 0.");
  w.family("trainready_gpus", "gauge", "GPUs the driver sees on the node.");
  for (const NodeFacts& n : r.nodes) {
    if (n.gpus.ok() && n.gpus->driver_loaded)
      w.sample("trainready_gpus", {{"node", n.label}}, static_cast<double>(n.gpus->gpus.size()));
    if (!n.ib.ok()) continue;
    for (const IbDevice& d : n.ib->devices) {
      for (const IbPort& p : d.ports) {
        PromLabels l{{"node", n.label}, {"device", d.name}, {"port", std::to_string(p.number)}};
        if (p.link_layer.ok()) l.emplace_back("link_layer", p.link_layer.value);
        if (p.rate_gbps.ok())
          w.sample("trainready_ib_port_rate_bytes_per_second", l, p.rate_gbps.value * 1e9 / 8);
        if (p.state.ok())
          w.sample("trainready_ib_port_active", l, p.state.value == "ACTIVE" ? 1 : 0);
      }
    }
  }
}

}  // namespace

std::string render_prom(const Report& r) {
  PromWriter w;
  verdict_metrics(r, w);
  busbw_metrics(r, w);
  storage_metrics(r, w);
  plan_metrics(r, w);
  node_metrics(r, w);
  return w.str();
}

}  // namespace trainready
