#include "catalog/published_runs.h"

#include "core/text.h"

namespace trainready {

const std::vector<PublishedRun>& published_runs() {
  // NVIDIA NeMo performance summary, pretraining, container NeMo 24.07, system DGX-H100 (8 x H100
  // SXM5 80GB per node), FP8: NVIDIA/NeMo docs/source/performance/performance_summary.md
  // @070a0bb168d405d653b9734c0017cf5078e77c0d. Columns: #GPUs, GBS, MBS, sequence length, TP, PP,
  // CP, VP, tokens/sec/GPU, model TFLOP/sec/GPU. Only the rows whose model is a planner preset.
  static const std::string kNemo2407 =
      "NVIDIA NeMo 24.07 performance summary (pretraining, DGX-H100, FP8), "
      "NVIDIA/NeMo docs/source/performance/performance_summary.md @070a0bb";
  static const std::vector<PublishedRun> rows = {
      {"llama2-7b", "H100 SXM5", Precision::kFp8Mixed, 8, 128, 1, 4096, 1, 1, 1, 1, 16847, 776,
       kNemo2407},
      {"llama3-8b", "H100 SXM5", Precision::kFp8Mixed, 8, 128, 1, 8192, 1, 1, 2, 1, 12036, 697,
       kNemo2407},
      {"llama3-70b", "H100 SXM5", Precision::kFp8Mixed, 64, 128, 1, 8192, 4, 4, 2, 5, 1533, 738,
       kNemo2407},
      {"gpt3-175b", "H100 SXM5", Precision::kFp8Mixed, 128, 256, 1, 2048, 4, 8, 1, 6, 726, 782,
       kNemo2407},
  };
  return rows;
}

const PublishedRun* find_published_run(const std::string& model, const std::string& gpu_model,
                                       Precision precision) {
  for (const PublishedRun& r : published_runs()) {
    if (iequals(r.model, model) && r.gpu_model == gpu_model && r.precision == precision) return &r;
  }
  return nullptr;
}

const PublishedRun* find_published_run_any_precision(const std::string& model,
                                                     const std::string& gpu_model) {
  for (const PublishedRun& r : published_runs()) {
    if (iequals(r.model, model) && r.gpu_model == gpu_model) return &r;
  }
  return nullptr;
}

}  // namespace trainready
