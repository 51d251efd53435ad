#pragma once
// What an nccl-tests (or rccl-tests) run printed: the devices, the result table, the summary.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"

namespace trainready {

struct NcclTestsDevice {  // "#  Rank  0 Group  0 Pid  64904 on  mew0 device  0 [0000:17:00] NVIDIA
                          // A100"
  int rank = -1;
  long pid = 0;
  std::string host;
  int device = -1;
  std::string bus_id;  // 0000:17:00
  std::string name;    // NVIDIA A100 80GB PCIe
  Provenance where;
  long rows_before = 0;       // result rows read before it
  long summaries_before = 0;  // summaries read before it (NcclTestsMark)
};

// Where a run's header ("# nThread 1 nGpus 8 ...") or summary ("# Out of bounds values") was
// printed, and what came before it: lines of result rows or other text ('#' lines, blank lines
// and NCCL's own lines do not count, so two marks with the same count were printed with nothing
// of the table between them), runs begun (headers and "Collective test starting" lines) and
// summaries (a run that ended).
struct NcclTestsMark {
  Provenance where;
  long text_before = 0;
  long starts_before = 0;
  long summaries_before = 0;
};

struct NcclTestsRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;
  std::string type;
  std::string redop;  // empty for collectives without one (alltoall)
  std::optional<double> oop_time_us, oop_algbw, oop_busbw;
  std::optional<double> ip_time_us, ip_algbw, ip_busbw;
  std::optional<double> oop_wrong, ip_wrong;  // #wrong, or the old max-error column
  bool error_is_max_error = false;            // old layout: "error" holds a max error, not a count
  Provenance where;

  // The better of out-of-place and in-place busbw.
  std::optional<double> busbw() const;
};

struct NcclTestsFacts {
  std::string source;
  std::string collective;  // all_reduce, all_gather, reduce_scatter, alltoall, broadcast, ...
  Provenance collective_where;
  std::string tests_version;  // "2.18.0", "rccl-tests: Version Unknown"
  std::string nccl_version;   // "2.29.7" from nccl-headers / nccl_version
  int n_threads = 0;
  int n_gpus = 0;  // per process
  std::vector<NcclTestsDevice> devices;
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw;  // "# Avg bus bandwidth" (averages every size: misleading)
  Provenance avg_where;
  std::optional<long> out_of_bounds;
  Provenance out_of_bounds_where;
  std::vector<NcclTestsMark> headers;    // every "# nThread" line, in order (at most 4,096)
  std::vector<NcclTestsMark> summaries;  // every "Out of bounds values" line (at most 4,096)
  bool from_json = false;
  bool truncated = false;          // the table ended without its summary lines
  std::vector<std::string> notes;  // what the reader skipped and why

  int ranks() const;  // from devices, else 0
  // How many processes printed the run's header or claimed one rank number: 1 for one run.
  int runs_printed() const;
  int nodes() const;  // distinct hosts among devices, else 0
  const NcclTestsRow* largest() const;
  std::optional<double> peak_busbw() const;
};

// busbw / algbw for this collective and rank count (nccl-tests doc/PERFORMANCE.md).
std::optional<double> busbw_factor(const std::string& collective, int ranks);
// "all_reduce_perf_mpi" -> "all_reduce"
std::string normalize_collective(std::string name);

}  // namespace trainready
