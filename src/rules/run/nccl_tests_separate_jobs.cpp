// nccl-tests-separate-jobs: several processes each ran nccl-tests as a job of its own (each its
// rank 0 of one process), so nothing crossed between them. Read from the table's layout, as
// nccl-tests prints it (src/common.cu run() at v2.19.6): built with MPI=1, only the process of
// MPI rank 0 prints the header, one "Using devices" list with every rank and one summary; built
// without it, every process is rank 0 of a world of one and prints all three. Processes started
// together print those lines together, with no result row between them; runs one after the
// other (a script running each test) print a table between them and stay quiet.
#include <map>
#include <set>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// Two marks printed with nothing of the table between them: by processes running at once.
template <typename Mark>
const Mark* first_together(const std::vector<Mark>& marks, const Mark** partner) {
  for (std::size_t i = 1; i < marks.size(); ++i)
    if (marks[i].text_before == marks[i - 1].text_before) {
      *partner = &marks[i];
      return &marks[i - 1];
    }
  return nullptr;
}

std::string process_of(const NcclTestsDevice& d) {
  return d.pid > 0 ? d.host + " pid " + std::to_string(d.pid) : d.host;
}

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
    std::vector<Evidence> ev;
    std::set<std::string> processes;
    // The same rank number printed by two processes, with no row between: two worlds at once.
    std::map<int, const NcclTestsDevice*> seen;
    for (const auto& d : t.devices) {
      auto [it, fresh] = seen.emplace(d.rank, &d);
      if (fresh) continue;
      const NcclTestsDevice& p = *it->second;
      const bool other =
          (d.pid > 0 && p.pid > 0) ? d.pid != p.pid || d.host != p.host : d.host != p.host;
      if (other && d.text_before == p.text_before) {
        if (ev.empty()) {
          ev.push_back({"rank " + std::to_string(p.rank) + " on " + process_of(p), p.where});
          ev.push_back({"rank " + std::to_string(d.rank) + " again, on " + process_of(d), d.where});
        }
        processes.insert(process_of(p));
        processes.insert(process_of(d));
      }
      it->second = &d;
    }
    const NcclTestsMark* partner = nullptr;
    int copies = 0;
    if (const NcclTestsMark* h = first_together(t.headers, &partner)) {
      ev.push_back({"a run's header", h->where});
      ev.push_back({"another run's header before any result row", partner->where});
      copies = std::max(copies, together(t.headers, h));
    }
    if (const NcclTestsMark* s = first_together(t.summaries, &partner)) {
      ev.push_back({"a run's summary ('Out of bounds values')", s->where});
      ev.push_back({"another run's summary with no result row between", partner->where});
      copies = std::max(copies, together(t.summaries, s));
    }
    if (ev.empty()) return {};
    const int n = std::max(copies, static_cast<int>(processes.size()));
    RuleOutcome o;
    Finding x =
        finding(std::to_string(n) +
                " processes each ran nccl-tests alone, as rank 0 of a job of one process: no data "
                "crossed between them, and each result is one process's GPUs only");
    x.evidence = std::move(ev);
    x.rank = 93;
    x.cause =
        "nccl-tests prints its header, its device list and its summary once, from MPI rank 0, "
        "when it was built with MPI=1; here several processes each printed them, so each was a "
        "world of its own. The binaries were built without MPI=1 (or an older build without it "
        "was left in build/: `make clean` first), or built against another MPI than the mpirun "
        "or srun that started them.";
    x.fix =
        "Rebuild with `make clean && make MPI=1 MPI_HOME=<the MPI whose mpirun you use>` and "
        "launch one rank per GPU with that mpirun (or srun with its PMI). Confirm: `ldd "
        "build/all_reduce_perf | grep -i mpi` names that MPI's libmpi, and a correct run prints "
        "one 'Using devices' list holding every rank, 0 to N-1.";
    o.findings.push_back(std::move(x));
    return o;
  }

 private:
  // How many marks in a row, from `first`, were printed together.
  static int together(const std::vector<NcclTestsMark>& marks, const NcclTestsMark* first) {
    int n = 1;
    for (const NcclTestsMark* m = first + 1; m < marks.data() + marks.size(); ++m) {
      if (m->text_before != first->text_before) break;
      ++n;
    }
    return n;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_separate_jobs() {
  return std::make_unique<NcclTestsSeparateJobs>();
}

}  // namespace trainready
