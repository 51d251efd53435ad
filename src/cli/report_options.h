#pragma once
// The options every reporting command shares (format, --fail-on, colour, output, rule filters),
// and how a finished report is written.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/severity.h"
#include "engine/engine.h"
#include "report/doctor_report.h"

namespace trainready {

struct ReportOptions {
  std::string format = "text";
  bool json = false;
  std::string fail_on = "error";
  std::string color = "auto";
  std::string output;
  std::vector<std::string> only;
  std::vector<std::string> skip;
  bool sarif = false;  // lint: --format sarif is offered

  void add_to(CLI::App* c);
  // Validates the values; throws InputError naming the option.
  Severity fail_on_severity() const;
  RuleSelection selection() const;
  // Renders text or JSON and writes it (atomically with -o); returns the report's exit code.
  int emit_report(const DoctorReport& report) const;

  // Runs the selected rules over the nodes and the run facts (either may be null), builds the
  // report of `command` and emits it. Throws InputError for bad options.
  int judge_and_emit(std::vector<NodeFacts> nodes, const Catalog& catalog,
                     std::shared_ptr<const NcclRunFacts> log,
                     std::shared_ptr<const NcclTestsFacts> tests, const RunOptions& options,
                     const std::string& command) const;
};

}  // namespace trainready
