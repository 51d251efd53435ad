#pragma once
// One function per subcommand; each adds itself to the CLI11 app and returns a runner.
#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

namespace trainready {

using Runner = std::function<int()>;

Runner add_doctor_command(CLI::App& app);
Runner add_collect_command(CLI::App& app);
Runner add_rules_command(CLI::App& app);
Runner add_explain_command(CLI::App& app);
Runner add_catalog_command(CLI::App& app);
Runner add_nccl_command(CLI::App& app);
Runner add_nccl_tests_command(CLI::App& app);
Runner add_lint_command(CLI::App& app);
Runner add_plan_command(CLI::App& app);
Runner add_bench_command(CLI::App& app);
Runner add_stage_command(CLI::App& app);
// `bench storage`, a subcommand of `bench`: sets *chosen to its runner when selected.
void add_bench_storage_command(CLI::App* bench, const std::shared_ptr<Runner>& chosen);
// Hidden: the man page and the completion scripts, from the definitions of `app` itself.
Runner add_help_man_command(CLI::App& app);
Runner add_completions_command(CLI::App& app);

const char* tool_version();
// What --nccl-log / `nccl` say of a file with no NCCL output in it.
inline constexpr const char* kNoNcclOutput =
    "no NCCL output found: expected lines like 'host:pid:tid [dev] NCCL INFO ...' (run with "
    "NCCL_DEBUG=INFO)";
// --catalog FILE or the built-in catalog; throws InputError.
const class Catalog& load_catalog(const std::string& path);

}  // namespace trainready
