#pragma once
// What `trainready plan` produces: for each candidate VM size, the predictions (memory, compute,
// communication, data, placement, cost), then a ranking, a recommendation with its reasons and
// the checks to run once the cluster is deployed. Reporters read this and nothing else.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "facts/job_spec.h"
#include "plan/comm_model.h"
#include "plan/compute_model.h"
#include "plan/cost_model.h"
#include "plan/data_model.h"
#include "plan/memory_model.h"
#include "plan/placement_model.h"

namespace trainready {

// How one job is laid out over its GPUs (data parallelism is what is left: gpus / (tp·pp)).
struct Layout {
  int tp = 1;
  int pp = 1;
  Recompute recompute = Recompute::kSelective;
  int micro_batch = 1;
  bool sequence_parallel = false;
  int vp = 1;  // virtual pipeline stages per rank (interleaved 1F1B)
  int ep = 1;  // expert parallelism (MoE): experts sharded over ep data-parallel ranks
};

struct Candidate {
  const SkuEntry* sku = nullptr;
  int vms = 0;
  int gpus = 0;
  int zero = 0;   // the stage planned: the job's, or the least sharding that fits
  Layout layout;  // tp, pp, recomputation, micro-batch this candidate was evaluated with
  int dp = 1;
  int accumulation = 1;
  int global_batch = 0;  // sequences per step, after rounding to whole micro-batches
  double tokens_per_step = 0;
  double peak_tflops = 0;
  std::string peak_precision;
  double mfu = 0;                     // the MFU this candidate was planned at
  std::string mfu_origin;             // "--mfu", a published run, or the planner's default
  bool runnable = true;               // false: the layout cannot run on this size at all
  std::vector<std::string> problems;  // why not runnable, or why it does not fit
  std::vector<std::string> notes;
  MemoryEstimate memory;
  ComputeEstimate compute;
  Quantity busbw;            // what one data-parallel group's all-reduce reaches
  Quantity allreduce_busbw;  // what all_reduce_perf over every GPU of the job should reach
  std::string comm_path;
  CommEstimate comm;
  ModelParallelEstimate model_parallel;  // tensor- and pipeline-parallel traffic, exposed
  DataEstimate data;
  Quantity step_seconds;
  Quantity utilization;
  std::string dominant_wait;  // communication, data, none
  Quantity steps;
  Quantity run_seconds;
  Placement placement;
  std::optional<PriceChoice> price;
  std::optional<CostEstimate> cost;
  std::string why_not;  // against the recommendation

  bool fits() const { return runnable && memory.fits; }
};

struct Plan {
  JobSpec job;
  double bytes_per_token = 0;
  double sample_bytes = 0;
  std::string sample_bytes_origin;
  double total_tokens = 0;
  std::string run_length_origin;
  double dataset_bytes = 0;
  std::string dataset_origin;
  std::string scale_origin;           // "--gpus 16", "fewest VMs that fit", "--budget"
  std::vector<Candidate> candidates;  // ranked, best first
  std::string ranking;                // how they were ranked
  bool recommended = false;           // candidates[0] fits
  std::vector<std::string> reasons;
  std::vector<std::string> checklist;
  std::vector<std::string> hints;  // when nothing fits: what would
  // The layout search (src/plan/layout_search.cpp): what it searched, how many layouts it
  // evaluated, and the best few (the winner first, then the runners-up with why each lost).
  std::string layout_search;  // empty when every dimension was pinned
  int layouts_evaluated = 0;
  std::vector<Candidate> layouts;
};

// Throws InputError when a named --sku is not in the catalog.
Plan make_plan(const JobSpec& job, const Catalog& catalog);

}  // namespace trainready
