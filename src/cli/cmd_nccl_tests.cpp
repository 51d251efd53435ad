// `trainready nccl-tests OUT`: judge an nccl-tests result against what the hardware should give.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_options.h"
#include "core/input_error.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"

namespace trainready {
namespace {

struct NcclTestsArgs {
  std::string file = "-";
  std::vector<std::string> logs;
  std::string sku;
  int nodes = 0;
  double efficiency = 0.95;
  std::string catalog;
  ReportOptions report;
};

int run_nccl_tests(const NcclTestsArgs& a) {
  (void)a.report.fail_on_severity();  // bad options fail before the files are read
  (void)a.report.selection();
  const Catalog& catalog = load_catalog(a.catalog);
  auto tests = std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(a.file));
  std::shared_ptr<NcclRunFacts> log;
  if (!a.logs.empty()) {
    log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(a.logs));
    if (!has_nccl_output(*log)) throw InputError(a.logs.front(), 0, kNoNcclOutput);
  }
  RunOptions options;
  if (!a.sku.empty()) options.sku = a.sku;
  if (a.nodes > 0) options.nodes = a.nodes;
  options.efficiency = a.efficiency;
  return a.report.judge_and_emit({}, catalog, std::move(log), std::move(tests), options,
                                 "nccl-tests");
}

}  // namespace

Runner add_nccl_tests_command(CLI::App& app) {
  auto a = std::make_shared<NcclTestsArgs>();
  CLI::App* c =
      app.add_subcommand("nccl-tests",
                         "Read nccl-tests output (any table layout or its JSON) and compare busbw "
                         "at the largest size with what the VM size should reach");
  c->add_option("file", a->file, "nccl-tests output ('-' reads stdin)");
  c->add_option("--sku", a->sku, "VM size the run used (default: matched from the GPU names)");
  c->add_option("--nodes", a->nodes, "VMs in the run (default: hosts in 'Using devices')")
      ->check(CLI::Range(1, 100000));
  c->add_option("--efficiency", a->efficiency,
                "Share of the HCA line rate NCCL is expected to reach (default 0.95)")
      ->check(CLI::Range(0.05, 1.0));
  c->add_option("--nccl-log", a->logs, "The run's NCCL_DEBUG=INFO log, to explain a shortfall");
  c->add_option("--catalog", a->catalog, "Catalog JSON to use instead of the built-in one");
  a->report.add_to(c);
  return [a] { return run_nccl_tests(*a); };
}

}  // namespace trainready
