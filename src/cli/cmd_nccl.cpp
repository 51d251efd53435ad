// `trainready nccl LOG...`: explain a distributed run from its NCCL_DEBUG=INFO output.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_options.h"
#include "core/input_error.h"
#include "parsers/nccl_log.h"

namespace trainready {
namespace {

struct NcclArgs {
  std::vector<std::string> logs;
  std::string catalog;
  ReportOptions report;
};

int run_nccl(const NcclArgs& a) {
  (void)a.report.fail_on_severity();  // bad options fail before the log is read
  (void)a.report.selection();
  const Catalog& catalog = load_catalog(a.catalog);
  std::vector<std::string> paths = a.logs.empty() ? std::vector<std::string>{"-"} : a.logs;
  auto log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(paths));
  if (!has_nccl_output(*log)) throw InputError(paths.front(), 0, kNoNcclOutput);
  return a.report.judge_and_emit({}, catalog, std::move(log), nullptr, {}, "nccl");
}

}  // namespace

Runner add_nccl_command(CLI::App& app) {
  auto a = std::make_shared<NcclArgs>();
  CLI::App* c =
      app.add_subcommand("nccl",
                         "Explain a run from its NCCL_DEBUG=INFO log: transports, InfiniBand and "
                         "GPUDirect RDMA, hangs, errors");
  c->add_option("logs", a->logs,
                "Log files, directories of per-rank logs, gzip files; '-' or nothing reads stdin");
  c->add_option("--catalog", a->catalog, "Catalog JSON to use instead of the built-in one");
  a->report.add_to(c);
  return [a] { return run_nccl(*a); };
}

}  // namespace trainready
