#pragma once
// `trainready help-man`: the man page, rendered from the CLI's own definitions (cli_tree.h).
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace trainready {

// Text safe for roff: backslashes as \e, hyphens as \- (so names survive copy and paste from
// the rendered page), and a line starting with '.' or '\'' (a request) prefixed with \&.
std::string roff_escape(std::string_view text);

std::string render_man_page(CLI::App& root, const std::string& program, const std::string& version);

}  // namespace trainready
