// The layout search (issue 33 item 1): tensor, pipeline and data parallelism, recomputation and
// micro-batch searched when the job leaves them open, every layout through the planner's models.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "catalog/catalog.h"
#include "plan/layout_search.h"
#include "plan/plan.h"
#include "support/paths.h"
#include "support/plan_jobs.h"
#include "support/run_cli.h"

namespace trainready {
namespace {

using test::job;

constexpr const char* kNdH100 = "Standard_ND96isr_H100_v5";

// The example: llama3-70b on 64 GPUs did not fit at tp 1 and the planner only hinted
// "it fits with --tp 4". Now it searches and recommends a layout that fits.
TEST(LayoutSearch, Llama70bOn64H100GetsALayoutThatFits) {
  Plan p = make_plan(job({{"model", "llama3-70b"}, {"gpus", "64"}, {"sku", kNdH100}}),
                     Catalog::builtin());
  ASSERT_TRUE(p.recommended) << (p.hints.empty() ? "" : p.hints.front());
  const Candidate& w = p.candidates.front();
  EXPECT_TRUE(w.fits());
  EXPECT_EQ(w.gpus, 64);
  EXPECT_EQ(w.layout.tp * w.layout.pp * w.dp, 64);
  EXPECT_FALSE(p.layout_search.empty());
  ASSERT_GE(p.layouts.size(), 2u);
  EXPECT_EQ(p.layouts.front().layout.tp, w.layout.tp);
  EXPECT_TRUE(p.layouts.front().why_not.empty());
  for (std::size_t i = 1; i < p.layouts.size(); ++i) {
    EXPECT_FALSE(p.layouts[i].why_not.empty());
    if (p.layouts[i].fits()) {
      EXPECT_GE(p.layouts[i].run_seconds.value, w.run_seconds.value);
    }
  }
  // The report and --emit describe the winner.
  EXPECT_EQ(p.job.tp, w.layout.tp);
  EXPECT_EQ(p.job.pp, w.layout.pp);
}

TEST(LayoutSearch, EmitWritesTheWinnerWithoutExtraFlags) {
  const std::string dir = test::temp_dir("layout-search-emit");
  auto r = test::run_trainready({"plan", "--model", "llama3-70b", "--gpus", "64", "--sku", kNdH100,
                                 "--emit", "arm", "-o", dir});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("RECOMMENDED: 8 × Standard_ND96isr_H100_v5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Layouts ("), std::string::npos);
  std::ifstream in(dir + "/azuredeploy.json");
  ASSERT_TRUE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("Standard_ND96isr_H100_v5"), std::string::npos);
}

TEST(LayoutSearch, PinnedTensorParallelismIsRespected) {
  Plan p = make_plan(job({{"model", "llama3-70b"}, {"gpus", "64"}, {"sku", kNdH100}, {"tp", "2"}}),
                     Catalog::builtin());
  ASSERT_FALSE(p.layouts.empty());
  for (const Candidate& c : p.layouts) EXPECT_EQ(c.layout.tp, 2);
  EXPECT_EQ(p.job.tp, 2);
  EXPECT_NE(p.layout_search.find("pinned by --tp"), std::string::npos);
}

TEST(LayoutSearch, AllDimensionsPinnedMeansNoSearch) {
  Plan p = make_plan(job({{"model", "llama3-8b"},
                          {"gpus", "16"},
                          {"tp", "1"},
                          {"pp", "1"},
                          {"recompute", "selective"},
                          {"micro-batch", "1"}}),
                     Catalog::builtin());
  EXPECT_TRUE(p.layout_search.empty());
  EXPECT_TRUE(p.layouts.empty());
}

TEST(LayoutSearch, TooBigForAnyLayoutNamesTheNearestMiss) {
  Plan p = make_plan(job({{"params", "2e12"},
                          {"layers", "16"},
                          {"hidden", "32768"},
                          {"heads", "64"},
                          {"gpus", "8"},
                          {"sku", kNdH100}}),
                     Catalog::builtin());
  ASSERT_FALSE(p.recommended);
  ASSERT_EQ(p.layouts.size(), 1u);
  EXPECT_NE(p.layouts.front().why_not.find("does not fit"), std::string::npos);
  ASSERT_FALSE(p.hints.empty());
  EXPECT_NE(p.hints.front().find("nearest miss"), std::string::npos) << p.hints.front();
  // The nearest miss shards everything: ZeRO-3, full recomputation.
  EXPECT_EQ(p.layouts.front().zero, 3);
}

