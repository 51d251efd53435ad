#include "report/text/collective_table.h"

#include <cstdarg>
#include <cstdio>

#include "core/units.h"

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

}  // namespace trainready
