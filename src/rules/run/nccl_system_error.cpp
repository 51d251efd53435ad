// nccl-system-error: "unhandled system error" / ncclSystemError.
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclSystemError : public Rule {
 public:
  std::string_view id() const override { return "nccl-system-error"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "NCCL failed with an unhandled system error"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const NcclIssue* i = find_issue(f, NcclProblem::kSystemError);
    if (!i) return {};
    RuleOutcome o;
    Finding x = finding(
        "NCCL stopped with an unhandled system error (ncclSystemError): a "
        "system call failed (socket, memory registration, shared memory)");
    add_issue_evidence(x, *i);
    const std::string common =
        "a node's network is broken or unreachable (or NCCL's sockets use an interface the "
        "peers cannot reach: NCCL picks one itself unless NCCL_SOCKET_IFNAME names it), "
        "/dev/shm too small in a container, RLIMIT_MEMLOCK too low for RDMA registration, too "
        "many open files.";
    x.cause =
        "The failing call is named in the WARN line just before the error; without "
        "NCCL_DEBUG=INFO it is not printed. Common causes: " +
        common;
    if (find_issue(f, NcclProblem::kConnectionFailed))
      x.cause += " This log also shows failed connections (see nccl-connection-failed).";
    x.fix =
        "Rerun with NCCL_DEBUG=INFO to see the WARN line that names the call; check "
        "`ulimit -l` (unlimited), /dev/shm size (--shm-size / --ipc=host), and the node's "
        "network (`trainready doctor`); across nodes, set NCCL_SOCKET_IFNAME to the interface "
        "the nodes reach each other on (NCCL user guide, Troubleshooting > IP Network "
        "Interfaces).";
    x.rank = 40;
    // NCCL_GRAPH_FILE: ncclTopoGetXmlGraphFromFile returns ncclSystemError when it cannot open
    // the file (WARN "Could not open XML graph file %s : %s", src/graph/xml.cc:777 @ v2.7.8-1,
    // :836 @ v2.12.12-1, :1257 @ v2.30.7-1; called from ncclTopoCompute, src/graph/search.cc,
    // only when NCCL_GRAPH_FILE is set). A missing NCCL_TOPO_FILE only warns and init goes on
    // (ncclTopoGetXmlFromFile returns ncclSuccess), so only the graph file is such a cause.
    const auto graph = f.env.find("NCCL_GRAPH_FILE");
    if (graph != f.env.end()) {
      x.evidence.push_back(evidence(graph->second.line));
      x.cause =
          "NCCL_GRAPH_FILE is set (to " + graph->second.value +
          "): NCCL returns ncclSystemError when it cannot open the graph file it names (\"Could "
          "not open XML graph file\", src/graph/xml.cc, ncclTopoGetXmlGraphFromFile), and a "
          "graph written for another machine or VM size forces channels this one does not "
          "have. NCCL_GRAPH_FILE replaces NCCL's own ring/tree search; it is an experiment "
          "setting, not one for production runs. " +
          x.cause;
      x.fix =
          "Unset NCCL_GRAPH_FILE (look in the job's environment, /etc/nccl.conf and "
          "~/.nccl.conf) and rerun; if it is needed, check the path exists on every node "
          "(ls -l \"$NCCL_GRAPH_FILE\") and regenerate it with NCCL_GRAPH_DUMP_FILE on this "
          "machine and NCCL version. " +
          x.fix;
      x.rank = 30;
    }
    // The call that failed is named by the WARN NCCL printed before returning the error: when
    // the knowledge base reads an error WARN, that reading is the cause and this is its
    // consequence, listed after it.
    for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin())) {
      if (r.line.level != NcclKbLevel::kWarn || nccl_kb_severity(r) != Severity::kError) continue;
      x.cause = "The WARN \"" + r.line.message + "\" names the failing call (" + r.entry->id +
                ", its own finding). " + x.cause;
      x.rank = 4;
      break;
    }
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_system_error() { return std::make_unique<NcclSystemError>(); }

}  // namespace trainready
