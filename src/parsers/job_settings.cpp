#include "parsers/job_settings.h"

#include <cmath>
#include <functional>

#include "catalog/model_presets.h"
#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"

namespace trainready {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kBf16Mixed:
      return "bf16";
    case Precision::kFp16Mixed:
      return "fp16";
    case Precision::kFp8Mixed:
      return "fp8";
    case Precision::kFp32:
      return "fp32";
    case Precision::kBf16Pure:
      return "bf16-pure";
  }
  return "?";
}
const char* to_string(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kAdam8Bit:
      return "adam8bit";
    case Optimizer::kSgdMomentum:
      return "sgd";
  }
  return "?";
}
const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}
const char* to_string(Offload o) {
  switch (o) {
    case Offload::kNone:
      return "none";
    case Offload::kOptimizer:
      return "optimizer";
    case Offload::kAll:
      return "all";
  }
  return "?";
}
const char* to_string(MemoryConvention c) {
  switch (c) {
    case MemoryConvention::kPaper:
      return "paper";
    case MemoryConvention::kDeepSpeed:
      return "deepspeed";
    case MemoryConvention::kMegatron:
      return "megatron";
  }
  return "?";
}

const std::vector<JobSettingInfo>& job_setting_keys() {
  static const std::vector<JobSettingInfo> keys = {
      {"model", "NAME", "named model: llama2-7b, llama3-8b, llama3-70b, gpt3-175b", false},
      {"params", "COUNT", "parameters (8B, 2851M, 7.5e9)", false},
      {"layers", "N", "transformer layers", false},
      {"hidden", "N", "hidden size", false},
      {"heads", "N", "attention heads", false},
      {"vocab", "N", "vocabulary size", false},
      {"seq", "N", "sequence length in tokens", false},
      {"largest-layer", "COUNT",
       "parameters of the largest single module, DeepSpeed's ZeRO-3 largest_layer_params "
       "(default: max(vocab x hidden, 4 x hidden^2) from the shape)",
       false},
      {"precision", "P", "bf16 | fp16 | fp8 (mixed, fp32 master weights) | fp32 | bf16-pure",
       false},
      {"grad-reduce-dtype", "T",
       "dtype of the gradient reduction: bf16 | fp16 | fp32 (default: the training dtype, "
       "DeepSpeed's default; Megatron-LM reduces in fp32 unless --grad-reduce-in-bf16)",
       false},
      {"optimizer", "O", "adamw | adam8bit | sgd (with momentum)", false},
      {"convention", "C",
       "paper (ZeRO's 2+2+K bytes) | deepspeed (its estimators) | megatron "
       "(theoretical_memory_usage.py)",
       false},
      {"zero", "STAGE", "0 (DDP) | 1 | 2 | 3 (FSDP full shard); ddp and fsdp also read", false},
      {"tp", "N", "tensor-parallel degree", false},
      {"pp", "N", "pipeline-parallel degree", false},
      {"vp", "N", "virtual pipeline stages per rank (interleaved 1F1B; 1: not interleaved)", false},
      {"sequence-parallel", "BOOL", "sequence parallelism with TP (default: on when tp > 1)",
       false},
      {"recompute", "R", "activation recomputation: none | selective | full", false},
      {"offload", "O", "none | optimizer | all (ZeRO-3: parameters too)", false},
      {"micro-batch", "N", "sequences per GPU per micro-step", false},
      {"global-batch", "N", "sequences per optimizer step, all GPUs", false},
      {"gpus", "N", "GPUs in the job", false},
      {"vms", "N", "VMs in the job", false},
      {"budget", "USD", "largest cost of the run; the planner picks the VM count", false},
      {"sku", "SIZE", "VM size to plan for (repeatable; default: every catalog size)", true},
      {"dataset-bytes", "BYTES", "dataset size (2TB, 1.5TiB)", false},
      {"sample-bytes", "BYTES", "bytes read per sample (default: seq x token bytes)", false},
      {"tokens", "COUNT", "tokens to train on (default: 20 per parameter)", false},
      {"epochs", "X", "passes over the dataset (with dataset-bytes)", false},
      {"mfu", "X", "model FLOPs utilization assumed, 0-1 (default 0.40)", false},
      {"overlap", "X", "share of backward time that hides communication, 0-1 (default 0.8)", false},
      {"headroom", "X", "share of GPU memory kept free for fragmentation (default 0.10)", false},
      {"ib-efficiency", "X", "share of InfiniBand line rate NCCL reaches (default 0.95)", false},
      {"ethernet-efficiency", "X",
       "share of the front-end NIC NCCL reaches over TCP (default 0.25)", false},
      {"region", "NAME", "price region (default eastus)", false},
      {"spot", "BOOL", "price at the spot rate", false},
      {"price", "SIZE=USD", "USD per VM-hour for a size, overriding the catalog (repeatable)",
       true},
  };
  return keys;
}

