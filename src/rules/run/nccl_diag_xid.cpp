// nccl-diag-xid: NCCL 2.32's RAS diagnostics found Xid (GPU) or SXid (NVSwitch) events in a
// host's kernel log (src/ras/diagnostics_xid.cc @ NVIDIA/nccl 12df1a1). The scan reads /dev/kmsg,
// else `dmesg`, else kern.log / messages / syslog, and keeps only the events between the start of
// NCCL's RAS service (the first communicator's init) or its previous scan and now: every event it
// reports happened while this job ran, none is left over from before a repair.
//
// An Xid is judged with the measure gpu-xid-errors uses for the current boot (xid_judgement.h:
// AzNHC's list, then NVIDIA's catalog), never below a warning, since NCCL itself did not call it
// harmless; NCCL's own "resetting the affected GPU" makes it an error. NCCL's [OK] events (Xid
// 63, 106, 107 and the non-fatal SXids it lists) are no finding.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "catalog/xid_catalog.h"
#include "rules/node/xid_judgement.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

Severity at_least_warning(Severity s) {
  return s == Severity::kError ? Severity::kError : Severity::kWarning;
}

// "Xid 79 (GPU has fallen off the bus)": the catalog's description where it has the code.
std::string xid_label(long long code) {
  std::string s = "Xid " + std::to_string(code);
  if (const auto info = xid_info(static_cast<int>(code)); info && !info->description.empty())
    s += " (" + std::string(info->description) + ")";
  return s;
}

// The hosts the lines name, as run rules list names ("a, b and 3 more").
std::string host_list(const std::vector<const NcclDiagResult*>& xs) {
  std::set<std::string> hosts;
  for (const NcclDiagResult* x : xs) hosts.insert(x->node.empty() ? "?" : x->node);
  return join_limited(hosts, 4);
}

