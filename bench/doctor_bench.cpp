// `doctor --root` on an 8-HCA, 8-GPU ND H100 v5 snapshot (examples/nd-h100-healthy), against a
// reference that only reads the same files (the floor any reader pays). Target: the whole doctor
// well under 100 ms; the ratio to the raw read says how much the pipeline adds.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/root.h"
#include "engine/engine.h"
#include "probes/probes.h"
#include "report/json/json_reporter.h"
#include "report/report.h"
#include "report/text/text_reporter.h"

namespace {

const std::string kSnapshot = std::string(TR_EXAMPLES) + "/nd-h100-healthy";

std::vector<std::string> snapshot_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSnapshot)) {
    if (std::filesystem::is_regular_file(e.symlink_status())) files.push_back(e.path().string());
  }
  return files;
}

void BM_ReferenceReadAllSnapshotFiles(benchmark::State& state) {
  const auto files = snapshot_files();
  std::string buf;
  for (auto _ : state) {
    std::size_t bytes = 0;
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      buf.assign(std::istreambuf_iterator<char>(in), {});
      bytes += buf.size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["files"] = static_cast<double>(files.size());
}
BENCHMARK(BM_ReferenceReadAllSnapshotFiles)->Unit(benchmark::kMillisecond);

void BM_ProbeSnapshot(benchmark::State& state) {
  trainready::FsRoot root(kSnapshot);
  for (auto _ : state) benchmark::DoNotOptimize(trainready::probe_node(root, {}));
}
BENCHMARK(BM_ProbeSnapshot)->Unit(benchmark::kMillisecond);

void BM_EvaluateRules(benchmark::State& state) {
  trainready::FsRoot root(kSnapshot);
  std::vector<trainready::NodeFacts> nodes{trainready::probe_node(root, {})};
  for (auto _ : state)
    benchmark::DoNotOptimize(trainready::evaluate_rules(nodes, trainready::Catalog::builtin()));
}
BENCHMARK(BM_EvaluateRules)->Unit(benchmark::kMicrosecond);

void BM_DoctorEndToEnd(benchmark::State& state) {
  for (auto _ : state) {
    trainready::FsRoot root(kSnapshot);
    trainready::Report report;
    report.command = "doctor";
    report.nodes.push_back(trainready::probe_node(root, {}));
    report.evaluation = trainready::evaluate_rules(report.nodes, trainready::Catalog::builtin());
    trainready::finish_report(report, trainready::Severity::kError);
    benchmark::DoNotOptimize(trainready::render_text(report, {}));
    benchmark::DoNotOptimize(trainready::render_json(report));
  }
}
BENCHMARK(BM_DoctorEndToEnd)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
