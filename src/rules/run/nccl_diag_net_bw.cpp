// nccl-diag-net-bw: NCCL's network check (NCCL_RUN_DIAGNOSTICS=1, 2.32+: ib_write_bw from
// perftest between the ranks' NICs, src/diagnostics/ib_write_bw.cc) found ranks more than 30 %
// off the median, or pairs it could not measure.
#include <cstdint>
#include <set>
#include <string>

#include "core/text.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclDiagNetBw : public Rule {
 public:
  std::string_view id() const override { return "nccl-diag-net-bw"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL's own network check found slow NICs or pairs it could not measure";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclDiagFacts& g = ctx.nccl_log->diagnostics;
    std::vector<const NcclDiagResult*> slow, failed, partial;
    std::set<std::string> pairs;  // a pair's server and client both print its failure
    std::uint64_t more_slow = 0;  // "N more ranks >30% off median", past the first 8 of a mode
    const NcclDiagResult* stats = nullptr;
    for (const NcclDiagResult& x : g.results) {
      if (x.check != NcclDiagCheck::kNetBw) continue;
      if (x.what == "outlier" && x.ranks.empty() && !x.detail.empty())
        more_slow += static_cast<std::uint64_t>(parse_int(x.detail).value_or(0));
      else if (x.what == "outlier")
        slow.push_back(&x);
      else if (x.what == "pair failed" && pairs.insert(x.ranks).second)
        failed.push_back(&x);
      else if (x.verdict == NcclDiagVerdict::kIncomplete)
        partial.push_back(&x);
      else if (x.what == "statistics" && x.verdict == NcclDiagVerdict::kFlagged && !stats)
        stats = &x;
    }
    RuleOutcome o;
    if (!slow.empty() || more_slow > 0 || (stats && failed.empty() && partial.empty())) {
      const std::uint64_t n = slow.size() + more_slow;
      Finding f = finding(n == 0 ? std::string("NCCL's network check flagged its bandwidth figures")
                                 : std::to_string(n) +
                                       " rank(s) measured more than 30 % off the median "
                                       "bandwidth");
      if (stats) f.evidence.push_back(evidence(stats->line));
      for (std::size_t i = 0; i < slow.size() && i < 6; ++i)
        f.evidence.push_back(evidence(slow[i]->line));
      f.rank = 70;
      f.cause =
          "ib_write_bw between these ranks' NICs ran far below the others: a NIC or port at a "
          "lower speed or width, a degraded cable or switch port, a NIC on a slower PCIe link, "
          "or, for cross-nic figures only, traffic that leaves its rail.";
      f.fix =
          "On the host named, check the NIC's rate (`ibstat`: Rate and Physical state), its PCIe "
          "link (`lspci -vv`: LnkSta against LnkCap) and the port's error counters "
          "(`perfquery`), then rerun `ib_write_bw` between it and a good host.";
      o.findings.push_back(std::move(f));
    }
    if (!failed.empty() || !partial.empty()) {
      const bool tool = [&] {
        for (const auto* x : partial)
          if (x->what == "tool missing") return true;
        for (const auto* x : failed)
          if (x->detail == "tool missing") return true;
        return false;
      }();
      Finding f = finding(failed.empty() ? "NCCL's network check could not run"
                                         : std::to_string(failed.size()) +
                                               " NIC pair(s) NCCL's network check could not "
                                               "measure");
      f.severity = failed.empty() ? Severity::kInfo : Severity::kWarning;
      for (const auto* x : failed)
        if (f.evidence.size() < 4) f.evidence.push_back(evidence(x->line));
      for (const auto* x : partial)
        if (f.evidence.size() < 6) f.evidence.push_back(evidence(x->line));
      f.rank = 40;
      f.cause = tool ? "The check runs perftest's `ib_write_bw` on every host; it is not "
                       "installed (or not on PATH) on some of them."
                     : "The check's setup or a measurement failed (the line says which: no "
                       "usable IB device, a timeout, a peer that did not answer).";
      f.fix = tool ? "Install perftest (the package that ships ib_write_bw) on every node and "
                     "rerun with NCCL_RUN_DIAGNOSTICS=1."
                   : "Run `ib_write_bw` by hand between the hosts the line names; "
                     "NCCL_DIAGNOSTICS_IB_BW_TIMEOUT (seconds, default 5) gives the check more "
                     "time.";
      o.findings.push_back(std::move(f));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_diag_net_bw() { return std::make_unique<NcclDiagNetBw>(); }

}  // namespace trainready
