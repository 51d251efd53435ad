// `trainready health`: a node's health over time. Each run reads one sample (the live node, or a
// `collect` snapshot with --root), advances the state kept in --state, judges the state with the
// health rules and prints the findings and the repair they call for; --drain hands the node to
// Slurm's drain with the action in the reason and resumes it once the state is clear. The shape
// that fits Slurm's HealthCheckProgram, a prolog or a systemd timer. --replay DIR runs the same
// over a directory of snapshots in time order (the tests' timelines). docs/health.md.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/health_repair.h"
#include "cli/judge.h"
#include "cli/shared_flags.h"
#include "cli/slurm_drain.h"
#include "core/atomic_file.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/root.h"
#include "core/text.h"
#include "core/utc_time.h"
#include "health/health_machine.h"
#include "health/health_outputs.h"
#include "health/health_sample.h"
#include "health/health_state_file.h"
#include "rules/health/health_rules.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

struct HealthArgs {
  std::string state;
  std::string root = "/";
  std::string replay;
  std::string clear;
  std::string node;
  std::string nvidia_smi = "nvidia-smi";
  double probe_timeout_s = 30;
  std::string metrics;
  std::string html;
  bool drain = false;
  bool record_only = false;
  SharedFlags flags;
};

// The snapshots of --replay: DIR's subdirectories, by name (t000, t030, ...); each must be later
// than the one before (advance_health checks the times).
std::vector<std::string> replay_dirs(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir, 0, "--replay expects a directory of `collect` snapshots");
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) out.push_back(e.path().string());
  if (ec) throw InputError(dir, 0, "cannot list the directory: " + ec.message());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw InputError(dir, 0, "no snapshot directories in it");
  return out;
}

int run_clear(const HealthArgs& a, std::ostream& out) {
  if (a.state.empty()) throw InputError("--clear", 0, "needs --state FILE");
  HealthState s;
  try {
    s = load_health_state(a.state);
  } catch (const InputError&) {
    // The documented reset: `--clear all` starts over from a state file that cannot be read.
    if (a.clear != "all") throw;
    out << "trainready: " << terminal_safe(a.state)
        << " could not be read; --clear all starts a new state\n";
    s = HealthState{};
  }
  const std::string what = clear_health(s, a.clear);
  save_health_state(a.state, s);
  out << "trainready: " << what << " in " << terminal_safe(a.state) << "\n";
  return 0;
}

// --metrics (Prometheus textfile) and --html (the node's timeline), each written atomically.
void write_health_outputs(const HealthArgs& a, const HealthFacts& facts,
                          const std::vector<Finding>& findings, const RepairPlan& plan,
                          const std::string& node) {
  auto write = [](const std::string& path, const std::string& data, const char* flag) {
    try {
      write_file_atomically(path, data);
    } catch (const std::runtime_error& e) {
      throw InputError(path, 0, std::string(flag) + ": " + e.what());
    }
  };
  const std::string action(to_string(plan.action));
  if (!a.metrics.empty())
    write(a.metrics, health_metrics(facts, findings, action, node), "--metrics");
  if (!a.html.empty()) write(a.html, health_html(facts, findings, action, node), "--html");
}

