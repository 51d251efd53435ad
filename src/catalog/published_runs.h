#pragma once
// Published training throughput of named models on GPUs of the catalog, used by the planner as
// the default MFU for the same model, GPU and precision (--mfu overrides). Each row is the
// publisher's measurement as printed, with its configuration, so the planner can derive the MFU
// it implies under its own compute model and a test can reproduce the row.
#include <string>
#include <vector>

#include "facts/job_spec.h"

namespace trainready {

struct PublishedRun {
  std::string model;      // preset name: llama3-8b
  std::string gpu_model;  // catalog gpu.model: "H100 SXM5"
  Precision precision = Precision::kFp8Mixed;
  int gpus = 0;
  int global_batch = 0;
  int micro_batch = 1;
  int seq = 0;
  int tp = 1;
  int pp = 1;
  int cp = 1;
  int vp = 1;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;  // as the publisher counts model FLOPs (for reference)
  std::string source;
};

const std::vector<PublishedRun>& published_runs();
// The row for this model on this GPU at this precision, or nullptr.
const PublishedRun* find_published_run(const std::string& model, const std::string& gpu_model,
                                       Precision precision);
// Any row for the model on the GPU (another precision): for saying why it was not used.
const PublishedRun* find_published_run_any_precision(const std::string& model,
                                                     const std::string& gpu_model);

}  // namespace trainready