// Every layout keeps Megatron's constraints: tp inside a VM, dividing the query and KV heads;
// pp dividing the layers; tp·pp dividing the GPUs.
TEST(LayoutSearch, ConstraintsHoldForEveryLayout) {
  for (const char* gpus : {"8", "64", "512"}) {
    Plan p = make_plan(job({{"model", "llama3-70b"}, {"gpus", gpus}}), Catalog::builtin());
    std::vector<const Candidate*> all;
    for (const Candidate& c : p.candidates) all.push_back(&c);
    for (const Candidate& c : p.layouts) all.push_back(&c);
    for (const Candidate* c : all) {
      EXPECT_LE(c->layout.tp, c->sku->gpu_count) << c->sku->name;
      EXPECT_EQ(64 % c->layout.tp, 0);
      EXPECT_EQ(8 % c->layout.tp, 0);  // KV heads (GQA)
      EXPECT_EQ(80 % c->layout.pp, 0);
      EXPECT_EQ(80 % (c->layout.pp * c->layout.vp), 0);  // interleaving: layers % (p·v)
      if (c->layout.vp > 1) {
        EXPECT_GE(c->layout.pp, 2);
      }
      EXPECT_EQ(c->gpus % (c->layout.tp * c->layout.pp), 0);
      EXPECT_EQ(c->layout.sequence_parallel, c->layout.tp > 1);
    }
  }
  // 12 heads: tp 8 never divides them.
  Plan q = make_plan(job({{"params", "1e9"},
                          {"layers", "24"},
                          {"hidden", "1536"},
                          {"heads", "12"},
                          {"gpus", "8"},
                          {"sku", kNdH100}}),
                     Catalog::builtin());
  ASSERT_FALSE(q.layouts.empty());
  for (const Candidate& c : q.layouts) EXPECT_NE(c.layout.tp, 8);
  EXPECT_LE(layout_count(q.job, {1e9, 24, 1536, 12, 0, 2048}, *q.candidates.front().sku),
            3 * 22 * 3 * 4);  // tp {1,2,4} × (8 divisors of 24 as pp + 14 interleavings with
                              // 2-8 virtual stages dividing the layers per stage) × recompute ×
                              // micro-batch
}

// Known by hand: tp, recomputation, micro-batch and ZeRO pinned, one VM of 8 H200, llama3-8b's
// batch of 128. Only pp varies; compute is the same FLOPs over the same GPUs, so the step grows
// with the 1F1B bubble (pp − 1)/m, m = 128 / dp micro-batches: pp 2 → 1/32, pp 4 → 3/64,
// pp 8 → 7/128 (Narayanan et al. 2021 §2.2.1). pp 1 wins, then 2, 4, 8.
TEST(LayoutSearch, RankingKnownByHandFollowsThePipelineBubble) {
  Plan p = make_plan(job({{"model", "llama3-8b"},
                          {"gpus", "8"},
                          {"sku", "Standard_ND96isr_H200_v5"},
                          {"tp", "1"},
                          {"vp", "1"},
                          {"zero", "1"},
                          {"recompute", "selective"},
                          {"micro-batch", "1"}}),
                     Catalog::builtin());
  ASSERT_TRUE(p.recommended);
  ASSERT_EQ(p.layouts.size(), 4u);
  const int expected_pp[] = {1, 2, 4, 8};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(p.layouts[i].layout.pp, expected_pp[i]);
  const double base = p.layouts[0].compute.seconds.value;
  EXPECT_NEAR(p.layouts[1].compute.seconds.value / base, 1 + 1.0 / 32, 1e-9);
  EXPECT_NEAR(p.layouts[2].compute.seconds.value / base, 1 + 3.0 / 64, 1e-9);
  EXPECT_NEAR(p.layouts[3].compute.seconds.value / base, 1 + 7.0 / 128, 1e-9);
  EXPECT_NE(p.layouts[1].why_not.find("pipeline bubble 3.1 %"), std::string::npos)
      << p.layouts[1].why_not;
}

// The search stays small: never more layouts than tp × (pp, vp) × recompute × micro-batch per
// size (1344 for llama3-70b on 8-GPU VMs: 4 tp, 28 pipeline shapes — 9 divisors of 80 up to 64,
// 19 interleavings with 2-8 virtual stages — 3 recomputations, 4 micro-batches), whatever the
// scale; bench/plan_search_bench.cpp times it.
TEST(LayoutSearch, CandidateCountIsBounded) {
  const Catalog& cat = Catalog::builtin();
  for (const char* gpus : {"8", "4096"}) {
    Plan p = make_plan(job({{"model", "llama3-70b"}, {"gpus", gpus}}), cat);
    int bound = 0;
    for (const SkuEntry& s : cat.skus())
      bound += layout_count(p.job, {70.6e9, 80, 8192, 64, 128256, 8192}, s);
    EXPECT_GT(p.layouts_evaluated, 0);
    EXPECT_LE(p.layouts_evaluated, bound);
    EXPECT_LE(bound, 1344 * static_cast<int>(cat.skus().size()));
  }
}

TEST(LayoutSearch, TensorParallelTrafficIsCountedOverNvlink) {
  ModelParallelInputs in;
  in.tp = 8;
  in.pp = 1;
  in.layers = 80;
  in.hidden = 8192;
  in.seq = 8192;
  in.micro_batch = 1;
  in.micro_batches = 2;
  in.tp_busbw = 350e9;
  const ModelParallelEstimate e = estimate_model_parallel(in);
  // 2 micro-batches × 80 layers × 4 all-reduces × 8192·8192·2 B × 2·7/8 / 350 GB/s.
  EXPECT_NEAR(e.tp_seconds.value, 2 * 80 * 4 * (8192.0 * 8192 * 2) * 1.75 / 350e9, 1e-12);
  EXPECT_EQ(e.pp_seconds.value, 0);
  in.full_recompute = true;
  EXPECT_NEAR(estimate_model_parallel(in).tp_seconds.value / e.tp_seconds.value, 1.5, 1e-12);
}

}  // namespace
}  // namespace trainready