namespace {

std::string canonical(std::string_view key) {
  std::string k = to_lower(trim(key));
  for (char& c : k) {
    if (c == '_') c = '-';
  }
  return k;
}

struct Context {
  std::string key;
  std::string value;
  const std::string& file;
  int line;

  [[noreturn]] void fail(const std::string& expected) const {
    throw InputError(file, line, key + " = '" + value + "': expected " + expected);
  }
  int integer(int lo, int hi) const {
    auto v = parse_int(trim(value));
    if (!v || *v < lo || *v > hi)
      fail("a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return static_cast<int>(*v);
  }
  double fraction(double lo, double hi, bool open_low) const {
    auto v = parse_double(trim(value));
    if (!v || !std::isfinite(*v) || *v > hi || *v < lo || (open_low && *v <= lo))
      fail("a number " + std::string(open_low ? "above " : "from ") + format_number(lo) +
           (open_low ? " and up to " : " to ") + format_number(hi));
    return *v;
  }
  // Counts and sizes carry a range that makes physical sense, so a typo such as 1e30 tokens is
  // an error naming the range, not a cost nobody can pay.
  double count(double lo, double hi, const char* range) const {
    auto v = parse_count(value);
    if (!v || *v < lo || *v > hi)
      fail(std::string("a positive count from ") + range + ", such as 8B, 2851M or 7.5e9");
    return *v;
  }
  double bytes(double lo, double hi, const char* range) const {
    auto v = parse_bytes(value);
    if (!v || *v < lo || *v > hi)
      fail(std::string("a positive size from ") + range +
           ", such as 2TB (1e12), 1.5TiB (2^40) or 512G");
    return *v;
  }
  bool boolean() const {
    const std::string v = to_lower(trim(value));
    if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
    if (v == "false" || v == "no" || v == "off" || v == "0") return false;
    fail("true or false");
  }
  template <typename E>
  E choice(std::initializer_list<std::pair<const char*, E>> options) const {
    const std::string v = to_lower(trim(value));
    std::string names;
    for (const auto& [name, e] : options) {
      if (v == name) return e;
      names += (names.empty() ? "" : " | ") + std::string(name);
    }
    fail(names);
  }
};

}  // namespace

void apply_job_setting(JobSpec& job, std::string_view raw_key, std::string_view value,
                       const std::string& file, int line) {
  const Context c{canonical(raw_key), std::string(trim(value)), file, line};
  const std::string& k = c.key;
  const std::string where = line > 0 ? file + ":" + std::to_string(line) : file;
  if (k == "model") {
    const ModelPreset* p = find_model_preset(c.value);
    if (!p) {
      std::string names;
      for (const ModelPreset& m : model_presets()) names += (names.empty() ? "" : ", ") + m.name;
      c.fail("one of " + names + " (or describe the model with params, layers, hidden, heads)");
    }
    job.model = p->name;
  } else if (k == "params") {
    job.params = c.count(1e6, 1e15, "1M to 1000T (1e6 to 1e15)");
  } else if (k == "largest-layer") {
    job.largest_layer = c.count(1, 1e15, "1 to 1e15");
  } else if (k == "layers") {
    job.layers = c.integer(1, 100000);
  } else if (k == "hidden") {
    job.hidden = c.integer(1, 1 << 20);
  } else if (k == "heads") {
    job.heads = c.integer(1, 1 << 16);
  } else if (k == "vocab") {
    job.vocab = c.integer(1, 1 << 26);
  } else if (k == "seq") {
    job.seq = c.integer(1, 1 << 24);
  } else if (k == "precision") {
    job.precision = c.choice<Precision>({{"bf16", Precision::kBf16Mixed},
                                         {"fp16", Precision::kFp16Mixed},
                                         {"fp8", Precision::kFp8Mixed},
                                         {"fp32", Precision::kFp32},
                                         {"bf16-pure", Precision::kBf16Pure}});
  } else if (k == "grad-reduce-dtype") {
    job.grad_reduce_bytes = c.choice<double>({{"bf16", 2.0}, {"fp16", 2.0}, {"fp32", 4.0}});
  } else if (k == "optimizer") {
    job.optimizer = c.choice<Optimizer>({{"adamw", Optimizer::kAdamW},
                                         {"adam", Optimizer::kAdamW},
                                         {"adam8bit", Optimizer::kAdam8Bit},
                                         {"sgd", Optimizer::kSgdMomentum}});
  } else if (k == "convention") {
    job.convention = c.choice<MemoryConvention>({{"paper", MemoryConvention::kPaper},
                                                 {"deepspeed", MemoryConvention::kDeepSpeed},
                                                 {"megatron", MemoryConvention::kMegatron}});
  } else if (k == "zero") {
    job.zero = c.choice<int>({{"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}, {"ddp", 0}, {"fsdp", 3}});
  } else if (k == "tp") {
    job.tp = c.integer(1, 1024);
  } else if (k == "pp") {
    job.pp = c.integer(1, 1024);
  } else if (k == "vp") {
    job.vp = c.integer(1, 128);
  } else if (k == "sequence-parallel") {
    job.sequence_parallel = c.boolean();
  } else if (k == "recompute") {
    job.recompute = c.choice<Recompute>({{"none", Recompute::kNone},
                                         {"selective", Recompute::kSelective},
                                         {"full", Recompute::kFull}});
  } else if (k == "offload") {
    job.offload = c.choice<Offload>(
        {{"none", Offload::kNone}, {"optimizer", Offload::kOptimizer}, {"all", Offload::kAll}});
  } else if (k == "micro-batch") {
    job.micro_batch = c.integer(1, 1 << 12);
  } else if (k == "global-batch") {
    job.global_batch = c.integer(1, 1 << 26);
  } else if (k == "gpus") {
    job.gpus = c.integer(1, 1 << 17);
  } else if (k == "vms") {
    job.vms = c.integer(1, 1 << 14);
  } else if (k == "budget") {
    job.budget_usd = c.fraction(0, 1e12, true);
  } else if (k == "sku") {
    if (c.value.empty()) c.fail("a VM size such as Standard_ND96isr_H100_v5");
    job.skus.push_back(c.value);
  } else if (k == "dataset-bytes") {
    job.dataset_bytes = c.bytes(1, 1e18, "1 B to 1 EB (1e18)");
  } else if (k == "sample-bytes") {
    job.sample_bytes = c.bytes(1, 1e10, "1 B to 10 GB (1e10)");
  } else if (k == "tokens") {
    job.tokens = c.count(1e6, 1e16, "1M to 10000T (1e6 to 1e16)");
  } else if (k == "epochs") {
    job.epochs = c.fraction(0, 1e6, true);
  } else if (k == "mfu") {
    job.mfu = c.fraction(0, 1, true);
  } else if (k == "overlap") {
    job.overlap = c.fraction(0, 1, false);
  } else if (k == "headroom") {
    job.headroom = c.fraction(0, 0.9, false);
  } else if (k == "ib-efficiency") {
    job.ib_efficiency = c.fraction(0, 1, true);
  } else if (k == "ethernet-efficiency") {
    job.ethernet_efficiency = c.fraction(0, 1, true);
  } else if (k == "region") {
    if (c.value.empty()) c.fail("a region name such as eastus");
    job.region = to_lower(c.value);
  } else if (k == "spot") {
    job.spot = c.boolean();
  } else if (k == "price") {
    const std::size_t eq = c.value.find('=');
    auto usd = eq == std::string::npos
                   ? std::nullopt
                   : parse_double(trim(std::string_view(c.value).substr(eq + 1)));
    if (eq == 0 || !usd || !std::isfinite(*usd) || *usd <= 0 || *usd > 1e5)
      c.fail(
          "SIZE=USD per VM-hour above 0 and up to 100000, such as "
          "Standard_ND96isr_H100_v5=98.32");
    job.prices[std::string(trim(std::string_view(c.value).substr(0, eq)))] = *usd;
  } else {
    std::string names;
    for (const JobSettingInfo& i : job_setting_keys())
      names += (names.empty() ? "" : ", ") + std::string(i.key);
    throw InputError(file, line,
                     "unknown key '" + std::string(raw_key) + "'; expected one of " + names);
  }
  job.origin[k] = where;
}

namespace {

[[noreturn]] void fail_on(const JobSpec& job, const std::string& key, const std::string& what) {
  auto it = job.origin.find(key);
  std::string where = it == job.origin.end() ? "job" : it->second;
  throw InputError(where, 0, what);
}

}  // namespace

void finalize_job(JobSpec& job) {
  if (!job.model.empty()) {
    const ModelPreset* p = find_model_preset(job.model);
    const bool reshaped = job.layers || job.hidden || job.vocab;
    auto fill = [&](std::optional<int>& field, int value, const char* key) {
      if (!field) {
        field = value;
        job.origin[key] = "--model " + p->name;
      }
    };
    fill(job.layers, p->layers, "layers");
    fill(job.hidden, p->hidden, "hidden");
    fill(job.heads, p->heads, "heads");
    fill(job.vocab, p->vocab, "vocab");
    fill(job.seq, p->seq, "seq");
    if (!job.params && !reshaped) {
      job.params = p->params;
      job.origin["params"] = "--model " + p->name;
    }
    if (!job.global_batch) {
      job.global_batch = p->global_batch;
      job.origin["global-batch"] = "--model " + p->name;
    }
  }
  if (!job.params) {
    if (!job.layers || !job.hidden)
      throw InputError("job", 0,
                       "no model: pass --model NAME, --params COUNT, or --layers and --hidden");
    const double h = *job.hidden;
    job.params = 12.0 * *job.layers * h * h + static_cast<double>(job.vocab.value_or(0)) * h;
    job.origin["params"] = "12·layers·hidden² + vocab·hidden";
    if (*job.params > 1e15)
      fail_on(job, "layers",
              "layers " + std::to_string(*job.layers) + " and hidden " +
                  std::to_string(*job.hidden) + " make " + format_number(*job.params, 3) +
                  " parameters (12·layers·hidden²): expected at most 1e15");
  }
  if (job.heads && job.hidden && *job.hidden % *job.heads != 0)
    fail_on(job, "heads",
            "hidden (" + std::to_string(*job.hidden) + ") is not a multiple of heads (" +
                std::to_string(*job.heads) + ")");
  if (job.heads && *job.heads % job.tp != 0)
    fail_on(job, "tp",
            "tensor parallelism " + std::to_string(job.tp) + " does not divide the " +
                std::to_string(*job.heads) + " heads");
  if (job.layers && *job.layers < job.pp)
    fail_on(job, "pp",
            "pipeline parallelism " + std::to_string(job.pp) + " exceeds the " +
                std::to_string(*job.layers) + " layers");
  // Megatron-LM's interleaved schedule: --num-layers-per-virtual-pipeline-stage needs the
  // layers per pipeline stage divisible by it, and pipeline parallelism above 1
  // (megatron/training/arguments.py, validate_args).
  if (job.vp > 1 && job.pp < 2)
    fail_on(job, "vp", "virtual pipeline stages need pipeline parallelism (pp 2 or more)");
  if (job.vp > 1 && job.layers && *job.layers % (job.pp * job.vp) != 0)
    fail_on(job, "vp",
            "the " + std::to_string(*job.layers) + " layers do not divide into pp x vp = " +
                std::to_string(job.pp * job.vp) + " virtual stages");
  if (job.offload == Offload::kAll && job.zero != 3)
    fail_on(job, "offload", "offload all (parameters too) needs zero 3");
  if (job.offload != Offload::kNone && job.zero == 0)
    fail_on(job, "offload", "offloading the optimizer needs ZeRO (zero 1, 2 or 3)");
  if (job.gpus && job.vms)
    fail_on(job, "vms", "give gpus or vms, not both (gpus " + std::to_string(*job.gpus) + ")");
  if (job.gpus && *job.gpus % (job.tp * job.pp) != 0)
    fail_on(job, "gpus",
            std::to_string(*job.gpus) +
                " GPUs are not a multiple of tp x pp = " + std::to_string(job.tp * job.pp));
  if (job.epochs && !job.dataset_bytes)
    fail_on(job, "epochs", "epochs needs dataset-bytes (the run is epochs x the dataset)");
  if (job.epochs && job.tokens) fail_on(job, "epochs", "give tokens or epochs, not both");
  if (!job.sequence_parallel) job.sequence_parallel = job.tp > 1;
}

}  // namespace trainready
