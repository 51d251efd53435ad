#pragma once
// `trainready completions bash|zsh`: completion scripts rendered from the CLI's own definitions
// (cli_tree.h). Both walk the words typed so far through the command tree, skip option values,
// then offer the subcommands and options of the command reached, an option's allowed values,
// or file names.
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace trainready {

// One shell word that stays literal in bash and zsh: 'it'\''s'.
std::string shell_quote(std::string_view word);

std::string render_bash_completion(CLI::App& root, const std::string& program);
std::string render_zsh_completion(CLI::App& root, const std::string& program);

}  // namespace trainready
