#include "cli/cli_tree.h"

#include <algorithm>

namespace trainready {
namespace {

// CLI11 spells a checked type as "TEXT:{a,b,c}" or "INT:INT in [1 - 9]": the type, then each
// validator's description after a colon.
void split_type(const std::string& full, OptionDoc& o) {
  std::size_t colon = full.find(':');
  o.type = full.substr(0, colon);
  while (colon != std::string::npos) {
    std::size_t next = full.find(':', colon + 1);
    std::string part = full.substr(colon + 1, next == std::string::npos ? next : next - colon - 1);
    colon = next;
    if (part.size() >= 2 && part.front() == '{' && part.back() == '}') {
      std::string items = part.substr(1, part.size() - 2);
      std::size_t start = 0;
      while (start <= items.size()) {
        std::size_t comma = items.find(',', start);
        if (comma == std::string::npos) comma = items.size();
        if (comma > start) o.allowed.push_back(items.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (!part.empty()) {
      o.constraint += (o.constraint.empty() ? "" : "; ") + part;
    }
  }
}

OptionDoc describe_option(CLI::Option& opt) {
  OptionDoc o;
  o.positional = !opt.nonpositional();
  if (o.positional) {
    o.names.push_back(opt.get_name(true));
  } else {
    for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
    for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  }
  o.takes_value = opt.get_expected_max() != 0;  // CLI11 makes a flag expect(0) values
  o.repeatable = opt.get_items_expected_max() > 1 ||
                 opt.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  o.required = opt.get_required();
  split_type(opt.get_type_name(), o);
  if (o.takes_value) {
    opt.capture_default_str();  // what the bound variable holds now: the default
    o.default_value = opt.get_default_str();
    // An empty container renders as "[]", and a flag's "false" says nothing.
    if (o.default_value == "[]" || o.default_value == "{}") o.default_value.clear();
  }
  o.description = opt.get_description();
  return o;
}

void walk(CLI::App& app, const std::vector<std::string>& path, std::vector<CommandDoc>& out) {
  CommandDoc c;
  c.path = path;
  c.description = app.get_description();
  std::vector<CLI::App*> subs = app.get_subcommands([](CLI::App* s) {
    return !s->get_name().empty();  // option groups are nameless subcommands in CLI11
  });
  for (CLI::App* s : subs) c.subcommands.push_back(s->get_name());
  std::vector<CLI::Option*> opts = app.get_options();
  std::stable_partition(opts.begin(), opts.end(),
                        [](const CLI::Option* o) { return o->nonpositional(); });
  for (CLI::Option* opt : opts) c.options.push_back(describe_option(*opt));
  out.push_back(std::move(c));
  for (CLI::App* s : subs) {
    std::vector<std::string> child = path;
    child.push_back(s->get_name());
    walk(*s, child, out);
  }
}

}  // namespace

std::string CommandDoc::joined_path() const {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : " ") + p;
  return s;
}

std::vector<CommandDoc> describe_cli(CLI::App& root) {
  std::vector<CommandDoc> out;
  walk(root, {}, out);
  return out;
}

}  // namespace trainready
