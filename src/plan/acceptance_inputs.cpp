// Reading the plan JSON and the measured JSON reports for `plan --check`.
#include "plan/acceptance_inputs.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/input_error.h"
#include "core/located_json.h"
#include "core/units.h"

namespace trainready {
namespace {

using nlohmann::json;

// Navigates one document by JSON pointer; a missing or mistyped value is an InputError with the
// file, the line of the value (or of its nearest ancestor) and the pointer.
class Doc {
 public:
  Doc(std::string_view text, std::string file)
      : file_(std::move(file)), doc_(parse_located_json(text, file_)) {}

  [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
    throw InputError(file_, doc_.line_of(ptr), what);
  }
  bool has(const std::string& ptr) const { return doc_.value.contains(json::json_pointer(ptr)); }
  const json& at(const std::string& ptr) const {
    if (!has(ptr)) fail(ptr, ptr + ": missing");
    return doc_.value.at(json::json_pointer(ptr));
  }
  double number(const std::string& ptr) const {
    const json& v = at(ptr);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      fail(ptr, ptr + ": expected a number, found " + std::string(v.type_name()));
    return v.get<double>();
  }
  double positive(const std::string& ptr) const {
    const double v = number(ptr);
    if (v <= 0) fail(ptr, ptr + ": expected a number above 0, found " + format_number(v, 6));
    return v;
  }
  int integer(const std::string& ptr, int min) const {
    const json& v = at(ptr);
    if (!v.is_number_integer() || v.get<long long>() < min || v.get<long long>() > 1000000000)
      fail(ptr, ptr + ": expected a whole number of at least " + std::to_string(min));
    return v.get<int>();
  }
  std::string text(const std::string& ptr) const {
    const json& v = at(ptr);
    if (!v.is_string()) fail(ptr, ptr + ": expected a string, found " + std::string(v.type_name()));
    return v.get<std::string>();
  }
  // The value of the input `name` of the quantity at `ptr` ({"inputs": [{"name", "value"}]}).
  double input(const std::string& ptr, const std::string& name) const {
    if (auto v = find_input(ptr, name)) return *v;
    fail(ptr + "/inputs", ptr + "/inputs: no input named \"" + name + "\"");
  }
  // An input a plan of an older trainready did not write yet: its value then (e.g. v = 1, no
  // interleaving, before virtual pipeline stages were planned).
  double input_or(const std::string& ptr, const std::string& name, double then) const {
    return find_input(ptr, name).value_or(then);
  }
  std::optional<double> find_input(const std::string& ptr, const std::string& name) const {
    const json& inputs = at(ptr + "/inputs");
    if (!inputs.is_array()) fail(ptr + "/inputs", ptr + "/inputs: expected an array");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].is_object() && inputs[i].value("name", "") == name)
        return number(ptr + "/inputs/" + std::to_string(i) + "/value");
    }
    return std::nullopt;
  }
  const std::string& file() const { return file_; }

  // The envelope: its schema version, then its command.
  std::string command(int schema_version) const {
    const int v = integer("/schema_version", 1);
    if (v != schema_version)
      fail("/schema_version", "JSON schema_version " + std::to_string(v) +
                                  ", this trainready reads " + std::to_string(schema_version) +
                                  ": write the report again with this version");
    if (!has("/tool") || !at("/tool").is_object() || at("/tool").value("name", "") != "trainready")
      fail("/tool", "not a trainready JSON report (no \"tool\": {\"name\": \"trainready\"})");
    return text("/command");
  }

 private:
  std::string file_;
  LocatedJson doc_;
};

BusbwSweep bench_sweep(const Doc& d) {
  BusbwSweep s;
  s.file = d.file();
  s.ranks = d.integer("/bench/ranks", 1);
  s.origin = "bench " + d.text("/bench/collective") + ", " + std::to_string(s.ranks) +
             " ranks, out-of-place busbw (" + d.text("/bench/backend") + ")";
  const json& sizes = d.at("/bench/sizes");
  if (!sizes.is_array() || sizes.empty()) d.fail("/bench/sizes", "/bench/sizes: no sizes measured");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string p = "/bench/sizes/" + std::to_string(i);
    s.points.push_back(
        {d.positive(p + "/size_bytes"), d.number(p + "/out_of_place/busbw_gbytes_per_s") * 1e9});
  }
  return s;
}

