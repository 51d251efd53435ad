// nccl-warnings: NCCL WARN lines and CUDA / internal errors no other rule explains.
#include <algorithm>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "knowledge/nccl_problem_words.h"
#include "rules/rule_factories.h"
#include "rules/run/nccl_result_reading.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// The ncclResult_t a CUDA or internal-error issue stands for when every line of it quotes NCCL's
// result text (ncclGetErrorString: "unhandled cuda error", "internal error", "invalid usage")
// and none is a WARN, which names the failing call itself; "" otherwise.
std::string quoted_result(NcclProblem p, const NcclIssue& i) {
  if (i.examples.empty()) return "";
  bool usage = true;
  for (const LogLine& l : i.examples) {
    if (l.text.find("WARN") != std::string::npos) return "";
    const bool cuda = l.text.find("unhandled cuda error") != std::string::npos;
    const bool internal = l.text.find("internal error") != std::string::npos;
    const bool invalid = l.text.find("invalid usage") != std::string::npos;
    if (p == NcclProblem::kCudaError ? !cuda : !(internal || invalid)) return "";
    usage = usage && invalid && !internal;
  }
  if (p == NcclProblem::kCudaError) return "ncclUnhandledCudaError";
  return usage ? "ncclInvalidUsage" : "ncclInternalError";
}

