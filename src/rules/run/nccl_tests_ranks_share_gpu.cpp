// nccl-tests-ranks-share-gpu: several ranks ran on one GPU, so the run measured nothing real.
#include <map>
#include <set>

#include "rules/rule_factories.h"
#include "rules/run/nccl_tests_worlds.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclTestsRanksShareGpu : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-ranks-share-gpu"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Several ranks used the same GPU"; }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    if (t.devices.empty()) {
      // Not a gap in the verdict: excerpts often drop these lines, and nothing else needs them.
      RuleOutcome none;
      none.notes.emplace_back("no 'Using devices' lines, so rank-to-GPU placement was not checked");
      return none;
    }
    std::map<std::string, std::vector<const NcclTestsDevice*>> by_gpu;
    for (const auto& d : t.devices) {
      if (d.bus_id.empty() || d.bus_id == "0x00") continue;  // old versions print no bus id
      // `trainready bench` over MPI: ranks on CPU cores and host memory, no GPU to share.
      if (d.device < 0 && d.bus_id == "cpu") continue;
      by_gpu[d.host + " " + d.bus_id].push_back(&d);
    }
    RuleOutcome o;
    const NcclTestsWorlds worlds = separate_worlds(t);
    for (auto& [gpu, all] : by_gpu) {
      // One rank number printed twice is not two ranks of a job where the lines are two runs'
      // (one after the other) or processes that each ran a job of their own
      // (nccl-tests-separate-jobs reads those).
      std::map<int, const NcclTestsDevice*> first;
      std::vector<const NcclTestsDevice*> ds;
      for (const auto* d : all) {
        auto [it, fresh] = first.emplace(d->rank, d);
        if (!fresh) {
          const NcclTestsDevice* p = it->second;
          const bool other_run =
              p->rows_before != d->rows_before || p->summaries_before != d->summaries_before;
          if (other_run || (worlds.solo.count(p) && worlds.solo.count(d))) continue;
        }
        ds.push_back(d);
      }
      if (ds.size() < 2) continue;
      Finding x = finding(std::to_string(ds.size()) + " ranks share GPU " + gpu +
                          ": the result measures one GPU talking to itself, not an interconnect");
      for (const auto* d : ds)
        x.evidence.push_back({"rank " + std::to_string(d->rank) + " on " + d->host + " device " +
                                  std::to_string(d->device) + " [" + d->bus_id + "]",
                              d->where});
      x.cause =
          "More ranks per node than GPUs, or CUDA_VISIBLE_DEVICES / the launcher's GPU "
          "binding gave every rank the same device.";
      x.fix =
          "Start one rank per GPU (mpirun -np <GPUs>, srun --gpus-per-task=1) or one "
          "process with -g <GPUs>.";
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_ranks_share_gpu() {
  return std::make_unique<NcclTestsRanksShareGpu>();
}

}  // namespace trainready