BusbwSweep fleet_sweep(const Doc& d, int nodes, int ranks) {
  BusbwSweep s;
  s.file = d.file();
  s.ranks = ranks;
  s.origin = "fleet --bandwidth all-reduce, " + std::to_string(ranks) + " ranks on " +
             std::to_string(nodes) + " node(s) (" + d.text("/pair_bandwidth/allreduce/backend") +
             ")";
  const json& points = d.at("/pair_bandwidth/allreduce/points");
  if (!points.is_array())
    d.fail("/pair_bandwidth/allreduce/points", "/pair_bandwidth/allreduce/points: not an array");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string p = "/pair_bandwidth/allreduce/points/" + std::to_string(i);
    s.points.push_back({d.positive(p + "/size_bytes"), d.number(p + "/busbw_gbytes_per_s") * 1e9});
  }
  return s;
}

// Sorted by size; a size that moved nothing (busbw 0: a failed or timed-out step) is no bandwidth
// to plan with and would read as "free" in the models: left out, with a note.
void sort_points(BusbwSweep& s, std::vector<std::string>& notes) {
  const auto zero = std::remove_if(s.points.begin(), s.points.end(),
                                   [](const BusbwPoint& p) { return !(p.busbw > 0); });
  if (zero != s.points.end())
    notes.push_back(s.file + ": " + std::to_string(s.points.end() - zero) +
                    " size(s) with no bus bandwidth left out (a failed step: see its findings)");
  s.points.erase(zero, s.points.end());
  std::sort(s.points.begin(), s.points.end(),
            [](const BusbwPoint& a, const BusbwPoint& b) { return a.size_bytes < b.size_bytes; });
}

// The lowest pair of the matrices at the largest size measured.
void read_pairs(const Doc& d, Measurements& out) {
  const json& matrices = d.at("/pair_bandwidth/matrices");
  if (!matrices.is_array())
    d.fail("/pair_bandwidth/matrices", "/pair_bandwidth/matrices: not an array");
  double largest = 0;
  for (std::size_t m = 0; m < matrices.size(); ++m)
    largest = std::max(largest,
                       d.positive("/pair_bandwidth/matrices/" + std::to_string(m) + "/size_bytes"));
  std::vector<double> values;
  std::optional<SlowestLink> low;
  const int rails = d.integer("/pair_bandwidth/rails", 1);
  auto host = [&](int i) {
    const std::string p = "/pair_bandwidth/nodes/" + std::to_string(i) + "/host";
    return d.has(p) ? d.text(p) : "node " + std::to_string(i);
  };
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const std::string mp = "/pair_bandwidth/matrices/" + std::to_string(m);
    if (d.number(mp + "/size_bytes") != largest) continue;
    const json& pairs = d.at(mp + "/pairs");
    if (!pairs.is_array()) d.fail(mp + "/pairs", mp + "/pairs: not an array");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const std::string p = mp + "/pairs/" + std::to_string(i);
      if (d.at(p + "/gbytes_per_s").is_null()) {
        out.notes.push_back(d.file() + ": pair " + host(d.integer(p + "/a", 0)) + " - " +
                            host(d.integer(p + "/b", 0)) +
                            " timed out: not counted (fleet's own findings name it)");
        continue;
      }
      const double v = d.number(p + "/gbytes_per_s") * 1e9;
      if (!(v > 0)) {
        out.notes.push_back(d.file() + ": pair " + host(d.integer(p + "/a", 0)) + " - " +
                            host(d.integer(p + "/b", 0)) +
                            " moved nothing: not counted (a dead link: fleet's own findings name "
                            "it)");
        continue;
      }
      values.push_back(v);
      if (!low || v < low->bytes_per_s) {
        SlowestLink l;
        l.file = d.file();
        l.pair = host(d.integer(p + "/a", 0)) + " - " + host(d.integer(p + "/b", 0)) + ", rail " +
                 std::to_string(d.integer(mp + "/rail", 0));
        l.bytes_per_s = v;
        l.size_bytes = largest;
        l.rails = rails;
        low = l;
      }
    }
  }
  if (!low) return;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  low->median_bytes_per_s = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  if (!out.slowest_link || low->bytes_per_s < out.slowest_link->bytes_per_s) {
    if (out.slowest_link)
      out.notes.push_back(out.slowest_link->file + ": its slowest pair is faster than " + d.file() +
                          "'s; the slower is taken");
    out.slowest_link = low;
  }
}

