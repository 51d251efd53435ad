#include "report/html/html_charts.h"

#include <algorithm>
#include <map>

#include "report/html/html_format.h"
#include "report/html/svg_chart.h"

namespace trainready {
namespace {

std::string gbps_value(double gbytes) {  // a value already in GB/s
  return fmt_short(gbytes) + " GB/s";
}

// "1 H100", "6 H100s"
std::string count_of(int n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

std::string busbw_chart(const Report& r) {
  LineChartSpec spec;
  spec.id = "busbw";
  spec.log2_x = true;
  spec.x_title = "message size (bytes, log2)";
  spec.y_title = "busbw (GB/s = 1e9 B/s)";
  spec.x_format = [](double x) { return fmt_size_iec(x); };
  spec.y_format = [](double y) { return gbps_value(y); };
  ChartSeries oop{"out-of-place", {}, 0, false};
  ChartSeries ip{"in-place", {}, 1, true};
  std::string collective;
  if (r.collective) {
    collective = spec_of(r.collective->options.collective).name;
    for (const SizeResult& s : r.collective->result.sizes) {
      if (s.size_bytes == 0) continue;
      const double x = static_cast<double>(s.size_bytes);
      oop.points.emplace_back(x, s.out_of_place.busbw);
      ip.points.emplace_back(x, s.in_place.busbw);
    }
  } else if (r.nccl_tests) {
    collective = r.nccl_tests->collective;
    for (const NcclTestsRow& row : r.nccl_tests->rows) {
      if (row.size_bytes == 0) continue;
      const double x = static_cast<double>(row.size_bytes);
      if (row.oop_busbw) oop.points.emplace_back(x, *row.oop_busbw);
      if (row.ip_busbw) ip.points.emplace_back(x, *row.ip_busbw);
    }
  }
  if (oop.points.empty() && ip.points.empty()) return "";
  if (!oop.points.empty()) spec.series.push_back(oop);
  if (!ip.points.empty()) spec.series.push_back(ip);
  std::string expected;
  if (r.busbw_expected && r.busbw_expected->known) {
    spec.ref_lines.push_back({"expected", r.busbw_expected->expected_gbytes});
    expected = ", against the " + gbps_value(r.busbw_expected->expected_gbytes) +
               " the VM size should reach at large sizes";
  }
  spec.title = "Bus bandwidth of " + (collective.empty() ? "the collective" : collective) +
               " by message size";
  spec.description = "busbw rises with message size and should level off near its plateau" +
                     expected + "; it is judged at the largest size.";
  return svg_line_chart(spec);
}

namespace {

// The feed trials, from the run as measured or, failing that, from the facts the rule judged.
std::vector<FeedTrialFacts> feed_trials(const Report& r) {
  std::vector<FeedTrialFacts> out;
  if (r.storage && r.storage->feed) {
    for (const FeedResult& t : r.storage->feed->trials)
      out.push_back({t.accelerators, t.au, t.delivered_bytes_per_s, t.demand_bytes_per_s, t.meets});
  } else if (r.storage_facts) {
    out = r.storage_facts->trials;
  }
  std::stable_sort(out.begin(), out.end(), [](const FeedTrialFacts& a, const FeedTrialFacts& b) {
    return a.accelerators < b.accelerators;
  });
  return out;
}

}  // namespace

std::string storage_charts(const Report& r) {
  std::string html;
  const std::vector<FeedTrialFacts> trials = feed_trials(r);
  std::string accel = "accelerator";
  double threshold = 0;
  if (r.storage_facts) {
    if (!r.storage_facts->accelerator.empty()) accel = r.storage_facts->accelerator;
    threshold = r.storage_facts->au_threshold;
  }
  if (r.storage && r.storage->feed_options) {
    const FeedProfile& p = r.storage->feed_options->profile;
    if (!p.accelerator.empty()) accel = p.accelerator;
    threshold = p.au_threshold;
  }
  if (!trials.empty()) {
    BarChartSpec au;
    au.id = "feed-au";
    au.title = "Accelerator utilization (AU) by number of emulated " + accel + "s";
    au.description = "AU is compute time over wall time (DLIO); a count is fed when its AU is at " +
                     std::string("or above the threshold. Green bars meet it, red ones do not.");
    au.value_title = "AU (compute time / wall time)";
    au.value_format = [](double v) { return fmt_percent(v); };
    au.segments = {{"AU", 0}};
    for (const FeedTrialFacts& t : trials)
      au.bars.push_back({count_of(t.accelerators, accel), {t.au}, t.meets ? 6 : 7});
    if (threshold > 0) au.ref_lines.push_back({"threshold", threshold});
    html += svg_bar_chart(au);

    LineChartSpec bw;
    bw.id = "feed-bw";
    bw.title = "Delivered and demanded read bandwidth by number of emulated " + accel + "s";
    bw.description = "Where delivered falls below demanded, the accelerators wait on storage.";
    bw.x_title = "emulated " + accel + "s";
    bw.y_title = "GB/s (1e9 B/s)";
    bw.x_format = [](double x) { return fmt_number(x, 0); };
    bw.y_format = [](double y) { return gbps_value(y); };
    ChartSeries delivered{"delivered", {}, 0, false};
    ChartSeries demanded{"demanded", {}, 2, true};
    for (const FeedTrialFacts& t : trials) {
      delivered.points.emplace_back(t.accelerators, t.delivered_bytes_per_s / 1e9);
      demanded.points.emplace_back(t.accelerators, t.demand_bytes_per_s / 1e9);
    }
    bw.series = {delivered, demanded};
    html += svg_line_chart(bw);
  }
  // Raw reads beside what the accelerators need, when someone said how many must be fed.
  if (r.storage_facts && !r.storage_facts->feed && r.storage_facts->raw_bw_bytes_per_s &&
      r.storage_facts->accelerators_needed > 0 &&
      r.storage_facts->demand_per_accelerator_bytes_per_s > 0) {
    const StorageBenchFacts& f = *r.storage_facts;
    const double need = f.demand_per_accelerator_bytes_per_s * f.accelerators_needed;
    const bool enough = *f.raw_bw_bytes_per_s >= need;
    BarChartSpec b;
    b.id = "raw-vs-need";
    b.title = "Measured read bandwidth against what " + std::to_string(f.accelerators_needed) +
              " " + (f.accelerator.empty() ? std::string("accelerator") : f.accelerator) +
              (f.accelerators_needed == 1 ? "" : "s") + " need";
    b.description = "Need = accelerators x one accelerator's demand (" +
                    (f.profile.empty() ? std::string("the profile") : f.profile) + ")" +
                    (enough ? "; the path delivers enough." : "; the path delivers too little.");
    b.value_title = "GB/s (1e9 B/s)";
    b.value_format = [](double v) { return gbps_value(v); };
    b.segments = {{"bandwidth", 0}};
    b.bars.push_back({"measured", {*f.raw_bw_bytes_per_s / 1e9}, enough ? 6 : 7});
    b.bars.push_back({"needed", {need / 1e9}, 0});  // neutral: the need is neither good nor bad
    html += svg_bar_chart(b);
  }
  return html;
}

std::string plan_charts(const Report& r) {
  if (!r.plan || r.plan->candidates.empty()) return "";
  std::string html;
  const Candidate& c = r.plan->candidates[0];
  const std::string name = c.sku ? c.sku->name : "candidate 1";
  {
    BarChartSpec m;
    m.id = "plan-memory";
    m.title = "Memory per GPU on " + name + " (" + (c.fits() ? "fits" : "does not fit") + ")";
    m.description =
        "Model states, activations, buffers and the CUDA context stacked against the GPU memory "
        "usable after the headroom.";
    m.value_title = "GiB per GPU";
    m.value_format = [](double v) { return fmt_short(v) + " GiB"; };
    const double gib = 1024.0 * 1024 * 1024;
    m.segments = {{"model states", 0}, {"activations", 1}, {"buffers", 2}, {"context", 3}};
    m.bars.push_back(
        {name,
         {c.memory.states.value / gib, c.memory.activations ? c.memory.activations->value / gib : 0,
          c.memory.buffers.value / gib, c.memory.context.value / gib}});
    m.ref_lines.push_back({"usable", c.memory.usable.value / gib});
    html += svg_bar_chart(m);
  }
  // Cost per run where every candidate has a price; else time per run, which every one has.
  const bool priced = std::all_of(r.plan->candidates.begin(), r.plan->candidates.end(),
                                  [](const Candidate& k) { return k.cost.has_value(); });
  BarChartSpec b;
  b.id = "plan-cost";
  b.title = priced ? "Cost per run by candidate" : "Time per run by candidate (no price known)";
  b.description = std::string("Candidates in ranked order, the recommendation first; ") +
                  "red ones do not fit or cannot run.";
  b.value_title = priced ? "US dollars per run" : "days per run";
  b.value_format =
      priced ? ValueFormat([](double v) { return fmt_usd(v); })
             : ValueFormat([](double v) { return fmt_number(v, v >= 10 ? 0 : 1) + " d"; });
  b.segments = {{priced ? "cost" : "time", 0}};
  for (const Candidate& k : r.plan->candidates) {
    const std::string label =
        (k.sku ? k.sku->name : std::string("?")) + " x" + std::to_string(k.vms);
    const double v = priced ? k.cost->per_run.value : k.run_seconds.value / 86400;
    b.bars.push_back({label, {v}, k.fits() ? 0 : 7});
  }
  html += svg_bar_chart(b);
  return html;
}

}  // namespace trainready
