#include "bench/collective_facts.h"

#include "parsers/nccl_tests.h"

namespace trainready {
namespace {

void place(const PlaceResult& p, std::optional<double>& time, std::optional<double>& algbw,
           std::optional<double>& busbw, std::optional<double>& wrong) {
  time = p.time.median_us;
  algbw = p.algbw;
  busbw = p.busbw;
  if (p.wrong >= 0) wrong = static_cast<double>(p.wrong);
}

}  // namespace

NcclTestsFacts collective_facts(const HarnessResult& r, const HarnessOptions& o) {
  const CollectiveSpec& spec = spec_of(o.collective);
  NcclTestsFacts f;
  f.source = "bench " + std::string(spec.command) + " (" + r.backend + ")";
  f.collective = spec.name;
  f.collective_where = {f.source, 0};
  f.n_threads = 1;
  f.n_gpus = 1;
  for (const std::string& line : r.devices) {
    NcclTestsDevice d = parse_nccl_tests_device(line, {f.source, 0});
    if (d.rank >= 0) f.devices.push_back(std::move(d));
  }
  for (const SizeResult& s : r.sizes) {
    NcclTestsRow row;
    row.size_bytes = s.counts.bytes;
    row.count = s.counts.param;
    row.type = to_string(o.type);
    row.redop = spec.reduces ? "sum" : "";
    place(s.out_of_place, row.oop_time_us, row.oop_algbw, row.oop_busbw, row.oop_wrong);
    place(s.in_place, row.ip_time_us, row.ip_algbw, row.ip_busbw, row.ip_wrong);
    row.where = {f.source + ", " + std::to_string(row.size_bytes) + " B", 0};
    f.rows.push_back(std::move(row));
  }
  f.avg_busbw = r.avg_busbw;
  f.avg_where = {f.source, 0};
  // The rows carry #wrong when the sweep validated (-c 1); nccl-tests' separate out-of-bounds
  // count is not something the harness measures, so it stays unknown rather than a false 0.
  return f;
}

}  // namespace trainready