class NcclWarnings : public Rule {
 public:
  std::string_view id() const override { return "nccl-warnings"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Other NCCL warnings and errors"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    RuleOutcome o;
    struct Kind {
      NcclProblem p;
      int codes[2];  // the ncclResult_t values of this kind (src/nccl.h.in)
      const char* what;
      Severity sev;
      const char* cause;
      const char* fix;
    };
    static const Kind kinds[] = {
        {NcclProblem::kCudaError,
         {1, 1},
         "CUDA error(s) inside NCCL",
         Severity::kError,
         "A CUDA call failed inside NCCL: out of memory, an Xid / GPU fault, or a driver and "
         "CUDA runtime that do not match.",
         "Check `dmesg` for Xid errors and `nvidia-smi` on the host; run `trainready doctor`. "
         "The log shows NCCL's result, not the WARN that names the call: capture every rank's "
         "log with NCCL_DEBUG=INFO (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p) and the framework's whole "
         "error (its 'Last error:' lines), and run `trainready nccl` on them."},
        {NcclProblem::kInternalError,
         {3, 5},
         "NCCL internal error / invalid usage",
         Severity::kError,
         "NCCL rejected a call: mismatched collectives or arguments between ranks, or a bug.",
         "Check that every rank issues the same collectives with the same sizes; update NCCL. "
         "The log shows NCCL's result, not the WARN that names the check that failed: capture "
         "every rank's log with NCCL_DEBUG=INFO (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p) and the "
         "framework's whole error (its 'Last error:' lines), and run `trainready nccl` on them."},
    };
    // What the knowledge base explains (nccl-message, nccl-known-signature) is not quoted back.
    std::set<std::string> explained;
    // The failures the knowledge base reads (error severity): where each was first printed, and
    // for NCCL's error trail ("file:line -> 3") the ncclResult_t it returned.
    struct Failure {
      Provenance where;
      int code = 0;
      bool last_error = false;  // the message a framework printed under "Last error:"
    };
    std::vector<Failure> failures;
    for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin())) {
      explained.insert(r.messages.begin(), r.messages.end());
      if (nccl_kb_severity(r) != Severity::kError) continue;
      int code = 0;
      if (const std::size_t a = r.line.message.find("-> ");
          r.line.trail && a != std::string::npos && a + 3 < r.line.message.size())
        code = r.line.message[a + 3] - '0';
      const bool last_error = std::any_of(
          f.last_error_messages.begin(), f.last_error_messages.end(), [&](const Provenance& p) {
            return p.source == r.line.line.where.source && p.line == r.line.line.where.line;
          });
      failures.push_back({r.line.line.where, code, last_error});
    }
    // A result code is that failure's result when, in the same file before it, the knowledge
    // base read a line of the same kind (NCCL's "Cuda failure '...'" WARN, then the framework's
    // "unhandled cuda error"), or NCCL's error trail returned that code (the WARN where the call
    // failed, then "-> 3" from every caller up to the API the framework called,
    // src/include/checks.h), or a failure it reads was pasted right above it (an excerpt without
    // the trail). Quoting it again as an unexplained error would hide the reading; an earlier
    // failure of another kind far above it (an async event, a bootstrap WARN before a CUDA
    // error) does not cover it.
    constexpr int kPastedAbove = 8;  // lines between a WARN and the result pasted under it
    // The result, its description, "Last error:", the message: three lines, more where a terminal
    // wrapped the long result line.
    constexpr int kLastErrorBelow = 16;
    auto follows_a_failure = [&](const LogLine& l, const Kind& k,
                                 const std::vector<const LogLine*>& read_kind) {
      auto before_l = [&](const Provenance& p) {
        return p.source == l.where.source && p.line > 0 && p.line <= l.where.line;
      };
      for (const LogLine* x : read_kind)
        if (before_l(x->where)) return true;
      for (const Failure& x : failures) {
        if (before_l(x.where) && ((x.code != 0 && (x.code == k.codes[0] || x.code == k.codes[1])) ||
                                  l.where.line - x.where.line <= kPastedAbove))
          return true;
        // PyTorch prints the result first and NCCL's last WARN under it ("ncclInternalError:
        // Internal check failed.", "Last error:", the message: c10d's
        // getNcclErrorDetailStr, torch/csrc/distributed/c10d/NCCLUtils.cpp): the message read
        // under "Last error:" that close below is the one it reports (a rank's WARN is not).
        if (x.last_error && x.where.source == l.where.source && x.where.line > l.where.line &&
            x.where.line - l.where.line <= kLastErrorBelow)
          return true;
      }
      return false;
    };
    // The framework's failure line that framework-nccl-error reads with its ranked causes.
    const auto framework_read = framework_result_events(f);
    auto framework_reads = [&](const LogLine& l) {
      for (const FrameworkEvent* e : framework_read)
        if (e->where.source == l.where.source &&
            (e->where.line == l.where.line || e->text == l.text))
          return true;
      return false;
    };
    auto is_explained = [&](const std::string& text) {
      for (const std::string& m : explained)
        if (!m.empty() && text.find(m) != std::string::npos) return true;
      return false;
    };
    for (const Kind& k : kinds) {
      const NcclIssue* i = find_issue(f, k.p);
      if (!i) continue;
      // A CUDA or internal error the knowledge base reads (every example line kept: the first
      // few, NCCL's WARNs among them) is its finding.
      bool all = !i->examples.empty();
      std::vector<const LogLine*> read_kind;  // this kind's lines the knowledge base reads
      for (const LogLine& l : i->examples)
        if (is_explained(l.text)) read_kind.push_back(&l);
      for (const LogLine& l : i->examples)
        all = all &&
              (is_explained(l.text) || framework_reads(l) || follows_a_failure(l, k, read_kind));
      if (all) continue;
      Finding x = finding(std::string(k.what) + ": " + std::to_string(i->count) + " line(s)");
      x.severity = k.sev;
      add_issue_evidence(x, *i);
      x.cause = k.cause;
      x.fix = k.fix;
      // Only NCCL's result quoted (no WARN that names the call): the result's causes, ranked by
      // the log's context, as framework-nccl-error reads the same result from a framework's
      // line (one failure, one account).
      if (const std::string result = quoted_result(k.p, *i); !result.empty()) {
        Finding ranked = x;
        ranked.cause = std::string(k.p == NcclProblem::kCudaError
                                       ? "A CUDA call failed inside NCCL."
                                       : "NCCL rejected a call or failed an internal check.") +
                       " The log quotes NCCL's result (" + result +
                       "), not the WARN that names the failing call.";
        if (nccl_result_ranked_reading(ranked, f, result)) x = std::move(ranked);
      }
      x.rank = 8;
      o.findings.push_back(std::move(x));
    }
    // Every other distinct WARN line surfaces: none is dropped because no pattern knows it.
    // Those the signature table or another rule explains are left to that finding: in the
    // words the log reader files them by (knowledge/nccl_problem_words.h and
    // src/parsers/nccl_log_problems.cpp), so a WARN those words miss ("Got completionfrom peer"
    // from a bad paste, "Connect to ... failed : Software caused connection abort") is quoted.
    static constexpr std::string_view kOwned[] = {
        "ibv_modify_qp failed", "Mismatched NCCL version", "version mismatch", "libibverbs",
        "unhandled system error", "ncclSystemError", "Cuda failure", "unhandled cuda error",
        "CUDA error", "internal error", "invalid usage", "ncclInternalError",
        // NCCL's result names, read by the result
        // reading (nccl_result_reading.h)
        "ncclInvalidUsage", "ncclInvalidArgument", "ncclUnhandledCudaError"};
    std::vector<const NcclWarning*> other;
    std::uint64_t lines = 0;
    for (const NcclWarning& w : f.warnings) {
      if (explained.count(w.message)) continue;
      auto has = [&](std::string_view k) { return w.message.find(k) != std::string::npos; };
      bool owned = has("NET/IB") && has("No device found");  // nccl-inter-node-not-ib
      for (std::string_view k : kOwned) owned = owned || has(k);
      for (std::string_view k : kNcclConnectionFailureWords) owned = owned || has(k);
      for (std::string_view k : kNcclIbCompletionWords) owned = owned || has(k);
      if (owned) continue;
      other.push_back(&w);
      lines += w.count;
    }
    if (!other.empty()) {
      Finding x =
          finding("NCCL warning(s) no other finding explains: " + std::to_string(other.size()) +
                  " distinct, " + std::to_string(lines) + " line(s)");
      std::set<std::string> hosts;
      for (const NcclWarning* w : other) {
        if (x.evidence.size() < 8)
          x.evidence.push_back(
              {w->first.text + (w->count > 1 ? " (x" + std::to_string(w->count) + ")" : ""),
               w->first.where});
        hosts.insert(w->hosts.begin(), w->hosts.end());
      }
      if (!hosts.empty()) x.evidence.push_back({"on " + join_limited(hosts), {}});
      x.cause =
          "NCCL printed WARN lines that neither the knowledge base of NCCL's messages nor "
          "another rule explains; the first WARN in time is usually where the failure started.";
      x.fix =
          "Read the quoted lines, the first in time first. To place them, capture every rank's "
          "log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV (NCCL_DEBUG_FILE="
          "/tmp/nccl.%h.%p writes one file per process), with the framework's own error, and "
          "run `trainready nccl` on all of them.";
      x.rank = 5;
      o.findings.push_back(std::move(x));
    }
    // The network libraries' own warnings (libfabric's with FI_LOG_LEVEL set, UCX's by default)
    // that no entry of the knowledge base reads: one finding per library.
    for (const auto& [library, count] : f.library_warn_lines) {
      std::vector<const NcclRunFacts::LibraryWarning*> unread;
      std::set<std::string> providers;
      bool errors = false, fatal = false;
      for (const auto& w : f.library_warnings)
        if (w.library == library && !explained.count(w.message)) {
          unread.push_back(&w);
          providers.insert(w.provider);
          errors = errors || w.level == "ERROR";
          fatal = fatal || w.level == "FATAL";
        }
      if (unread.empty()) continue;
      const bool ucx = library == "UCX";
      Finding x = finding(library +
                          (fatal    ? " fatal error(s)"
                           : errors ? " error(s)"
                                    : " warning(s)") +
                          " no other finding explains: " + std::to_string(unread.size()) +
                          " place(s) in its source, " + (ucx ? "component " : "provider ") +
                          join_limited(providers) + " (" + std::to_string(count) + " line(s) of " +
                          library + "'s in all)");
      for (const auto* w : unread)
        if (x.evidence.size() < 8) x.evidence.push_back({w->line.text, w->line.where});
      if (ucx) {
        // UCX prints WARN by default, and many of its warnings are routine (src/ucs/config/
        // parser.c "unused environment variable", src/ucs/datastruct/mpool.c "was not returned
        // to mpool", at exit): a note unless UCX reports an error.
        if (!errors && !fatal) x.severity = Severity::kInfo;
        // A fatal error aborts the process that printed it (src/ucs/debug/assert.c
        // ucs_fatal_error_message: abort()), so the run stops there.
        if (fatal) x.severity = Severity::kError;
        x.cause =
            std::string(fatal ? "UCX stopped the process that printed the fatal line: ucs_fatal "
                                "and a failed assertion end in abort() (src/ucs/debug/assert.c), "
                                "and from UCX 1.6 so does an error as severe as "
                                "UCX_LOG_LEVEL_TRIGGER (fatal by default); the ranks waiting on "
                                "that process fail or hang after it. "
                              : "UCX printed these (it prints WARN and above by default, and many "
                                "of its warnings are routine: an unused UCX_* variable, objects "
                                "not returned to a memory pool at exit). ") +
            "Neither the knowledge base nor another rule explains them. UCX carries MPI's own "
            "traffic when the launcher's MPI uses it (Open MPI's or HPC-X's ucx pml) and NCCL's "
            "only through the HPC-X net plugin's UCX transport; an error, or a device or "
            "transport it names as unavailable, matters to those.";
        x.fix =
            "Read the quoted lines: a device or transport it names as unavailable is worth "
            "checking with `ucx_info -d` on the host (and UCX_NET_DEVICES / UCX_TLS in the job); "
            "NCCL's own lines (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET) say whether NCCL "
            "uses UCX at all: the HPC-X plugin's UCX transport is \"NET/UCX\" in its connection "
            "lines (src/ucx_plugin.c .name = \"UCX\", nccl-rdma-sharp-plugins).";
      } else {
        x.cause =
            "libfabric, the fabric library an OFI net plugin (aws-ofi-nccl) runs NCCL's traffic "
            "on, printed warnings (FI_LOG_LEVEL is set) that neither the knowledge base nor "
            "another rule explains. A warning while the plugin probes providers (fi_getinfo at "
            "init) can be harmless when it then selects one; one during the run is not.";
        x.fix =
            "Read the quoted lines with the plugin's own lines around them (NCCL_DEBUG=INFO "
            "NCCL_DEBUG_SUBSYS=INIT,NET prints the provider the plugin selected, \"NET/OFI "
            "Selected provider is efa ...\", and the plugin's WARNs); check the provider on the "
            "host with `fi_info -p <provider>`, and run `trainready nccl` on every rank's log "
            "with FI_LOG_LEVEL=warn kept.";
      }
      x.rank = 4;
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_warnings() { return std::make_unique<NcclWarnings>(); }

}  // namespace trainready
