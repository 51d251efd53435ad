// `trainready doctor`: is this node (or these nodes) ready for multi-node training?
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/captures.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "core/root.h"
#include "engine/engine.h"
#include "probes/probes.h"
#include "report/json_reporter.h"
#include "report/text_reporter.h"
#include "rules/registry.h"

namespace trainready {
namespace {

struct DoctorArgs {
  std::vector<std::string> roots;
  std::vector<std::string> captures;
  std::string sku;
  std::string catalog;
  std::string imds_url;
  bool no_imds = false;
  std::string env_file;
  std::string format = "text";
  bool json = false;
  std::string fail_on = "error";
  std::string color = "auto";
  std::string output;
  std::vector<std::string> only;
  std::vector<std::string> skip;
  std::string nvml_library;
  std::string nccl_library;
  int imds_timeout_ms = 1500;
};

int run_doctor(const DoctorArgs& a) {
  auto fail_on = parse_severity(a.fail_on);
  if (!fail_on) throw InputError("--fail-on", 0, "expected error, warning or info");
  const std::string format = a.json ? "json" : a.format;
  if (format != "text" && format != "json")
    throw InputError("--format", 0, "expected text or json");
  for (const auto& id : a.only) {
    if (!find_rule(id))
      throw InputError("--rule", 0, "unknown rule id '" + id + "' (see `trainready rules`)");
  }
  for (const auto& id : a.skip) {
    if (!find_rule(id))
      throw InputError("--skip", 0, "unknown rule id '" + id + "' (see `trainready rules`)");
  }
  if (!a.captures.empty() && a.roots.size() > 1) {
    throw InputError("--capture", 0,
                     "captures describe one node; use them with at most one --root");
  }
  const Catalog& catalog = load_catalog(a.catalog);
  ProbeOptions popt;
  if (!a.imds_url.empty()) popt.imds_url = a.imds_url;
  popt.imds_disabled = a.no_imds;
  popt.imds_timeout_ms = a.imds_timeout_ms;
  if (!a.env_file.empty()) popt.env_file = a.env_file;
  if (!a.nvml_library.empty()) popt.nvml_library = a.nvml_library;
  if (!a.nccl_library.empty()) popt.nccl_library = a.nccl_library;

  std::vector<NodeFacts> nodes;
  if (a.roots.empty() && !a.captures.empty()) {
    nodes.push_back(empty_capture_node("capture"));
  } else {
    std::vector<std::string> roots = a.roots.empty() ? std::vector<std::string>{"/"} : a.roots;
    for (const std::string& r : roots) {
      auto root = std::make_unique<FsRoot>(r);
      if (!root->is_live() && !root->list_dir("/").ok()) {
        throw InputError(
            r, 0, "not a readable directory; expected a snapshot written by `trainready collect`");
      }
      nodes.push_back(probe_node(*root, popt));
    }
  }
  for (const std::string& c : a.captures) apply_capture(nodes.front(), c);
  // Two snapshots with one host name would be indistinguishable in the report.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (nodes[i].label == nodes[j].label) nodes[i].label += "#" + std::to_string(i + 1);
    }
  }
  if (!a.sku.empty()) {
    for (auto& n : nodes) n.sku_override = a.sku;
  }
  RuleSelection sel;
  sel.only.insert(a.only.begin(), a.only.end());
  sel.skip.insert(a.skip.begin(), a.skip.end());
  Evaluation ev = evaluate_rules(nodes, catalog, sel);
  DoctorReport report = make_doctor_report(std::move(nodes), std::move(ev), catalog.origin(),
                                           tool_version(), *fail_on);
  bool color = a.color == "always" || (a.color == "auto" && a.output.empty() && stdout_is_tty());
  emit(format == "json" ? render_json(report) : render_text(report, color), a.output);
  return report.exit_code;
}

}  // namespace

Runner add_doctor_command(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  CLI::App* c = app.add_subcommand(
      "doctor", "Check this node (or snapshots of several) for multi-node training");
  c->add_option("--root", a->roots,
                "Read a snapshot directory instead of the live machine (repeat for several nodes)");
  c->add_option("--capture", a->captures,
                "Fold in a capture: ibstat, ibstatus, ibv_devinfo -v, lspci, ofed_info -s, "
                "nvidia-smi topo -m, IMDS "
                "JSON, env dump (FILE or KIND=FILE; repeatable). Without --root, only the captures "
                "are judged");
  c->add_option("--sku", a->sku,
                "VM size to check against (default: IMDS vmSize), e.g. Standard_ND96isr_H100_v5");
  c->add_option("--catalog", a->catalog, "Catalog JSON to use instead of the built-in one");
  c->add_option("--imds", a->imds_url,
                "Ask this instance-metadata URL (even off Azure or for a snapshot)");
  c->add_flag("--no-imds", a->no_imds, "Never ask the instance metadata service");
  c->add_option("--imds-timeout-ms", a->imds_timeout_ms, "IMDS timeout in milliseconds")
      ->check(CLI::Range(10, 60000));
  c->add_option(
      "--env-file", a->env_file,
      "Judge this captured environment (env output or /proc/PID/environ) instead of ours");
  c->add_option("--format", a->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  c->add_flag("--json", a->json, "Same as --format json");
  c->add_option("--fail-on", a->fail_on,
                "Exit 1 when a finding is at or above: error, warning, info")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  c->add_option("--color", a->color, "auto (only on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_option("-o,--output", a->output,
                "Write the report to this file (atomically) instead of stdout");
  c->add_option("--rule", a->only, "Run only this rule (repeatable)");
  c->add_option("--skip", a->skip, "Do not run this rule (repeatable)");
  c->add_option("--nvml-library", a->nvml_library,
                "NVML library to load (default libnvidia-ml.so.1)");
  c->add_option("--nccl-library", a->nccl_library,
                "NCCL library to ask for its version (default libnccl.so.2)");
  return [a] { return run_doctor(*a); };
}

}  // namespace trainready
