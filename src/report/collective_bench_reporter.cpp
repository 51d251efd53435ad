#include "report/collective_bench_reporter.h"

#include <cstdarg>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/units.h"
#include "parsers/nccl_tests.h"

namespace trainready {
namespace {

std::string printf_line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_line(const char* fmt, ...) {
  char b[512];
  va_list ap;
  va_start(ap, fmt);
  // va_start above initialises ap; the analyzer misses it through the format attribute.
  std::vsnprintf(b, sizeof b, fmt, ap);  // NOLINT(clang-analyzer-valist.Uninitialized)
  va_end(ap);
  return b;
}

std::string time_text(double us) { return printf_line(us < 10000 ? "%7.2f" : "%7.0f", us); }

std::string wrong_text(long w) { return w < 0 ? "N/A" : std::to_string(w); }

}  // namespace

std::string render_collective_table(const HarnessResult& r, const HarnessOptions& o) {
  const CollectiveSpec& spec = spec_of(o.collective);
  std::string out;
  out += "# Collective test starting: " + std::string(spec.name) + "_perf\n";
  out += "# trainready bench " + std::string(spec.command) + " (" + r.backend + ")\n";
  out += printf_line(
      "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %s warmup iters: %d iters: %d "
      "agg iters: 1 validation: %d graph: 0\n",
      static_cast<unsigned long long>(o.min_bytes), static_cast<unsigned long long>(o.max_bytes),
      o.step_bytes > 0 ? (std::to_string(o.step_bytes) + "(bytes)").c_str()
                       : (format_number(o.factor, 3) + "(factor)").c_str(),
      o.warmup, o.iters, o.check ? 1 : 0);
  out += "#\n# Using devices\n";
  for (const std::string& d : r.devices) out += "#  " + d + "\n";
  out += "#\n";
  out += printf_line(
      "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n", "", "",
      "", "", "");
  out += printf_line("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
                     "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                     "time", "algbw", "busbw", "#wrong");
  out += printf_line("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
                     "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                     "(GB/s)", "");
  for (const SizeResult& s : r.sizes) {
    out += printf_line(
        "  %10llu  %12llu  %8s  %6s  %6d  %s  %6.2f  %6.2f  %6s  %s  %6.2f  %6.2f  %6s\n",
        static_cast<unsigned long long>(s.counts.bytes),
        static_cast<unsigned long long>(s.counts.param), to_string(o.type),
        spec.reduces ? "sum" : "none", spec.rooted ? o.root : -1,
        time_text(s.out_of_place.time.median_us).c_str(), s.out_of_place.algbw,
        s.out_of_place.busbw, wrong_text(s.out_of_place.wrong).c_str(),
        time_text(s.in_place.time.median_us).c_str(), s.in_place.algbw, s.in_place.busbw,
        wrong_text(s.in_place.wrong).c_str());
  }
  out += printf_line("# Out of bounds values : %ld %s\n", r.wrong, r.wrong == 0 ? "OK" : "FAILED");
  out += printf_line("# Avg bus bandwidth    : %g \n", r.avg_busbw);
  out += "#\n";
  out += printf_line(
      "# time is the median of %d timed loops of %d iterations, each the slowest "
      "rank's; min / median / max (us):\n",
      o.repeats, o.iters);
  for (const SizeResult& s : r.sizes) {
    out += printf_line("#   %12llu B  out-of-place %s / %s / %s   in-place %s / %s / %s\n",
                       static_cast<unsigned long long>(s.counts.bytes),
                       format_number(s.out_of_place.time.min_us, 4).c_str(),
                       format_number(s.out_of_place.time.median_us, 4).c_str(),
                       format_number(s.out_of_place.time.max_us, 4).c_str(),
                       format_number(s.in_place.time.min_us, 4).c_str(),
                       format_number(s.in_place.time.median_us, 4).c_str(),
                       format_number(s.in_place.time.max_us, 4).c_str());
  }
  return out;
}

CollectiveBenchVerdict judge_collective_table(const std::string& table, const Catalog& catalog,
                                              const RunOptions& options) {
  CollectiveBenchVerdict v;
  const NcclTestsFacts facts = parse_nccl_tests(table, "bench");
  const NcclTestsRow* largest = facts.largest();
  if (!largest) {
    v.line = "no size produced a bandwidth";
    return v;
  }
  v.busbw = largest->busbw();
  v.size_bytes = largest->size_bytes;
  v.expected = expected_busbw(facts, catalog, options);
  const std::string measured =
      "busbw at " + format_bytes_binary(v.size_bytes) + ": " + format_number(*v.busbw, 4) + " GB/s";
  if (!v.expected.known) {
    v.line = measured + " (no expectation: " + v.expected.why_unknown + ")";
    return v;
  }
  v.ratio = *v.busbw / v.expected.expected_gbytes;
  v.line = measured + ", " + format_number(*v.ratio * 100, 3) + "% of the expected " +
           format_number(v.expected.expected_gbytes, 3) + " GB/s (" + v.expected.formula + ")";
  if (v.size_bytes < (1ull << 30)) v.line += "; below 1 GiB part of any gap is latency";
  return v;
}

std::string render_collective_json(const HarnessResult& r, const HarnessOptions& o,
                                   const CollectiveBenchVerdict& v) {
  using nlohmann::json;
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
  json verdict{{"busbw_gbytes_per_s", v.busbw ? json(*v.busbw) : json(nullptr)},
               {"size_bytes", v.size_bytes},
               {"expected_gbytes_per_s",
                v.expected.known ? json(v.expected.expected_gbytes) : json(nullptr)},
               {"expected_formula", v.expected.known ? json(v.expected.formula) : json(nullptr)},
               {"why_unknown", v.expected.known ? json(nullptr) : json(v.expected.why_unknown)},
               {"ratio", v.ratio ? json(*v.ratio) : json(nullptr)},
               {"summary", v.line}};
  json out{{"schema_version", 1},
           {"command", "bench " + std::string(spec.command)},
           {"collective", spec.name},
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
           {"avg_busbw_gbytes_per_s", r.avg_busbw},
           {"verdict", verdict}};
  return out.dump(2) + "\n";
}

}  // namespace trainready
