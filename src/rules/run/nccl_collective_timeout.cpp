// nccl-collective-timeout: a collective never finished (the framework watchdog fired).
#include <map>
#include <set>

#include "core/units.h"
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
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
    if (f.timeouts.empty() && f.lagging.empty()) return frames_only(f);
    RuleOutcome o;
    std::string what;
    if (!f.timeouts.empty()) {
      const CollectiveTimeout& t = f.timeouts.front();
      what = "Collective " + (t.op.empty() ? std::string("operation") : t.op) +
             (t.seq >= 0 ? " #" + std::to_string(t.seq) : "") + " timed out" +
             (t.timeout_ms >= 0 ? " after " + std::to_string(t.timeout_ms) + " ms" : "") +
             (rank_of(t) >= 0 ? " on rank " + std::to_string(rank_of(t)) : "");
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
      // The bar's line is often a timeout line already quoted (the watchdog's error printed
      // after the bar's carriage return): quote it once.
      bool quoted = false;
      for (const Evidence& e : x.evidence)
        quoted = quoted || (e.where.source == bar->where.source && e.where.line == bar->where.line);
      if (!quoted) x.evidence.push_back(evidence(LogLine{bar->text, bar->where}));
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
    if (lag.empty() && compare_ranks(f.timeouts, x)) {
      o.findings.push_back(std::move(x));
      return o;
    }
    if (!lag.empty()) {
      x.cause += "Rank(s) " + join_limited(lag) + " never joined" +
                 (hosts.empty() ? "" : " (on " + join_limited(hosts) + ")") +
                 ": they crashed, hung before the call, or run different code (a collective "
                 "mismatch).";
    } else if (first_collective(f.timeouts)) {
      // PyTorch's SeqNum counts a process group's collectives from 1 (ProcessGroupNCCL's
      // seqCollective_): the group's first collective never finished. Either a rank had not
      // reached it, or the group's first traffic stalled; a later collective's timeout has a
      // training step's causes besides.
      x.cause +=
          "The process group's first collective (SeqNum 1) never finished: either a rank had "
          "not reached it yet (still preparing or downloading data, or gone), or the group's "
          "first traffic stalled - NCCL's connections for that communicator or its first "
          "transfer over them (peer-to-peer between PCIe GPUs that ACS or the IOMMU blocks "
          "hangs instead of failing; a network path that does not carry the traffic).";
    } else {
      x.cause +=
          "A rank stopped making progress: a crashed or stuck process, a rank still busy "
          "with work the others do not do (evaluation, checkpoint saving or data preparation "
          "on rank 0 alone while the others already wait in the next collective), or a "
          "network path that stalls (IB errors, a dead link).";
    }
    x.fix =
        "Look at the lagging ranks' hosts first (their own logs, `dmesg`, "
        "`trainready doctor`); rerun with TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and "
        "NCCL_DEBUG=INFO. If every rank joined, the code issues collectives in different "
        "orders on different ranks.";
    if (lag.empty() && first_collective(f.timeouts))
      x.fix =
          "If one rank was still busy before its first collective (data preparation on rank 0 "
          "alone), do that work before init_process_group or on every rank, or raise the "
          "timeout (init_process_group(..., timeout=datetime.timedelta(hours=2))). If every "
          "rank reached it, the first traffic stalled: rerun with NCCL_DEBUG=INFO "
          "NCCL_DEBUG_SUBSYS=INIT,NET (each rank's last lines show the connection it set up "
          "last); on one host try NCCL_P2P_DISABLE=1 - if the job then runs, PCIe peer-to-peer "
          "is blocked (disable ACS on the PCIe switches, or set the IOMMU to passthrough: "
          "NCCL's troubleshooting guide); across hosts, check the interface and network NCCL "
          "chose (NCCL_SOCKET_IFNAME, NCCL_IB_HCA).";
    else if (lag.empty())
      x.fix +=
          " Work done on one rank only (if rank == 0: evaluate, save) must finish within the "
          "timeout or run on every rank; otherwise raise it "
          "(init_process_group(..., timeout=datetime.timedelta(hours=2))).";
    x.rank = 20;
    o.findings.push_back(std::move(x));
    return o;
  }

 private:
  // Every timeout the log holds is of a process group's first collective (SeqNum 1).
  // Point-to-point work (SEND, RECV, and the COALESCED group of them) is left out: PyTorch
  // numbered it with the collectives' counter before 2.4, so its SeqNum is no first collective.
  static bool first_collective(const std::vector<CollectiveTimeout>& ts) {
    if (ts.empty()) return false;
    for (const CollectiveTimeout& t : ts)
      if (t.seq != 1 || t.op == "SEND" || t.op == "RECV" || t.op == "COALESCED") return false;
    return true;
  }

  // The process group a watchdog line names ("[PG 0 (default_pg) Rank 7]", "[PG ID 1 PG GUID
  // 1(tp) Rank 3]"), "" when it names none: sequence numbers count per group. PyTorch's timeout
  // line itself carries only "[Rank N]", so this is mostly "".
  static std::string group_of(const std::string& text) {
    const std::size_t p = text.find("[PG ");
    if (p == std::string::npos) return "";
    const std::size_t r = text.find(" Rank ", p);
    return r == std::string::npos ? "" : text.substr(p, r - p);
  }

  // The rank a watchdog line names, in either prefix ("[Rank 7]", "[PG ID 1 ... Rank 3]").
  static int rank_of(const CollectiveTimeout& t) {
    if (t.rank >= 0) return t.rank;
    const std::string& s = t.line.text;
    for (std::size_t p = s.find("Rank "); p != std::string::npos; p = s.find("Rank ", p + 5)) {
      std::size_t q = p + 5;
      long v = 0;
      while (q < s.size() && q < p + 13 && s[q] >= '0' && s[q] <= '9') v = v * 10 + (s[q++] - '0');
      if (q > p + 5 && q < s.size() && s[q] == ']') return static_cast<int>(v);
    }
    return -1;
  }

  // Ranks' timeouts side by side (PyTorch's watchdog reports, per rank, the oldest collective the
  // rank still waits in, with its process group's SeqNum and OpType): one SeqNum with different
  // collectives is a collective mismatch. Point-to-point operations (SEND, RECV) are numbered
  // apart from collectives and pair with each other, so they are left out; a rank seen at two
  // numbers (two groups, or two runs in one file) rules the comparison out. Different numbers
  // are not compared: the lines do not say which process group each belongs to, and groups count
  // apart. Sets the cause and fix and returns true on a mismatch.
  static bool compare_ranks(const std::vector<CollectiveTimeout>& ts, Finding& x) {
    std::map<std::string, std::map<long, std::map<std::string, std::set<int>>>> by_group;
    std::map<std::string, std::map<int, std::set<long>>> seqs_of;
    for (const CollectiveTimeout& t : ts) {
      const int rank = rank_of(t);
      if (rank < 0 || t.seq < 0 || t.op.empty() || t.op == "SEND" || t.op == "RECV") continue;
      const std::string g = group_of(t.line.text);
      by_group[g][t.seq][t.op].insert(rank);
      seqs_of[g][rank].insert(t.seq);
    }
    auto ranks_text = [](const std::set<int>& r) {
      std::set<std::string> s;
      for (int i : r) s.insert(std::to_string(i));
      return std::string(r.size() == 1 ? "rank " : "ranks ") + join_limited(s);
    };
    for (const auto& [group, seqs] : by_group) {
      bool one_each = true;
      for (const auto& [rank, numbers] : seqs_of[group]) one_each = one_each && numbers.size() == 1;
      if (!one_each) continue;
      for (const auto& [seq, ops] : seqs) {
        if (ops.size() < 2) continue;
        std::string who;
        for (const auto& [op, ranks] : ops)
          who += (who.empty() ? "" : " and ") + ranks_text(ranks) + " in " + op;
        x.cause +=
            "At SeqNum " + std::to_string(seq) + " " + who +
            ": the ranks issued different collectives at the same position of the process "
            "group's sequence, so none of them can complete - a collective mismatch (code that "
            "issues a collective on some ranks only or in another order: a branch on the rank, "
            "an uneven number of batches or steps, a data-dependent loop).";
        if (group.empty())
          x.cause +=
              " (The timeout lines do not name their process group, and groups number their "
              "collectives apart: the reading holds if these timeouts are of one group - the "
              "'failure detected by watchdog' line after each names it.)";
        x.fix =
            "Find the code that issues collectives depending on the rank or the data. Rerun "
            "with TORCH_DISTRIBUTED_DEBUG=DETAIL, which checks before each collective that "
            "every rank calls the same one with the same shapes and names the ranks that "
            "differ, or TORCH_NCCL_DESYNC_DEBUG=1.";
        x.rank = 65;
        return true;
      }
    }
    return false;
  }

  // Only the timeout error's backtrace is in the excerpt ("Exception raised from checkTimeout",
  // a frame in WorkNCCL::checkTimeout): PyTorch builds that error only when a collective ran past
  // its timeout (nccl_framework.cpp), but the line naming the collective, its sequence number,
  // the timeout and the rank is not here.
  RuleOutcome frames_only(const NcclRunFacts& f) const {
    const auto events = framework_events(f.framework, {FrameworkEventKind::kWatchdogTimeout});
    if (events.empty()) return {};
    Finding x = finding(
        "A collective timed out: PyTorch's watchdog built its timeout error (the backtrace "
        "names WorkNCCL::checkTimeout), but the line that names the collective is not in the "
        "log");
    for (std::size_t i = 0; i < events.size() && i < 2; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    x.cause =
        "ProcessGroupNCCL's watchdog builds that error only when a collective ran past the "
        "process group's timeout, and (with PyTorch's default TORCH_NCCL_ASYNC_ERROR_HANDLING) "
        "then takes the process down. Every rank waits in a "
        "collective until all ranks join: one rank stopped making progress (a crashed or stuck "
        "process; a rank still busy outside the collectives, such as evaluation, checkpoint "
        "saving or data preparation done on rank 0 alone while the others already wait in the "
        "next collective; a network path that stalls), or the ranks issued different "
        "collectives.";
    x.fix =
        "Find the line before the backtrace, \"[Rank N] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=..., OpType=..., Timeout(ms)=...) ran for ... milliseconds\", "
        "on every rank, and run `trainready nccl` on the whole logs: the ranks whose sequence "
        "number is lowest, or that never timed out, are the ones the others waited for. Rerun "
        "with NCCL_DEBUG=INFO and TORCH_NCCL_DUMP_ON_TIMEOUT=1 to see where each rank stopped. "
        "Work done on one rank only (if rank == 0: evaluate, save) must finish within the "
        "timeout or run on every rank; otherwise raise it "
        "(init_process_group(..., timeout=datetime.timedelta(hours=2))).";
    x.onset = {events.front()->where, events.front()->time, ""};
    x.consequence = true;
    x.rank = 20;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_collective_timeout() {
  return std::make_unique<NcclCollectiveTimeout>();
}

}  // namespace trainready
