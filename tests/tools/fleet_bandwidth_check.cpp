// The bandwidth phase of `fleet` as a library, under a real mpirun (tests/tools/
// fleet_netns_check.py runs it with one rank per network namespace): every rank runs
// run_bandwidth_phase through the same plugin loader as the trainready binary; rank 0 judges
// the facts with the registered rules and prints one JSON document (findings + the matrix) on
// stdout. Usage: fleet_bandwidth_check MODE STEP_TIMEOUT_MS
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/mpi_plugin_loader.h"
#include "catalog/catalog.h"
#include "engine/engine.h"
#include "fleet/bandwidth/bandwidth_run.h"
#include "report/json/pair_bandwidth_section.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fleet_bandwidth_check MODE STEP_TIMEOUT_MS\n");
    return 2;
  }
  try {
    trainready::MpiLayer& layer = trainready::load_mpi_layer();
    std::unique_ptr<trainready::MpiWorld> world = layer.world();
    trainready::BandwidthOptions o = trainready::bandwidth_profile(argv[1]);
    o.step_timeout = std::chrono::milliseconds(std::atol(argv[2]));
    trainready::RunOptions run;
    trainready::BandwidthPhase phase =
        trainready::run_bandwidth_phase(layer, *world, o, nullptr, run, stderr);
    if (world->rank() == 0) {
      trainready::JudgeInputs in;
      in.pairs = &phase.facts;
      const trainready::Evaluation ev =
          trainready::evaluate(in, trainready::Catalog::builtin(), {});
      nlohmann::json findings = nlohmann::json::array();
      for (const trainready::Finding& f : ev.findings)
        findings.push_back({{"rule", f.rule_id}, {"node", f.node}, {"message", f.message}});
      std::printf("%s\n",
                  nlohmann::json{{"findings", findings},
                                 {"pair_bandwidth", trainready::pair_bandwidth_json(phase.facts)}}
                      .dump()
                      .c_str());
      std::fflush(stdout);
    }
    layer.finalize();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fleet_bandwidth_check: %s\n", e.what());
    return 2;
  }
}
