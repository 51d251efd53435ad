#pragma once
// `fleet --bandwidth` / `--quick` / `--full`: the flags, and the phase run from the fleet
// command's hook (cmd_fleet.cpp, run_phases) once every rank has answered the facts gather.
#include <CLI/CLI.hpp>
#include <string>

#include "bench/mpi_layer.h"
#include "cli/shared_flags.h"
#include "report/report.h"

namespace trainready {

struct BandwidthFlags {
  bool bandwidth = false;
  bool quick = false;         // implies --bandwidth
  bool full = false;          // implies --bandwidth
  double step_timeout_s = 0;  // 0: the mode's
  std::string transport = "auto";
  bool wanted() const { return bandwidth || quick || full; }
};

void add_bandwidth_flags(CLI::App* c, BandwidthFlags& b);

// Runs on every rank; on rank 0 (`report` not null) the facts go into the report for the rules.
// `world` null (one rank, no launcher): nothing to measure, said on stderr.
void run_bandwidth_flags(const BandwidthFlags& b, const SharedFlags& flags, MpiWorld* world,
                         Report* report);

}  // namespace trainready
