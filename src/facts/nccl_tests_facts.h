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
  bool from_json = false;
  bool truncated = false;          // the table ended without its summary lines
  std::vector<std::string> notes;  // what the reader skipped and why

  int ranks() const;  // from devices, else 0
  int nodes() const;  // distinct hosts among devices, else 0
  const NcclTestsRow* largest() const;
  std::optional<double> peak_busbw() const;
};

// busbw / algbw for this collective and rank count (nccl-tests doc/PERFORMANCE.md).
std::optional<double> busbw_factor(const std::string& collective, int ranks);
// "all_reduce_perf_mpi" -> "all_reduce"
std::string normalize_collective(std::string name);

}  // namespace trainready