class NcclDiagXid : public Rule {
 public:
  std::string_view id() const override { return "nccl-diag-xid"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "NCCL's RAS diagnostics found GPU (Xid) or NVSwitch (SXid) errors during the job";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclDiagFacts& g = ctx.nccl_log->diagnostics;
    RuleOutcome o;
    // One finding per event kind, code and NCCL's guidance, its hosts together.
    std::map<std::tuple<bool, long long, std::string>, std::vector<const NcclDiagResult*>> by;
    std::vector<const NcclDiagResult*> partial;
    for (const NcclDiagResult& x : g.results) {
      if (x.check != NcclDiagCheck::kXid) continue;
      // An SXid's `what` is the driver's class; an Xid's is NCCL's guidance.
      const bool sxid = x.what == "fatal" || x.what == "non-fatal" || x.what == "unclassified";
      if (x.verdict == NcclDiagVerdict::kFlagged && x.code >= 0)
        by[{sxid, x.code, x.what}].push_back(&x);
      else if (x.verdict == NcclDiagVerdict::kIncomplete ||
               x.verdict == NcclDiagVerdict::kUnavailable || x.what == "unread")
        partial.push_back(&x);
    }
    for (const auto& [key, xs] : by) {
      const auto& [sxid, code, what] = key;
      std::string counts;
      for (std::size_t i = 0; i < xs.size() && i < 4; ++i)
        if (!xs[i]->count.empty())
          counts += (counts.empty() ? "" : ", ") + xs[i]->count + " on " +
                    (xs[i]->node.empty() ? std::string("?") : xs[i]->node);
      Finding f;
      if (sxid) {
        f = finding("NCCL's RAS diagnostics: " + std::string(what == "fatal" ? "fatal " : "") +
                    "NVSwitch SXid " + std::to_string(code) + " on host(s) " + host_list(xs) +
                    (xs.front()->detail.empty() ? "" : ", " + xs.front()->detail) +
                    " during this job");
        if (what == "fatal") {
          f.severity = Severity::kError;
          f.rank = 90;
          f.cause =
              "The NVSwitch driver classed the error fatal on those links: NVLink traffic of "
              "the GPUs behind them fails, and the job's collectives over NVLink fail or hang. "
              "NCCL's scan covers only the time since its RAS service started, so the error "
              "happened during this job.";
          f.fix =
              "Drain the node from the scheduler (Slurm: `scontrol update nodename=<host> "
              "state=drain reason=\"SXid " +
              std::to_string(code) +
              "\"`) and follow the response NVIDIA's Fabric Manager user guide gives for a fatal "
              "SXid (the link says which); a fatal NVSwitch error is cleared by resetting the "
              "NVSwitches and GPUs, which a reboot does. Confirm with `nvidia-smi nvlink "
              "--status` and an all_reduce_perf run on the node before it takes jobs again.";
        } else {
          f.severity = Severity::kWarning;
          f.rank = 60;
          f.cause =
              std::string(what == "non-fatal"
                              ? "The NVSwitch driver reported a non-fatal error that NCCL does "
                                "not list as harmless"
                              : "The NVSwitch driver reported an error without its class") +
              ": the driver recovers from a non-fatal SXid, but links that keep reporting "
              "them lose bandwidth or fail later.";
          f.fix =
              "Look the code up in NVIDIA's Fabric Manager user guide (SXid errors); if it "
              "repeats across jobs on the same links, drain the node and report it.";
        }
      } else {
        f = finding("NCCL's RAS diagnostics: " + xid_label(code) + " on host(s) " + host_list(xs) +
                    " during this job");
        Severity s = at_least_warning(xid_severity(static_cast<int>(code)));
        if (what == "reset GPU") s = Severity::kError;
        if (what == "pre-Ampere" && !aznhc_fails_on_xid(static_cast<int>(code)))
          s = Severity::kWarning;  // the catalog's buckets are Ampere's and newer
        f.severity = s;
        f.rank = s == Severity::kError ? 88 : 58;
        const std::string guidance =
            what == "reset GPU"             ? "resetting the GPU (NVIDIA's Xid catalog)"
            : what == "restart application" ? "restarting the application"
            : what == "pre-Ampere"          ? "the archived Xid documentation (a pre-Ampere GPU)"
                                            : "the Xid catalog's response";
        f.cause = "The NVIDIA driver logged " + xid_label(code) + " on " + host_list(xs) +
                  " while this job ran (" + (counts.empty() ? "count not printed" : counts) +
                  "): NCCL scans the kernel log only from its RAS service's start, so the "
                  "event is not one left from before a repair. NCCL's guidance: " +
                  guidance + ".";
        f.fix = xid_action(static_cast<int>(code)) +
                (s == Severity::kError
                     ? " Drain the node first so the scheduler gives it no new job; `trainready "
                       "doctor` there reads the same kernel log with each event's time and GPU."
                     : " `trainready doctor` on the node reads the kernel log with each "
                       "event's time and GPU.");
      }
      for (std::size_t i = 0; i < xs.size() && i < 6; ++i)
        f.evidence.push_back(evidence(xs[i]->line));
      o.findings.push_back(std::move(f));
    }
    if (!partial.empty()) {
      std::vector<const NcclDiagResult*> unscanned;
      for (const NcclDiagResult* x : partial)
        if (x->what != "unread") unscanned.push_back(x);
      std::string msg =
          unscanned.empty()
              ? "NCCL's RAS diagnostics printed Xid/SXid results in a wording this tool does not "
                "read (quoted)"
              : "NCCL's RAS diagnostics could not scan the kernel log for Xid/SXid events on "
                "host(s) " +
                    host_list(unscanned);
      if (!unscanned.empty() && unscanned.size() < partial.size())
        msg += "; other Xid/SXid lines are in a wording this tool does not read (quoted)";
      Finding f = finding(msg);
      f.severity = Severity::kInfo;
      f.rank = 20;
      for (std::size_t i = 0; i < partial.size() && i < 4; ++i)
        f.evidence.push_back(evidence(partial[i]->line));
      f.cause =
          "NCCL reads /dev/kmsg, then `dmesg`, then /var/log/kern.log, messages or syslog; on "
          "a host where none could be read (a container without /dev/kmsg, or "
          "kernel.dmesg_restrict=1 without CAP_SYSLOG) it reports no source, and it reports a "
          "truncated scan when the log held more than it reads (4 MiB of /dev/kmsg, 1 MiB of "
          "dmesg, the last 4 MiB of a file) or more than 64 distinct events.";
      f.fix =
          "Run `trainready doctor` on those hosts (outside the container), which reads the "
          "node's kernel log with its own Xid rule, or give the job's container read access to "
          "the kernel log.";
      o.findings.push_back(std::move(f));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_diag_xid() { return std::make_unique<NcclDiagXid>(); }

}  // namespace trainready
