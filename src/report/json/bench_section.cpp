#include "report/json/bench_section.h"

#include "report/text/storage_section.h"

namespace trainready {
namespace {

using nlohmann::json;

json residency_json(const Residency& r) {
  return json{{"known", r.known},
              {"resident_bytes", r.resident_bytes},
              {"total_bytes", r.total_bytes},
              {"method", r.method},
              {"why_unknown", r.why_unknown.empty() ? json(nullptr) : json(r.why_unknown)}};
}

json latency_json(const LatencySummary& l) {
  return json{
      {"min", l.min_ns}, {"max", l.max_ns}, {"mean", l.mean_ns}, {"percentile", l.percentiles}};
}

}  // namespace

json collective_json(const CollectiveRun& run) {
  const HarnessResult& r = run.result;
  const HarnessOptions& o = run.options;
  const CollectiveSpec& spec = spec_of(o.collective);
  auto place = [](const PlaceResult& p) {
    return json{
        {"time_us", {{"min", p.time.min_us}, {"median", p.time.median_us}, {"max", p.time.max_us}}},
        {"algbw_gbytes_per_s", p.algbw},
        {"busbw_gbytes_per_s", p.busbw},
        {"wrong", p.wrong < 0 ? json(nullptr) : json(p.wrong)}};
  };
  json sizes = json::array();
  for (const SizeResult& s : r.sizes) {
    sizes.push_back(json{{"size_bytes", s.counts.bytes},
                         {"count", s.counts.param},
                         {"out_of_place", place(s.out_of_place)},
                         {"in_place", place(s.in_place)}});
  }
  json out{{"collective", spec.name},
           {"backend", r.backend},
           {"ranks", r.ranks},
           {"busbw_factor", r.busbw_factor},
           {"type", to_string(o.type)},
           {"warmup_iters", o.warmup},
           {"iters", o.iters},
           {"repeats", o.repeats},
           {"validation", o.check},
           {"devices", r.devices},
           {"sizes", sizes},
           {"wrong", r.wrong},
           {"avg_busbw_gbytes_per_s", r.avg_busbw}};
  return out;
}

json storage_json(const StorageRun& run) {
  const StorageRunInfo& info = run.info;
  const RawReadOptions* raw_o = run.raw_options ? &*run.raw_options : nullptr;
  const RawReadResult* raw = run.raw ? &*run.raw : nullptr;
  const FeedOptions* feed_o = run.feed_options ? &*run.feed_options : nullptr;
  const FeedSearch* feed = run.feed ? &*run.feed : nullptr;
  json files = json::array();
  for (const DatasetFile& f : info.files) files.push_back({{"path", f.path}, {"size", f.size}});
  json out{{"path", info.path}, {"files", files}};
  if (!info.created.empty()) out["created"] = info.created;
  if (raw && raw_o) {
    json job{{"jobname", raw_o->random ? "randread" : "read"},
             {"rw", raw_o->random ? "randread" : "read"},
             {"bs", raw_o->block_size},
             {"iodepth", raw_o->iodepth},
             {"numjobs", raw_o->jobs},
             {"ioengine", raw->engine},
             {"ioengine_fallback",
              raw->engine_fallback.empty() ? json(nullptr) : json(raw->engine_fallback)},
             {"direct", raw->direct ? 1 : 0},
             {"direct_note", raw->direct_note},
             {"read",
              {{"io_bytes", raw->bytes},
               {"bw_bytes", raw->bw_bytes},
               {"iops", raw->iops},
               {"total_ios", raw->ios},
               {"runtime", raw->seconds * 1000},
               {"clat_ns", latency_json(raw->clat)}}},
             {"usr_cpu", raw->usr_cpu},
             {"sys_cpu", raw->sys_cpu},
             {"cache_state", raw->cache_state},
             {"page_cache_before", residency_json(raw->before)},
             {"page_cache_after", residency_json(raw->after)}};
    out["jobs"] = json::array({job});
  }
  if (feed && feed_o) {
    const FeedProfile& p = feed_o->profile;
    json trials = json::array();
    for (const FeedResult& t : feed->trials) {
      trials.push_back({{"accelerators", t.accelerators},
                        {"steps", t.steps},
                        {"train_au_percentage", t.au * 100},
                        {"train_au_meet_expectation", t.meets ? "success" : "fail"},
                        {"train_throughput_samples_per_second", t.samples_per_s},
                        {"train_io_mean_MB_per_second", t.delivered_bytes_per_s / 1e6},
                        {"delivered_bytes_per_second", t.delivered_bytes_per_s},
                        {"demand_bytes_per_second", t.demand_bytes_per_s},
                        {"wall_seconds", t.wall_s},
                        {"wait_ns", latency_json(t.wait)},
                        {"read_mode", t.read_mode},
                        {"cache_state", t.cache_state}});
    }
    out["feed"] = json{{"profile",
                        {{"name", p.name},
                         {"workload", p.workload},
                         {"accelerator", p.accelerator},
                         {"record_bytes", p.record_bytes},
                         {"batch_size", p.batch},
                         {"computation_time", p.compute_seconds},
                         {"au_threshold", p.au_threshold},
                         {"read_threads", p.read_threads},
                         {"source", p.source}}},
                       {"prefetch", feed_o->prefetch},
                       {"trials", trials},
                       {"largest_accelerators_meeting", feed->largest_meeting},
                       {"verdict", feed_verdict(*feed_o, *feed)}};
  }
  return out;
}

}  // namespace trainready
