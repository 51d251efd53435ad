#include "rules/run/nccl_result_reading.h"

#include <cctype>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "knowledge/nccl_result_causes.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// What the log shows about where the job ran, said in a few words.
std::string context_words(const NcclRunFacts& f, bool container, bool multi_host) {
  std::string w;
  if (container)
    w = "a container (\"" + f.framework.container->what + "\", line " +
        std::to_string(f.framework.container->where.line) + ")";
  if (multi_host) {
    if (!w.empty()) w += " and ";
    w += f.framework.multi_host ? "several hosts (\"" + f.framework.multi_host->what + "\", line " +
                                      std::to_string(f.framework.multi_host->where.line) + ")"
                                : std::string("several hosts (NCCL's lines)");
  }
  return w;
}

// The issues the nccl-* rules only quote back (nccl-warnings): the framework's reading, ranked by
// the log's context, is more than they say. An unhandled system error is nccl-system-error's,
// which reads it with the same ranked causes (rules/run/nccl_result_reading.h).
bool only_quoted_issues(const NcclRunFacts& f) {
  for (const auto& [problem, issue] : f.issues)
    if (problem != NcclProblem::kCudaError && problem != NcclProblem::kInternalError) return false;
  return true;
}

// An error the knowledge base reads from NCCL's own text (a WARN, a "Last error:" line): that
// reading names the failing call, so the log does explain the failure.
bool nccl_text_explains(const NcclRunFacts& f) {
  for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin()))
    if (nccl_kb_severity(r) == Severity::kError) return true;
  return false;
}

}  // namespace

std::vector<const FrameworkEvent*> framework_result_events(const NcclRunFacts& f) {
  // framework-nccl-error reads a crash inside NCCL, or a CUDA failure of nccl-tests' own, instead:
  // a result line beside them is not its reading.
  if (f.framework.first(FrameworkEventKind::kFatalSignal) &&
      !framework_events(f.framework, {FrameworkEventKind::kNcclFrame}).empty())
    return {};
  if (f.framework.first(FrameworkEventKind::kCudaError)) return {};
  if (!only_quoted_issues(f) || !f.timeouts.empty() || nccl_text_explains(f)) return {};
  // A collective's timeout, known from its error's backtrace: nccl-collective-timeout's reading.
  if (f.framework.first(FrameworkEventKind::kWatchdogTimeout)) return {};
  return framework_events(f.framework,
                          {FrameworkEventKind::kNcclError, FrameworkEventKind::kCommAborted});
}

namespace {

// RCCL's, not NCCL's: its own version line, or nccl-tests (rccl-tests) listing AMD GPUs. RCCL
// reports NCCL's result names (it is NCCL's fork), but comes with ROCm, not in NVIDIA's packages.
bool rccl_log(const NcclRunFacts& f) {
  if (f.is_rccl()) return true;
  for (const auto& [h, p] : f.host_profiles)
    for (const std::string& g : p.gpus)
      if (g.rfind("AMD ", 0) == 0 || g.find("Instinct") != std::string::npos ||
          g.find("Radeon") != std::string::npos)
        return true;
  return false;
}

// A fix worded for NVIDIA's packaging of NCCL, said for RCCL where the log is RCCL's.
std::string for_library(std::string fix, bool rccl) {
  static constexpr std::string_view kNccl =
      "upgrade NCCL (a newer PyTorch wheel or nvidia-nccl-cu12 package, or the NGC container)";
  if (const std::size_t at = fix.find(kNccl); rccl && at != std::string::npos)
    fix.replace(at, kNccl.size(),
                "upgrade RCCL (a newer ROCm release, or the ROCm build of the framework or "
                "container that carries a newer RCCL)");
  return fix;
}

}  // namespace

// The result's causes ranked by the log's context: the top one with its confirming experiment,
// the next ones in order. Empty when the table has none for the result.
bool nccl_result_ranked_reading(Finding& x, const NcclRunFacts& f, const std::string& result) {
  const bool container = f.framework.container.has_value();
  const bool multi_host = f.framework.multi_host.has_value() || f.multi_node();
  const auto graph = f.env.find("NCCL_GRAPH_FILE");
  const bool graph_file = graph != f.env.end();
  // The releases the log prints; RCCL numbers its own after the NCCL release it carries.
  std::vector<std::string> versions;
  for (const auto* m : {&f.versions, &f.rccl_versions})
    for (const auto& [v, line] : *m) versions.push_back(v);
  const auto causes =
      ranked_nccl_result_causes(result, container, multi_host, graph_file, versions);
  if (causes.empty()) return false;
  const std::string ctx = context_words(f, container, multi_host);
  const NcclResultCause& top = *causes.front();
  std::string c =
      graph_file ? "The log shows NCCL_GRAPH_FILE set by environment (to " + graph->second.value +
                       ")" + (ctx.empty() ? std::string() : " and " + ctx) +
                       ", which puts the causes in this order"
      : ctx.empty() ? "The log shows neither a container nor a second host, so the causes are in "
                      "their default order"
                    : "The log shows " + ctx + ", which puts the causes in this order";
  c += ". Most likely " + std::string(top.cause) + ". Confirm: " + std::string(top.confirm) + ".";
  const bool rccl = rccl_log(f);
  const std::string top_fix = for_library(std::string(top.fix), rccl);
  std::string fix =
      std::string(1, static_cast<char>(std::toupper(top_fix[0]))) + top_fix.substr(1) + ".";
  for (std::size_t i = 1; i < causes.size(); ++i) {
    c += (i == 1 ? " If not: " : " Then: ") + std::string(causes[i]->cause) +
         " (confirm: " + std::string(causes[i]->confirm) + ").";
    if (i < 3) fix += " If not: " + for_library(std::string(causes[i]->fix), rccl) + ".";
  }
  x.cause += " " + c;
  x.fix = fix +
          " To see the failing call itself, rerun with NCCL_DEBUG=INFO "
          "NCCL_DEBUG_SUBSYS=INIT,NET (NCCL_DEBUG_FILE=/path/nccl.%h.%p.log) and run `trainready "
          "nccl` on those logs.";
  if (graph_file) x.evidence.push_back(evidence(graph->second.line));
  if (container)
    x.evidence.push_back({"the job runs in a container: " + f.framework.container->text,
                          f.framework.container->where});
  if (f.framework.multi_host)
    x.evidence.push_back({"the job spans several hosts: " + f.framework.multi_host->text,
                          f.framework.multi_host->where});
  x.rank = 45;
  return true;
}

}  // namespace trainready
