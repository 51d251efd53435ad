#include "cli/app.h"

#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "bench/mpi_backend.h"
#include "bench/mpi_plugin_loader.h"
#include "plugin/net_plugin_loader.h"
#include "bench/nccl_backend.h"
#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "core/root.h"
#include "core/text.h"

namespace trainready {

// cmd_health.cpp (declared here, not in commands.h, so adding it rebuilds one file).
Runner add_health_command(CLI::App& app);

const char* tool_version() { return TRAINREADY_VERSION; }

const Catalog& load_catalog(const std::string& path) {
  if (path.empty()) return Catalog::builtin();
  static std::map<std::string, Catalog> loaded;
  auto it = loaded.find(path);
  if (it != loaded.end()) return it->second;
  FileRead r = FsRoot("/").read_file(path, kLargeFileLimit);
  if (!r.ok()) throw InputError(path, 0, "cannot read catalog: " + r.error);
  return loaded.emplace(path, Catalog::parse(r.data, path)).first->second;
}

namespace {

// For output printed outside a command's try block.
int finish_stdout() {
  try {
    check_stdout();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainready: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

// The innermost subcommand chosen (bench storage, not bench).
const CLI::App* chosen_leaf(const CLI::App& app) {
  const CLI::App* leaf = &app;
  for (;;) {
    auto subs = leaf->get_subcommands();
    if (subs.empty()) return leaf;
    leaf = subs.front();
  }
}

// `-o FILE` naming one of the command's inputs would replace the input with the report: refuse
// before anything runs. Inputs are every other option value that names an existing regular file
// (compared by device and inode, so ./x, x and a hard link are one file).
void refuse_output_over_input(const CLI::App& sub) {
  const CLI::App* leaf = chosen_leaf(sub);
  const CLI::Option* out = leaf->get_option_no_throw("--output");
  if (out == nullptr || out->count() == 0) return;
  const std::string target = out->as<std::string>();
  struct stat ost {};
  if (target.empty() || target == "-" || ::stat(target.c_str(), &ost) != 0 || !S_ISREG(ost.st_mode))
    return;
  for (const CLI::App* a = leaf; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* o : a->get_options()) {
      if (o == out) continue;
      for (const std::string& v : o->results()) {
        // "KIND=FILE" (--capture) names FILE.
        for (const std::string& candidate : {v, v.substr(v.find('=') + 1)}) {
          struct stat ist {};
          if (::stat(candidate.c_str(), &ist) == 0 && S_ISREG(ist.st_mode) &&
              ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
            throw InputError(
                out->get_name() + " " + target, 0,
                "is also an input (" + candidate + "); refusing to overwrite it with the report");
        }
      }
    }
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"trainready: is this GPU cluster ready for multi-node training, and if not, why"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and what was compiled in");
  std::map<CLI::App*, Runner> runners;
  auto reg = [&](Runner (*add)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    Runner r = add(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runners[subs.back()] = std::move(r);
  };
  reg(add_doctor_command);
  reg(add_fleet_command);
  reg(add_collect_command);
  reg(add_rules_command);
  reg(add_explain_command);
  reg(add_catalog_command);
  reg(add_nccl_command);
  reg(add_nccl_tests_command);
  reg(add_lint_command);
  reg(add_plan_command);
  reg(add_bench_command);
  reg(add_watch_command);
  reg(add_stage_command);
  reg(add_health_command);
  reg(add_help_man_command);
  reg(add_completions_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 quotes the argument it rejects (a file name from a directory listing, a value
    // pasted from a log): through terminal_safe like every other message.
    std::ostringstream out;
    std::ostringstream err;
    app.exit(e, out, err);
    std::fputs(terminal_safe(out.str()).c_str(), stdout);
    std::fputs(terminal_safe(err.str()).c_str(), stderr);
    return 2;
  }
  if (version) {
    std::printf(
        "trainready %s\ncompiled in: NVML (loaded at run time), NCCL version probe (loaded at "
        "run time), bench back ends: %s%s\nMPI plugin: %s\nnetwork plugin: %s\n",
        tool_version(), mpi_compiled_in() ? "MPI" : "no MPI",
        nccl_compiled_in() ? ", NCCL (CUDA runtime static, libnccl.so.2 at run time)" : ", no NCCL",
        mpi_plugin_summary().c_str(), net_plugin_summary().c_str());
    return finish_stdout();
  }
  for (auto* sub : app.get_subcommands()) {
    auto it = runners.find(sub);
    if (it == runners.end()) continue;
    try {
      refuse_output_over_input(*sub);
      const int code = it->second();
      check_stdout();
      return code;
    } catch (const std::exception& e) {
      // The message quotes inputs (a job file's key, a path): never raw control characters.
      std::fprintf(stderr, "trainready: error: %s\n", terminal_safe(e.what()).c_str());
      return 2;
    }
  }
  std::fputs(app.help().c_str(), stdout);
  finish_stdout();
  return 2;
}

}  // namespace trainready
