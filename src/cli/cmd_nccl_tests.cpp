// `trainready nccl-tests OUT`: judge an nccl-tests result against what the hardware should give.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/judge.h"
#include "core/input_error.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"

namespace trainready {
namespace {

struct NcclTestsArgs {
  std::string file = "-";
  std::vector<std::string> logs;
  SharedFlags flags;
};

int run_nccl_tests(const NcclTestsArgs& a) {
  a.flags.check();  // bad options fail before the files are read
  Report r = start_report("nccl-tests", a.flags);
  r.nccl_tests = std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(a.file));
  if (!a.logs.empty()) {
    auto log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(a.logs));
    if (!has_nccl_output(*log)) throw InputError(a.logs.front(), 0, kNoNcclOutput);
    r.nccl_log = std::move(log);
  }
  return judge_and_emit(r, a.flags);
}

}  // namespace

Runner add_nccl_tests_command(CLI::App& app) {
  auto a = std::make_shared<NcclTestsArgs>();
  CLI::App* c =
      app.add_subcommand("nccl-tests",
                         "Read nccl-tests output (any table layout or its JSON) and compare busbw "
                         "at the largest size with what the VM size should reach");
  c->add_option("file", a->file, "nccl-tests output ('-' reads stdin)");
  c->add_option("--nccl-log", a->logs, "The run's NCCL_DEBUG=INFO log, to explain a shortfall");
  add_shared_flags(c, a->flags,
                   kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag);
  return [a] { return run_nccl_tests(*a); };
}

}  // namespace trainready