int run_health(const HealthArgs& a) {
  a.flags.check();
  if (!a.clear.empty()) return run_clear(a, std::cout);
  if (!(a.probe_timeout_s > 0 && a.probe_timeout_s <= 600))
    throw InputError("--probe-timeout", 0, "expected seconds in (0, 600]");
  if (a.state.empty() && a.replay.empty())
    throw InputError("health", 0, "needs --state FILE (or --replay DIR)");
  if (a.drain && !a.replay.empty())
    throw InputError("--drain", 0, "acts on this node's sample, not on a --replay");
  auto facts = std::make_shared<HealthFacts>();
  facts->state = a.state.empty() ? HealthState{} : load_health_state(a.state);
  facts->xid_window_s = a.flags.run_options().xid_window_s;
  const bool text = a.flags.chosen_format() == "text" && a.flags.output.empty();
  std::ostream& side = text ? std::cout : std::cerr;
  std::vector<std::string> roots =
      a.replay.empty() ? std::vector<std::string>{a.root} : replay_dirs(a.replay);
  for (const std::string& dir : roots) {
    FsRoot root(dir);
    require_snapshot_root(root, dir);
    HealthSampleOptions so;
    so.nvidia_smi = a.nvidia_smi;
    so.probe_deadline_ms = static_cast<int>(a.probe_timeout_s * 1000.0);
    const HealthSample sample = read_health_sample(root, so);
    facts->events = advance_health(facts->state, sample);
    facts->source = sample.source;
    if (!sample.resource_id.empty()) facts->resource_id = sample.resource_id;
    if (!sample.vm_id.empty()) facts->vm_id = sample.vm_id;
    if (!a.replay.empty()) {
      side << terminal_safe(fs::path(dir).filename().string()) << " " << utc_text(sample.time)
           << ":";
      if (facts->events.empty()) side << " no change";
      side << "\n";
      for (const std::string& e : facts->events) side << "  " << terminal_safe(e) << "\n";
    }
  }
  if (!a.state.empty()) save_health_state(a.state, facts->state);
  Report r = start_report("health", a.flags);
  r.evaluation = evaluate_health(*facts, a.flags.selection());
  finish_report(r, a.flags.fail_on_severity());
  const int code = emit_report(r, a.flags);
  const RepairPlan plan = plan_repair(r.evaluation.findings, *facts, a.flags.fail_on_severity());
  std::string node = a.node;
  if (node.empty()) {
    std::string h = host_name();
    if (auto dot = h.find('.'); dot != std::string::npos) h.resize(dot);
    node = slurm_node_name(std::getenv("SLURMD_NODENAME"), h);
  } else if (!is_single_node_name(node)) {
    throw InputError("--node", 0, "'" + node + "': " + node_name_problem(node));
  }
  print_repair_plan(side, plan, *facts, node);
  write_health_outputs(a, *facts, r.evaluation.findings, plan, node);
  if (a.drain || a.record_only) {
    SlurmAct how;
    how.act = a.drain;
    how.record_only = a.record_only;
    slurm_act(side, std::cerr, plan, node, how);
  }
  return code;
}

}  // namespace

Runner add_health_command(CLI::App& app) {
  auto a = std::make_shared<HealthArgs>();
  CLI::App* c = app.add_subcommand(
      "health",
      "A node's health over time: one sample per run, state kept between runs (IB port flaps "
      "and drops, error-counter rates, repeated Xids, NVLink/ECC/PCIe counters, throttling, "
      "hung probes), and the repair each finding calls for");
  c->add_option("--state", a->state,
                "The state file kept between samples (JSON, written atomically); created on the "
                "first sample");
  c->add_option("--root", a->root,
                "Read the sample from this `collect` snapshot instead of the live node");
  c->add_option("--replay", a->replay,
                "Run over every snapshot directory in DIR, in name order (t000, t030, ...), and "
                "print the transitions of each");
  c->add_option(
      "--clear", a->clear,
      "Clear sticky state and exit: all, ports, xids, gpus, probes, or one port (mlx5_0/1); "
      "`all` also starts over from a state file that cannot be read");
  c->add_option("--nvidia-smi", a->nvidia_smi,
                "The nvidia-smi the live sample runs (`-q`, under --probe-timeout); default: "
                "nvidia-smi on PATH");
  c->add_option("--probe-timeout", a->probe_timeout_s,
                "Seconds a live probe (nvidia-smi -q) may take; one that does not return is a "
                "finding (health-probe-hung: the NVIDIA driver may be unresponsive)")
      ->default_val(30);
  c->add_option("--metrics", a->metrics,
                "Write the state as Prometheus series to FILE (node_exporter textfile format), "
                "atomically, each run");
  c->add_option("--html", a->html,
                "Write the node's timeline (transitions, current states, findings) to FILE as "
                "one self-contained HTML page");
  c->add_flag("--drain", a->drain,
              "Drain the node in Slurm (scontrol) with the action in the reason when a finding "
              "reaches --fail-on; resume it once the state is clear and trainready drained it");
  c->add_flag("--record-only", a->record_only,
              "Keep the state and print the plan and the scontrol command that would run, "
              "without running it (also with --drain)");
  c->add_option("--node", a->node,
                "The Slurm node name (default: SLURMD_NODENAME, else the short host name)");
  add_shared_flags(c, a->flags, kReportFlags | kRuleFlags | kXidFlag);
  return [a] { return run_health(*a); };
}

}  // namespace trainready
