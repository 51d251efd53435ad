#pragma once
// The flags several commands share, declared once in one table (ripgrep's way: parse once into
// SharedFlags, derive everything else — validation, the rule selection, the catalog, the
// expectation's inputs, the renderer — from it). A command names the groups it takes.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog/catalog.h"
#include "core/severity.h"
#include "engine/engine.h"
#include "report/report.h"

namespace trainready {

enum FlagGroup : unsigned {
  kReportFlags = 1,    // --format --json --fail-on --color -o/--output
  kRuleFlags = 2,      // --rule --skip
  kSkuFlag = 4,        // --sku
  kRunScaleFlags = 8,  // --nodes --efficiency
  kCatalogFlag = 16,   // --catalog
  kXidFlag = 32,       // --xid-window
};

struct SharedFlags {
  std::string format = "text";
  bool json = false;
  std::string fail_on = "error";
  std::string color = "auto";
  std::string output;
  std::vector<std::string> only;
  std::vector<std::string> skip;
  std::string sku;
  int nodes = 0;
  double efficiency = kDefaultIbEfficiency;
  std::string catalog_path;
  std::string xid_window;  // --xid-window, a duration ("2h"); empty: the default

  // Each throws InputError naming the flag; check() runs them all before any work starts.
  void check() const;
  Severity fail_on_severity() const;
  RuleSelection selection() const;
  std::string chosen_format() const;  // --json wins over --format
  RunOptions run_options() const;
  const Catalog& catalog() const;
  bool color_enabled() const;
};

// "1s", "250ms", "2m", "1h", or plain seconds, between min and max; InputError naming the flag.
double seconds_of(const std::string& flag, const std::string& v, double min, double max);

// Adds the flags of `groups` to the command, bound to `f`.
void add_shared_flags(CLI::App* c, SharedFlags& f, unsigned groups);

// Renders the report in the chosen format and writes it (atomically with -o); returns the
// report's exit code.
int emit_report(const Report& r, const SharedFlags& f, bool explain = false);

}  // namespace trainready
