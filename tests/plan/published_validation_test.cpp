// Issue 33 item 2: the planner's memory and step-time models against published measurements
// (tests/data/plan/published-runs.tsv, provenance in tests/data/SOURCES.md). Each row is planned
// in the layout it was measured at, through the planner's own models, and compared with what
// was measured:
//  - ran: a Megatron-LM run (NeMo, Megatron-Bridge) completed, so the plan must say it fits in
//    the GPU's memory in the planner's default convention (paper), its 1.5 GiB context included
//    (not its 10 % headroom: a completed run proves only that it needed at most the GPU).
//    Megatron-LM's own count (--convention megatron) is printed beside it and NOT asserted: it
//    exceeds 80 GB for 4 of these 9 runs (llama3-8b, gpt3-175b at 512 GPUs, llama3-70b and
//    405b of Megatron-Bridge), so it is an upper bound for NeMo's recipes, which is why it is
//    not the planner's default;
//  - oom: the run was reported out of memory, so the plan must say it does not fit;
//  - tokens_per_s_per_gpu: the compute model at the planner's default MFU (0.40 of the dense
//    peak, JobSpec::mfu), with the pipeline bubble (p − 1)/(v·m) and full recomputation's 4/3;
//    tolerance ±20 %: the default MFU is one assumption for every run, documented as
//    0.35-0.45 (±12.5 % around 0.40), and the communication terms are not exercised here (the
//    runs' networks are not catalog sizes; the torchtitan GPUs run at 500 W).
//  - peak_memory_gib: torchtitan's reading (the largest across GPUs) against the planner's total
//    per GPU (paper convention, FSDP = ZeRO-3, plus its 1.5 GiB context). With selective
//    recomputation within ±25 %: torchtitan's "selective op" checkpointing keeps a different
//    set of tensors than Korthikanti's selective recomputation, and the reading includes the
//    allocator's reserve. With full recomputation the planner does NOT reproduce torchtitan's
//    readings: it predicts 31-53 % of them (FSDP2 under pipeline parallelism keeps the stage's
//    parameters unsharded, torch.compile and Float8 keep their own buffers, none of it in the
//    ZeRO-3 count); the test holds the planner's figure below the reading (a lower bound) and
//    prints the gap, so a change that closes or widens it shows.
// The test prints each row's prediction before (the models as they were before issue 33 item 2:
// paper convention, no interleaving in memory or bubble) and after, and asserts the after.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "plan/compute_model.h"
#include "plan/memory_model.h"

namespace trainready {
namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kTokensTolerance = 0.20;
constexpr double kMemoryTolerance = 0.25;

struct Row {
  std::string id, source, model;
  ModelShape shape;
  double gpu_mem_gb = 0, peak_tflops = 0;
  int gpus = 0, tp = 1, pp = 1, vp = 1, cp = 1, mbs = 1, gbs = 0;
  Recompute recompute = Recompute::kSelective;
  int zero = 1;
  std::string metric;
  double measured = 0;
  int dp() const { return gpus / (tp * pp * cp); }
  int micro_batches() const { return std::max(1, gbs / (mbs * dp())); }
};

std::vector<Row> load_rows() {
  std::ifstream in(std::string(TR_TEST_DATA) + "/plan/published-runs.tsv");
  EXPECT_TRUE(in) << "tests/data/plan/published-runs.tsv";
  std::vector<Row> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    EXPECT_EQ(f.size(), 27u) << line;
    if (f.size() != 27u) continue;
    Row r;
    r.id = f[0];
    r.source = f[1];
    r.model = f[2];
    ModelShape& m = r.shape;
    m.layers = std::stoi(f[3]);
    m.hidden = std::stoi(f[4]);
    m.heads = std::stoi(f[5]);
    m.kv_heads = std::stoi(f[6]);
    m.ffn_hidden = std::stoi(f[7]);
    m.vocab = std::stoi(f[8]);
    m.gated = f[9] == "1";
    m.untied = f[10] == "1";
    m.rms_norm = f[11] == "1";
    m.params = std::stod(f[12]);
    r.gpu_mem_gb = std::stod(f[13]);
    r.peak_tflops = std::stod(f[14]);
    r.gpus = std::stoi(f[15]);
    r.tp = std::stoi(f[16]);
    r.pp = std::stoi(f[17]);
    r.vp = std::stoi(f[18]);
    r.cp = std::stoi(f[19]);
    r.mbs = std::stoi(f[20]);
    r.gbs = std::stoi(f[21]);
    m.seq = std::stoi(f[22]);
    r.recompute = f[23] == "full"   ? Recompute::kFull
                  : f[23] == "none" ? Recompute::kNone
                                    : Recompute::kSelective;
    r.zero = f[24] == "ddp" ? 0 : f[24] == "distopt" ? 1 : 3;
    r.metric = f[25];
    r.measured = std::stod(f[26]);
    rows.push_back(r);
  }
  return rows;
}

