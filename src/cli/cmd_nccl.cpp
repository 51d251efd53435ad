// `trainready nccl LOG...`: explain a distributed run from its NCCL_DEBUG=INFO output.
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

struct NcclArgs {
  std::vector<std::string> logs;
  SharedFlags flags;
};

int run_nccl(const NcclArgs& a) {
  a.flags.check();  // bad options fail before the log is read
  Report r = start_report("nccl", a.flags);
  std::vector<std::string> paths = a.logs.empty() ? std::vector<std::string>{"-"} : a.logs;
  auto log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(paths));
  if (!has_nccl_output(*log)) throw InputError(paths.front(), 0, kNoNcclOutput);
  // nccl-tests run with NCCL_DEBUG=INFO write their table into the same log: judge the table
  // beside the log, as `nccl-tests --nccl-log` does with two files. Stdin cannot be read twice.
  if (!log->nccl_tests_table_file.empty() && log->nccl_tests_table_file != "-")
    r.nccl_tests =
        std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(log->nccl_tests_table_file));
  r.nccl_log = std::move(log);
  return judge_and_emit(r, a.flags);
}

}  // namespace

Runner add_nccl_command(CLI::App& app) {
  auto a = std::make_shared<NcclArgs>();
  CLI::App* c =
      app.add_subcommand("nccl",
                         "Explain a run from its NCCL_DEBUG=INFO log: transports, InfiniBand and "
                         "GPUDirect RDMA, channels and algorithms, hangs, errors; an nccl-tests "
                         "table in the same log is judged with it");
  c->add_option("logs", a->logs,
                "Log files, directories of per-rank logs, gzip files; '-' or nothing reads stdin");
  add_shared_flags(c, a->flags,
                   kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag);
  return [a] { return run_nccl(*a); };
}

}  // namespace trainready
