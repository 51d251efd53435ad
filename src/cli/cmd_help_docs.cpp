// `trainready help-man` and `trainready completions bash|zsh`: the man page and the completion
// scripts the package installs, printed from the parser's own definitions (the build runs them,
// so nothing is written by hand). Hidden from --help: they are for packagers and shell setup.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/completions.h"
#include "cli/man_page.h"

namespace trainready {
namespace {

constexpr const char* kProgram = "trainready";

int print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 2;
}

}  // namespace

Runner add_help_man_command(CLI::App& app) {
  CLI::App* c = app.add_subcommand("help-man", "Print the man page (roff) of every command");
  c->group("");  // hidden
  return [&app] { return print(render_man_page(app, kProgram, tool_version())); };
}

Runner add_completions_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("completions", "Print the shell completion script");
  c->group("");  // hidden
  c->add_option("shell", *shell, "The shell to complete for")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  return [&app, shell] {
    return print(*shell == "bash" ? render_bash_completion(app, kProgram)
                                  : render_zsh_completion(app, kProgram));
  };
}

}  // namespace trainready