// The planner's memory per GPU for the row's layout. Context parallelism shards the sequence
// (each rank holds seq/cp of every activation); `before` is the model before issue 33 item 2.
MemoryEstimate memory(const Row& r, MemoryConvention convention, bool before) {
  MemoryInputs mi;
  mi.states.params = r.shape.params;
  mi.states.dp = r.dp() * r.cp;  // the distributed optimizer shards over dp × cp
  mi.states.tp = r.tp;
  mi.states.pp = r.pp;
  mi.states.zero = r.zero;
  mi.states.bytes = state_bytes(Precision::kBf16Mixed, Optimizer::kAdamW);
  mi.states.largest_layer_params =
      largest_layer_params(r.shape.hidden, r.shape.vocab, r.shape.params, r.shape.layers);
  ModelShape local = r.shape;
  local.seq = r.shape.seq / r.cp;
  ActivationInputs a;
  a.seq = local.seq;
  a.micro_batch = r.mbs;
  a.hidden = local.hidden;
  a.heads = local.heads;
  a.layers = local.layers;
  a.vocab = local.vocab;
  a.tp = r.tp;
  a.pp = r.pp;
  a.vp = before ? 1 : r.vp;
  a.sequence_parallel = r.tp > 1;
  a.recompute = r.recompute;
  mi.activations = a;
  if (!before) {
    MegatronInputs mg;
    mg.model = local;
    mg.tp = r.tp;
    mg.pp = r.pp;
    mg.vp = r.vp;
    mg.dp = r.dp() * r.cp;
    mg.micro_batch = r.mbs;
    mg.micro_batches = r.micro_batches();
    mg.sequence_parallel = r.tp > 1;
    mg.recompute = r.recompute;
    mg.distributed_optimizer = r.zero >= 1;
    mi.megatron = mg;
  }
  mi.convention = before ? MemoryConvention::kPaper : convention;
  mi.gpu_memory_bytes = r.gpu_mem_gb * 1e9;
  mi.headroom = JobSpec{}.headroom;
  return estimate_memory(mi);
}

double tokens_per_s_per_gpu(const Row& r, bool before) {
  ComputeInputs ci;
  ci.params = r.shape.params;
  ci.layers = r.shape.layers;
  ci.hidden = r.shape.hidden;
  ci.seq = r.shape.seq;
  ci.tokens_per_step = static_cast<double>(r.gbs) * r.shape.seq;
  ci.gpus = r.gpus;
  ci.peak_tflops = r.peak_tflops;
  ci.mfu = JobSpec{}.mfu;
  ci.recompute = r.recompute;
  ci.pp = r.pp;
  ci.vp = before ? 1 : r.vp;
  ci.micro_batches = r.micro_batches();
  const double seconds = estimate_compute(ci).seconds.value;
  return ci.tokens_per_step / (seconds * r.gpus);
}

TEST(PublishedValidation, AtLeastTenMeasuredNumbersWithSources) {
  const std::vector<Row> rows = load_rows();
  EXPECT_GE(rows.size(), 10u);
  std::ifstream sources(std::string(TR_TEST_DATA) + "/SOURCES.md");
  std::stringstream text;
  text << sources.rdbuf();
  for (const Row& r : rows)
    EXPECT_NE(text.str().find("`" + r.source + "`"), std::string::npos)
        << r.id << ": source key " << r.source << " not in tests/data/SOURCES.md";
}

TEST(PublishedValidation, EachRowWithinItsTolerance) {
  int scored = 0;
  for (const Row& r : load_rows()) {
    SCOPED_TRACE(r.id);
    if (r.metric == "tokens_per_s_per_gpu") {
      const double before = tokens_per_s_per_gpu(r, true);
      const double after = tokens_per_s_per_gpu(r, false);
      std::cout << "[validation] " << r.id << " tokens/s/GPU measured " << r.measured << " before "
                << std::lround(before) << " (" << std::lround(100 * (before / r.measured - 1))
                << " %) after " << std::lround(after) << " ("
                << std::lround(100 * (after / r.measured - 1)) << " %)\n";
      EXPECT_NEAR(after / r.measured, 1.0, kTokensTolerance);
      // The run completed: the planner's total for its layout (default convention, context
      // included) is within the GPU's memory. Not the usable memory: the 10 % headroom is the
      // planner's margin, and a completed run proves only that it needed at most the GPU.
      const MemoryEstimate m = memory(r, MemoryConvention::kPaper, false);
      const MemoryEstimate mg = memory(r, MemoryConvention::kMegatron, false);
      const MemoryEstimate b = memory(r, MemoryConvention::kPaper, true);
      ++scored;
      if (r.source.rfind("torchtitan", 0) == 0) continue;  // not Megatron: its memory rows below
      std::cout << "[validation] " << r.id << " ran in " << r.gpu_mem_gb << " GB: paper total "
                << m.total.value / 1e9 << " GB (before " << b.total.value / 1e9
                << " GB); Megatron-LM's count " << mg.total.value / 1e9 << " GB ("
                << mg.convention_used << ")\n";
      EXPECT_LE(m.total.value, r.gpu_mem_gb * 1e9);
      ++scored;
    } else if (r.metric == "peak_memory_gib") {
      const MemoryEstimate m = memory(r, MemoryConvention::kPaper, false);
      const MemoryEstimate b = memory(r, MemoryConvention::kPaper, true);
      std::cout << "[validation] " << r.id << " peak GiB measured " << r.measured << " before "
                << b.total.value / kGiB << " after " << m.total.value / kGiB << "\n";
      if (r.recompute == Recompute::kFull) {
        EXPECT_LT(m.total.value / kGiB, r.measured);  // a lower bound, not a reproduction
      } else {
        EXPECT_NEAR(m.total.value / kGiB / r.measured, 1.0, kMemoryTolerance);
      }
      ++scored;
    } else if (r.metric == "oom") {
      const MemoryEstimate m = memory(r, MemoryConvention::kPaper, false);
      std::cout << "[validation] " << r.id << " reported OOM on " << r.gpu_mem_gb << " GB: planned "
                << m.total.value / 1e9 << " GB\n";
      EXPECT_FALSE(m.fits);
      ++scored;
    } else {
      ADD_FAILURE() << "unknown metric " << r.metric;
    }
  }
  EXPECT_GE(scored, 10);
}

}  // namespace
}  // namespace trainready