void read_fleet(const Doc& d, int gpus_per_vm, Measurements& out) {
  if (!d.has("/pair_bandwidth"))
    d.fail("/command",
           "a fleet report without --bandwidth: no bus bandwidth or pair matrix in it (run "
           "`trainready fleet --bandwidth --json -o FILE` under mpirun or srun)");
  const json& nodes = d.at("/pair_bandwidth/nodes");
  if (!nodes.is_array() || nodes.empty())
    d.fail("/pair_bandwidth/nodes", "/pair_bandwidth/nodes: no nodes");
  int ranks = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const json& r = d.at("/pair_bandwidth/nodes/" + std::to_string(i) + "/ranks");
    if (!r.is_array())
      d.fail("/pair_bandwidth/nodes/" + std::to_string(i) + "/ranks", "not an array");
    ranks += static_cast<int>(r.size());
  }
  BusbwSweep s = fleet_sweep(d, static_cast<int>(nodes.size()), ranks);
  sort_points(s, out.notes);
  if (s.points.empty()) {
    out.notes.push_back(d.file() + ": no all-reduce sweep in it" +
                        (d.has("/pair_bandwidth/allreduce/skipped")
                             ? " (" + d.text("/pair_bandwidth/allreduce/skipped") + ")"
                             : std::string()));
  } else if (nodes.size() > 1 || ranks > gpus_per_vm) {
    out.inter_vm.push_back(std::move(s));
  } else {
    out.intra_vm.push_back(std::move(s));
  }
  read_pairs(d, out);
}

void read_bench(const Doc& d, int gpus_per_vm, Measurements& out) {
  const std::string collective = d.text("/bench/collective");
  if (collective != "all_reduce") {
    out.notes.push_back(d.file() + ": bench " + collective +
                        " not used: the plan's bandwidths are all-reduce bus bandwidths");
    return;
  }
  const double wrong = d.number("/bench/wrong");
  if (wrong > 0)
    d.fail("/bench/wrong", "the sweep has " + format_number(wrong, 6) +
                               " wrong results: its bandwidth is not a measurement to plan on");
  BusbwSweep s = bench_sweep(d);
  sort_points(s, out.notes);
  if (s.points.empty())
    d.fail("/bench/sizes", "/bench/sizes: no size with a bus bandwidth above 0");
  if (s.ranks > gpus_per_vm)
    out.inter_vm.push_back(std::move(s));
  else
    out.intra_vm.push_back(std::move(s));
}

void read_storage(const Doc& d, Measurements& out) {
  StorageFeed f;
  f.file = d.file();
  const std::string path = d.text("/storage/path");
  if (d.has("/storage/jobs/0/read/bw_bytes")) {
    const std::string j = "/storage/jobs/0";
    f.bytes_per_s = d.positive(j + "/read/bw_bytes");
    f.origin = "bench storage raw read of " + path + " (" + d.text(j + "/rw") + ", bs " +
               format_bytes_binary(static_cast<std::uint64_t>(d.positive(j + "/bs"))) + ", " +
               (d.integer(j + "/direct", 0) ? "O_DIRECT" : "buffered") + ", cache " +
               d.text(j + "/cache_state") + ")";
    const std::string cache = d.text(j + "/cache_state");
    if (cache.rfind("cold", 0) != 0)
      out.notes.push_back(d.file() + ": the read was not cold (" + cache +
                          "): the page cache may have served part of it");
  } else if (d.has("/storage/feed/trials")) {
    const json& trials = d.at("/storage/feed/trials");
    if (!trials.is_array() || trials.empty())
      d.fail("/storage/feed/trials", "/storage/feed/trials: no trials");
    bool all_met = true;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      const std::string t = "/storage/feed/trials/" + std::to_string(i);
      f.bytes_per_s = std::max(f.bytes_per_s, d.number(t + "/delivered_bytes_per_second"));
      all_met = all_met && d.text(t + "/train_au_meet_expectation") == "success";
    }
    f.lower_bound = all_met;
    f.origin = "bench storage --feed on " + path + ": the most delivered in a trial";
    if (f.bytes_per_s <= 0) d.fail("/storage/feed/trials", "no trial delivered any data");
  } else {
    d.fail("/storage", "/storage: neither a raw read (jobs[0].read.bw_bytes) nor feed trials");
  }
  out.storage.push_back(std::move(f));
}

}  // namespace

