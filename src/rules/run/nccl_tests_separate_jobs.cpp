// nccl-tests-separate-jobs: several processes each ran nccl-tests as a job of its own (each its
// rank 0 of one process), so nothing crossed between them. Read from the table's layout, as
// nccl-tests prints it (src/common.cu run() at v2.19.6): built with MPI=1, only the process of
// MPI rank 0 prints the header, one "Using devices" list with every rank and one summary; built
// without it, every process is rank 0 of a world of one and prints all three. Processes started
// together print those lines together, with no result row between them; runs one after the
// other (a script running each test) print a table or a new start between them and stay quiet
// (rules/run/nccl_tests_worlds.cpp).
#include "rules/rule_factories.h"
#include "rules/run/nccl_tests_worlds.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclTestsSeparateJobs : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-separate-jobs"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Each process ran nccl-tests as a job of its own";
  }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    if (t.from_json)
      return RuleOutcome::skip(
          "nccl-tests' JSON output is MPI rank 0's alone: no process to "
          "tell apart");
    // NCCL's own communicator lines beside the table say who was in which job better than the
    // table's layout: nccl-separate-jobs reads them (one finding for one cause).
    if (ctx.nccl_log && !ctx.nccl_log->comms.empty())
      return RuleOutcome::does_not_apply(
          "the log's communicator lines are read by nccl-separate-jobs");
    // A failure in the log (a NCCL WARN, nccl-tests' own "Test NCCL failure"): its headers can be
    // attempts one after another, a retry after the run that failed, which read the same.
    if (ctx.nccl_log) {
      bool failed = !ctx.nccl_log->issues.empty();
      for (const auto& e : ctx.nccl_log->framework.events)
        failed =
            failed || (e.framework == "nccl-tests" && (e.kind == FrameworkEventKind::kNcclError ||
                                                       e.kind == FrameworkEventKind::kCudaError));
      if (failed)
        return RuleOutcome::does_not_apply(
            "the log holds a failure, so its headers can be attempts one after another; the "
            "failure's own finding says why it stopped");
    }
    NcclTestsWorlds w = separate_worlds(t);
    if (w.evidence.empty()) {
      RuleOutcome none;
      if (t.headers.empty() && t.devices.empty() && t.summaries.size() < 2)
        none.notes.emplace_back("no header, device list or second summary to tell processes apart");
      return none;
    }
    RuleOutcome o;
    Finding x = finding(
        std::string(t.devices.size() >= 65536 ? "at least " : "") + std::to_string(w.processes) +
        " processes each ran nccl-tests alone, as rank 0 of a job of one process: no data "
        "crossed between them, and each result is one process's GPUs only");
    x.evidence = std::move(w.evidence);
    x.rank = 93;
    x.cause =
        "nccl-tests prints its header, its device list and its summary once, from MPI rank 0, "
        "when it was built with MPI=1; here several processes each printed them, so each was a "
        "world of its own. The binaries were built without MPI=1 (or an older build without it "
        "was left in build/: `make clean` first), or built against another MPI than the mpirun "
        "or srun that started them.";
    if (w.one_host)
      x.cause +=
          " (All on one host: a log that holds a second attempt after a first that stopped "
          "before its table reads the same; read each attempt alone.)";
    x.fix =
        "Rebuild with `make clean && make MPI=1 MPI_HOME=<the MPI whose mpirun you use>` and "
        "launch one rank per GPU with that mpirun (or srun with its PMI). Confirm: `ldd "
        "build/all_reduce_perf | grep -i mpi` names that MPI's libmpi, and a correct run prints "
        "one 'Using devices' list holding every rank, 0 to N-1.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_separate_jobs() {
  return std::make_unique<NcclTestsSeparateJobs>();
}

}  // namespace trainready
