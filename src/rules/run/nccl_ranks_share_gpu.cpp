// nccl-ranks-share-gpu: two ranks of one communicator print the same host and the same GPU (bus
// id) on their Init START lines. From 2.5 NCCL refuses that at init ("Duplicate GPU detected",
// src/init.cc), a WARN an excerpt may not reach; the knowledge base reads the WARN itself.
#include <map>
#include <tuple>
#include <vector>

#include "facts/nccl_host_label.h"
#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclRanksShareGpu : public Rule {
 public:
  std::string_view id() const override { return "nccl-ranks-share-gpu"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Two ranks of one communicator are on the same GPU of one host";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // NCCL's own WARN says it: its knowledge-base reading (duplicate-gpu) is the finding.
    for (const NcclWarning& w : f.warnings)
      if (w.message.find("Duplicate GPU detected") != std::string::npos) return {};
    // The streams by (host, bus id, ranks in a communicator of that size): a rank is a stream's
    // in the first communicator it joined, with the bus id of that communicator's init line.
    std::map<std::tuple<std::string, std::string, int>, std::vector<const NcclStream*>> by_gpu;
    for (const auto& [k, s] : f.streams)
      if (!s.bus_id.empty() && s.rank >= 0 && s.nranks > 1 && !s.host.empty() &&
          s.host != kUnprefixedHost)
        by_gpu[{s.host, s.bus_id, s.nranks}].push_back(&s);
    for (const auto& [key, streams] : by_gpu) {
      const NcclStream* a = streams.front();
      const NcclStream* b = nullptr;
      for (const NcclStream* s : streams)
        if (s->rank != a->rank) {
          b = s;
          break;
        }
      if (!b) continue;
      const auto& [host, bus, nranks] = key;
      Finding x = finding("Ranks " + std::to_string(a->rank) + " and " + std::to_string(b->rank) +
                          " of a " + std::to_string(nranks) + "-rank communicator are both on " +
                          host + "'s GPU " + bus);
      x.evidence.push_back(
          {"rank " + std::to_string(a->rank) + " (pid " + std::to_string(a->pid) + ") busId " + bus,
           a->first_seen});
      x.evidence.push_back(
          {"rank " + std::to_string(b->rank) + " (pid " + std::to_string(b->pid) + ") busId " + bus,
           b->first_seen});
      x.rank = 90;
      // The causes and fix of NCCL's own WARN, from its knowledge-base entry (one text for both).
      const NcclKbEntry* e = NcclKnowledgeBase::builtin().find("duplicate-gpu");
      const NcclKbCause* c = e && !e->causes.empty() ? &e->causes.front() : nullptr;
      x.cause = (c ? c->cause + " " : std::string()) +
                "From 2.5 NCCL refuses this at init: \"Duplicate GPU detected : rank A and rank B "
                "both on CUDA device X\", then ncclInvalidUsage (src/init.cc:736-737, "
                "initTransportsRank, @ v2.27.7-1), a WARN this log may not reach. Only if these "
                "are two machines that share one hostname is it not this: NCCL 2.5+ tells such "
                "machines apart by their boot id.";
      x.fix = (c ? c->fix + " Confirm: " + c->confirm : std::string()) +
              " If the ranks may run on two machines: `hostname` on each.";
      RuleOutcome o;
      o.findings.push_back(std::move(x));
      return o;
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ranks_share_gpu() { return std::make_unique<NcclRanksShareGpu>(); }

}  // namespace trainready