PlannedRun read_planned_run(std::string_view text, const std::string& file, int schema_version) {
  const Doc d(text, file);
  const std::string command = d.command(schema_version);
  if (command != "plan")
    d.fail("/command", "the report of `" + command +
                           "`, not a plan: --check takes `trainready plan ... --format json -o "
                           "FILE`");
  const std::string outcome = d.text("/plan/outcome");
  if (outcome != "recommended")
    d.fail("/plan/outcome", "the plan recommends nothing (outcome " + outcome +
                                "): there is no planned cluster to check");
  const std::string c = "/plan/candidates/0";
  PlannedRun p;
  p.file = file;
  p.catalog = d.text("/catalog");
  p.sku = d.text(c + "/sku");
  p.vms = d.integer(c + "/vms", 1);
  p.gpus = d.integer(c + "/gpus", 1);
  if (p.gpus % p.vms != 0) d.fail(c + "/gpus", c + "/gpus: not a multiple of vms");
  p.gpus_per_vm = p.gpus / p.vms;
  p.tp = d.integer(c + "/layout/tp", 1);
  p.pp = d.integer(c + "/layout/pp", 1);
  p.dp = d.integer(c + "/data_parallel", 1);
  p.tokens_per_step = d.positive(c + "/tokens_per_step");
  p.total_tokens = d.positive("/plan/run/total_tokens");

  const std::string comm = c + "/communication";
  CommInputs& co = p.comm;
  const double psi = d.input(comm + "/volume_bytes", "Ψ'");
  co.params = psi * p.tp * p.pp;
  co.weight_bytes = d.input(comm + "/volume_bytes", "b_w");
  co.gradient_bytes = d.input(comm + "/volume_bytes", "b_g");
  co.zero = d.integer(c + "/zero", 0);
  co.dp = p.dp;
  co.tp = p.tp;
  co.pp = p.pp;
  co.accumulation = d.integer(c + "/accumulation_steps", 1);
  co.busbw = d.number(comm + "/busbw_bytes_per_s/value");
  co.domains = static_cast<int>(d.input(comm + "/cross_domain_seconds", "domains"));
  co.vms_per_domain = static_cast<int>(d.input(comm + "/cross_domain_seconds", "vms_per_domain"));
  co.ethernet_per_vm = d.input(comm + "/cross_domain_seconds", "ethernet_per_vm");
  co.compute_seconds = d.positive(c + "/compute/seconds/value");
  co.backward_seconds = d.number(c + "/compute/backward_seconds/value");
  co.overlap = d.input(comm + "/exposed_seconds", "overlap");
  p.allreduce_busbw = d.number(comm + "/allreduce_all_gpus_busbw_bytes_per_s/value");
  p.gradient_message = co.gradient_bytes * psi;

  const std::string tp = comm + "/tensor_parallel_seconds";
  ModelParallelInputs& mp = p.model_parallel;
  mp.tp = static_cast<int>(d.input(tp, "t"));
  mp.pp = p.pp;
  mp.layers = static_cast<int>(std::llround(d.input(tp, "layers_per_gpu") * p.pp));
  // The message s·b·h·bytes as the plan computed it: one "activation" of that many bytes.
  mp.seq = 1;
  mp.micro_batch = 1;
  mp.hidden = 1;
  mp.activation_bytes = d.input(tp, "message");
  mp.micro_batches = static_cast<int>(d.input(tp, "m"));
  mp.full_recompute = d.input(tp, "n_ar") == 6;
  mp.tp_busbw = d.input(tp, "busbw");
  mp.pp_bytes_per_s = d.input(comm + "/pipeline_parallel_seconds", "network_per_gpu");
  mp.vp = static_cast<int>(d.input_or(comm + "/pipeline_parallel_seconds", "v", 1));
  p.tp_message = mp.activation_bytes;

  DataInputs& di = p.data;
  di.vms = p.vms;
  di.gpus = p.gpus;
  di.bytes_per_step = d.integer(c + "/global_batch", 1) * d.number("/plan/run/sample_bytes");
  di.dataset_bytes = d.number("/plan/run/dataset_bytes");
  p.delivered_per_vm = d.input(c + "/data/read_seconds", "delivered_per_vm");
  p.storage_name = d.text(c + "/data/chosen");

  if (!d.at(c + "/cost").is_null()) {
    PriceChoice price;
    price.usd_per_vm_hour = d.positive(c + "/cost/usd_per_vm_hour");
    price.kind = d.text(c + "/cost/price_kind");
    price.origin = d.text(c + "/cost/price_origin");
    p.price = price;
    p.cost_per_run = d.number(c + "/cost/per_run/value");
  }
  p.step_seconds = d.positive(c + "/step_seconds/value");
  p.run_seconds = d.positive(c + "/run_seconds/value");
  return p;
}

void read_measurement(std::string_view text, const std::string& file, int schema_version,
                      int gpus_per_vm, Measurements& out) {
  const Doc d(text, file);
  const std::string command = d.command(schema_version);
  out.files.push_back(file);
  if (command == "fleet")
    read_fleet(d, gpus_per_vm, out);
  else if (command == "bench storage")
    read_storage(d, out);
  else if (command.rfind("bench ", 0) == 0 && d.has("/bench"))
    read_bench(d, gpus_per_vm, out);
  else if (command == "plan")
    d.fail("/command", "a plan, not a measurement: give it to --check");
  else
    d.fail("/command", "the report of `" + command +
                           "`: --measured takes the JSON of `fleet --bandwidth`, `bench "
                           "allreduce` or `bench storage`");
}

}  // namespace trainready
