#pragma once
// A training job as `plan` reads it: from flags, from a job file (TOML, YAML or JSON), or both.
// Every value remembers where it was set, so a report can say "--mfu" or "job.toml:7".
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace trainready {

enum class Precision { kBf16Mixed, kFp16Mixed, kFp8Mixed, kFp32, kBf16Pure };
enum class Optimizer { kAdamW, kAdam8Bit, kSgdMomentum };
enum class Recompute { kNone, kSelective, kFull };
enum class Offload { kNone, kOptimizer, kAll };
enum class MemoryConvention { kPaper, kDeepSpeed, kMegatron };

struct JobSpec {
  // Model. A preset fills what is not set explicitly; a shape without params gets 12·L·h² + v·h.
  std::string model;  // preset name, empty for a custom shape
  std::optional<double> params;
  std::optional<int> layers;
  std::optional<int> hidden;
  std::optional<int> heads;
  std::optional<int> vocab;
  std::optional<int> seq;
  // Parameters of the largest single module (DeepSpeed's largest_layer_params for ZeRO-3);
  // unset: derived from the shape, or the whole model without one.
  std::optional<double> largest_layer;
  // Training setup.
  Precision precision = Precision::kBf16Mixed;
  // Bytes per gradient element on the wire. Unset: the training dtype of `precision` (DeepSpeed's
  // default, communication_data_type = the model's dtype). Megatron-LM reduces in fp32 unless
  // --grad-reduce-in-bf16: --grad-reduce-dtype fp32.
  std::optional<double> grad_reduce_bytes;
  Optimizer optimizer = Optimizer::kAdamW;
  MemoryConvention convention = MemoryConvention::kPaper;
  int zero = 0;
  int tp = 1;
  int pp = 1;
  int vp = 1;  // virtual pipeline stages per rank (Megatron's interleaved 1F1B); 1: not interleaved
  std::optional<bool> sequence_parallel;  // default: on when tp > 1 (Megatron's practice)
  Recompute recompute = Recompute::kSelective;
  Offload offload = Offload::kNone;
  int micro_batch = 1;
  std::optional<int> global_batch;
  // Scale.
  std::optional<int> gpus;
  std::optional<int> vms;
  std::optional<double> budget_usd;
  std::vector<std::string> skus;
  // Data and run length.
  std::optional<double> dataset_bytes;
  std::optional<double> sample_bytes;
  std::optional<double> tokens;
  std::optional<double> epochs;
  // Assumptions, shown in every report.
  double mfu = 0.40;
  double overlap = 0.8;
  double headroom = 0.10;
  double ib_efficiency = kDefaultIbEfficiency;
  double ethernet_efficiency = kDefaultEthernetEfficiency;
  // Cost.
  std::string region = "eastus";
  bool spot = false;
  std::map<std::string, double> prices;  // VM size → USD per VM-hour, overriding the catalog

  // Key → where its value came from ("--gpus", "job.toml:4"); keys never set are absent.
  std::map<std::string, std::string> origin;
};

const char* to_string(Precision p);
const char* to_string(Optimizer o);
const char* to_string(Recompute r);
const char* to_string(Offload o);
const char* to_string(MemoryConvention c);

}  // namespace trainready
