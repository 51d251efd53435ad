// nccl-collective-timeout: a collective never finished (the framework watchdog fired).
#include "core/units.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclCollectiveTimeout : public Rule {
 public:
  std::string_view id() const override { return "nccl-collective-timeout"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A collective timed out (watchdog), a rank hung or left";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    if (f.timeouts.empty() && f.lagging.empty()) return {};
    RuleOutcome o;
    std::string what;
    if (!f.timeouts.empty()) {
      const CollectiveTimeout& t = f.timeouts.front();
      what = "Collective " + (t.op.empty() ? std::string("operation") : t.op) +
             (t.seq >= 0 ? " #" + std::to_string(t.seq) : "") + " timed out" +
             (t.timeout_ms >= 0 ? " after " + std::to_string(t.timeout_ms) + " ms" : "") +
             (t.rank >= 0 ? " on rank " + std::to_string(t.rank) : "");
      if (f.timeouts.size() > 1) what += " (" + std::to_string(f.timeouts.size()) + " timeouts)";
    } else {
      what = "The desync report names ranks that did not join a collective";
    }
    Finding x = finding(what);
    // A collective times out because a rank stopped: after an earlier failure, that failure.
    if (!f.timeouts.empty()) {
      std::vector<LogLine> lines;
      for (const CollectiveTimeout& t : f.timeouts) lines.push_back(t.line);
      x.onset = first_onset(lines);
      x.consequence = true;
    }
    for (std::size_t i = 0; i < f.timeouts.size() && i < 4; ++i)
      x.evidence.push_back(evidence(f.timeouts[i].line));
    std::set<std::string> lag;
    for (const auto& l : f.lagging) {
      x.evidence.push_back(evidence(l.line));
      if (l.rank >= 0) lag.insert(std::to_string(l.rank));
    }
    // Map lagging ranks to hosts when the NCCL lines say where each rank ran.
    std::set<std::string> hosts;
    for (const auto& [id, c] : f.comms) {
      for (const auto& l : f.lagging) {
        auto it = c.rank_hosts.find(l.rank);
        if (it != c.rank_hosts.end()) hosts.insert(it->second);
      }
    }
    x.cause = "Every rank waits in the collective until all ranks join. ";
    // A step the job showed a progress bar for, projected to run longer than the timeout: a
    // rank was still doing it (preprocessing, downloading, tokenising on one rank) while the
    // others waited in the collective (PyTorch's init_process_group `timeout` bounds that wait).
    // Only among the process group's first collectives (PyTorch's SeqNum counts them from 1): a
    // training loop's own bar, with collectives in every step, is not work outside them.
    constexpr long kFirstCollectives = 16;
    const std::optional<ProgressBar>& bar = f.framework.longest_progress;
    const CollectiveTimeout* t = f.timeouts.empty() ? nullptr : &f.timeouts.front();
    bool early = t != nullptr;
    for (const CollectiveTimeout& c : f.timeouts)
      early = early && c.seq >= 0 && c.seq <= kFirstCollectives;
    if (bar && early && t->timeout_ms > 0 && bar->projected_s() * 1000 >= t->timeout_ms) {
      x.evidence.push_back(evidence(LogLine{bar->text, bar->where}));
      x.cause +=
          "A rank was still busy outside the collectives when the others reached the job's "
          "first ones (SeqNum " +
          std::to_string(t->seq) + "): the progress bar " +
          (bar->desc.empty() ? std::string() : "'" + bar->desc + "' ") + "shows a step of " +
          format_duration(bar->elapsed_s) + " so far" +
          (bar->remaining_s > 0 ? " with " + format_duration(bar->remaining_s) + " to go" : "") +
          ", longer than the " + format_duration(t->timeout_ms / 1000.0) +
          " the other ranks may wait in a collective, so they timed out waiting for it. Work "
          "done on one rank (preparing or downloading data, tokenising, compiling) while the "
          "others already sit in a collective is the usual way there.";
      x.fix =
          "Do that work before init_process_group, or on every rank at once; or raise the "
          "wait for that phase "
          "(init_process_group(..., timeout=datetime.timedelta(hours=2)), or a new group with "
          "a longer timeout for it). Confirm: the timeouts' rank list leaves out the rank that "
          "printed the bar, and the step's duration exceeds Timeout(ms).";
      x.rank = 60;
      o.findings.push_back(std::move(x));
      return o;
    }
    if (!lag.empty()) {
      x.cause += "Rank(s) " + join_limited(lag) + " never joined" +
                 (hosts.empty() ? "" : " (on " + join_limited(hosts) + ")") +
                 ": they crashed, hung before the call, or run different code (a collective "
                 "mismatch).";
    } else {
      x.cause +=
          "A rank stopped making progress: a crashed or stuck process, or a network "
          "path that stalls (IB errors, a dead link).";
    }
    x.fix =
        "Look at the lagging ranks' hosts first (their own logs, `dmesg`, "
        "`trainready doctor`); rerun with TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and "
        "NCCL_DEBUG=INFO. If every rank joined, the code issues collectives in different "
        "orders on different ranks.";
    x.rank = 20;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_collective_timeout() {
  return std::make_unique<NcclCollectiveTimeout>();
}

}  // namespace trainready
