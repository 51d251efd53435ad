// nhc-check-failed: a node health checker's failure line in the log (LBNL NHC's "Health check
// failed:", which Azure's AzNHC prints for its own checks): the node failed that check, and the
// check names what it saw. Its meaning comes from the checks' own source (catalog/node_reasons).
// AzNHC's NCCL all-reduce checks print the bandwidth they measured and the floor they expected.
#include <cstdlib>
#include <optional>

#include "catalog/node_reasons.h"
#include "core/text.h"
#include "core/units.h"
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// The number after `key` in `t` ("expected >=431.0 GB/s", "measured 15.1043 GB/s").
std::optional<double> number_after(const std::string& t, std::string_view key) {
  const std::size_t p = t.find(key);
  if (p == std::string::npos) return std::nullopt;
  const char* s = t.c_str() + p + key.size();
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !(v >= 0)) return std::nullopt;
  return v;
}

class NhcCheckFailed : public Rule {
 public:
  std::string_view id() const override { return "nhc-check-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A node health check (NHC, AzNHC) failed on the node";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto events = framework_events(f.framework, {FrameworkEventKind::kHealthCheckFailed});
    if (events.empty())
      return RuleOutcome::does_not_apply(
          "the log holds no node health check's failure line (\"Health check failed:\")");
    RuleOutcome o;
    for (const FrameworkEvent* e : events) o.findings.push_back(judge(*e, f.framework));
    return o;
  }

 private:
  Finding judge(const FrameworkEvent& e, const FrameworkFacts& fw) const {
    // distributed_nhc's health log names the node first ("mynode-066 | ERROR: nhc: ...").
    std::string who = "The node";
    const std::size_t bar = e.text.find(" | ");
    if (bar != std::string::npos && bar < 64 && e.text.find("Health check failed:") > bar)
      who = "Node " + e.text.substr(0, bar);
    const bool allreduce = e.detail.rfind("check_nccl_allreduce", 0) == 0;
    const bool loopback = e.detail == "check_nccl_allreduce_ib_loopback";
    const auto expected = number_after(e.text, "expected >=");
    const auto measured = number_after(e.text, "measured ");
    std::string what = who + " failed the health check " + e.detail;
    if (e.detail == kNhcNoResultCheck)
      what = who + " sent back no health check result (distributed_nhc: \"No results reported\")";
    if (e.detail.empty()) {
      // The message names no check function (older AzNHC checks, site checks): quote it.
      std::string said = e.text.substr(e.text.find("Health check failed:") + 20);
      said = std::string(trim(said));
      if (said.size() > 100) said = said.substr(0, 97) + "...";
      what = who + " failed a health check: " + said;
    }
    if (allreduce && expected && measured && *expected > 0)
      what += ": NCCL all-reduce bus bandwidth " + format_gbytes_per_s(*measured) + ", " +
              format_number(100.0 * *measured / *expected, 3) + " % of the " +
              format_gbytes_per_s(*expected) + " the check expects";
    if (e.count > 1) what += " (" + std::to_string(e.count) + " lines like it)";
    Finding x = finding(what);
    if (e.detail == kNhcNoResultCheck) x.severity = Severity::kWarning;  // unknown, not failed
    x.evidence.push_back(framework_evidence(e));
    const NodeReasonMeaning* m = node_reason_meaning(e.detail.empty() ? e.text : e.detail);
    if (m) {
      x.cause = std::string(m->meaning);
      x.fix = std::string(m->fix);
      x.evidence.push_back({"meaning of this check: " + std::string(m->source), {"catalog", 0}});
    } else {
      x.cause =
          "A node health check (LBNL NHC, or a site or vendor check NHC runs, such as AzNHC's) "
          "failed; the text after 'Health check failed:' names the check and what it saw. NHC "
          "marks the node offline in the scheduler when it runs from it.";
      x.fix =
          "Run `nhc -v` (AzNHC: its run-health-checks.sh) on the node to see the failing check "
          "and fix what it names; NHC resumes a node it took offline once the check passes.";
    }
    // AzNHC's check_nccl_allreduce forced the image's topology file before 67ca751
    // (customTests/azure_nccl_allreduce.nhc: "-x NCCL_TOPO_FILE=$TOPOFILE" -> "-x
    // NCCL_TOPO_FILE="), the fix for azurehpc-health-checks#142 (healthy ND H200 v5 VMs at
    // ~15 GB/s against a 431 GB/s floor).
    if (allreduce && !loopback && fw.topo_file) {
      x.severity = Severity::kWarning;
      x.message += " - with NCCL_TOPO_FILE forced on the check's own run";
      // The setting itself: the command line around it is long (its launcher, paths, flags).
      x.evidence.insert(x.evidence.begin() + 1,
                        {fw.topo_file->what + " on the check's command line", fw.topo_file->where});
      x.cause =
          "The check's command forces NCCL's topology (" + fw.topo_file->what +
          "). AzNHC releases before 67ca751 (2025-06-26, 'Removing topology file') passed the "
          "image's topology file to this all-reduce, and on ND H100 / H200 v5 VMs it measured "
          "about 15 GB/s on healthy hosts (azurehpc-health-checks#142: 'an artifact of the "
          "image and test setup and not an actual issue with the host'; the fix, #143, runs "
          "it with NCCL_TOPO_FILE empty). A topology file that does not describe this VM "
          "leaves NCCL a graph without the NVLink paths it has. Until a run without it fails "
          "too, this is the check's setup, not the node.";
      x.fix =
          "Update azurehpc-health-checks to a release after 67ca751 (or run the same mpirun "
          "with -x NCCL_TOPO_FILE= ) and rerun the check before draining or reporting the node. "
          "If it still fails without the file: `nvidia-smi nvlink --status`, `systemctl status "
          "nvidia-fabricmanager`, and all_reduce_perf -g 8 with NCCL_DEBUG=INFO through "
          "`trainready nccl`.";
    }
    x.rank = 50;
    return x;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nhc_check_failed() { return std::make_unique<NhcCheckFailed>(); }

}  // namespace trainready
