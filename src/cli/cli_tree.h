#pragma once
// The CLI as data, read from CLI11's own definitions, so the man page and the shell completions
// can never drift from what the parser accepts.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace trainready {

struct OptionDoc {
  std::vector<std::string> names;  // "-o", "--output"; a positional: its name ("PATH")
  bool positional = false;
  bool takes_value = false;  // false for flags
  bool repeatable = false;   // takes several values, or may be given several times
  bool required = false;
  std::string type;                  // CLI11's type name: TEXT, INT, FLOAT, ...
  std::vector<std::string> allowed;  // from an IsMember check; empty when free
  std::string constraint;            // other checks, as CLI11 describes them ("INT in [1 - 9]")
  std::string default_value;         // the bound variable's value before parsing; may be empty
  std::string description;
};

struct CommandDoc {
  std::vector<std::string> path;  // {"bench", "storage"}; empty for the program itself
  std::string description;
  std::vector<std::string> subcommands;  // names of the direct subcommands
  std::vector<OptionDoc> options;        // named options first, then positionals in order
  std::string joined_path() const;       // "bench storage"
};

// Every command, the program itself first, then depth first in definition order. Takes the app
// mutably only to have CLI11 render each option's current (default) value.
std::vector<CommandDoc> describe_cli(CLI::App& root);

}  // namespace trainready
