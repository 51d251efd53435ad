// `trainready fleet`: the doctor for a whole cluster, under mpirun or srun. Every rank probes its
// node; rank 0 gathers the facts, runs every node and cluster rule over them (as `doctor --root a
// --root b ...` does) plus the fleet rules over the ranks themselves, and writes one report.
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/fleet_bandwidth_flags.h"
#include "cli/judge.h"
#include "cli/output.h"
#include "cli/slurm_health.h"
#include "core/input_error.h"
#include "core/root.h"
#include "fleet/fleet_session.h"
#include "fleet/fleet_summary.h"
#include "probes/probes.h"

namespace trainready {
namespace {

struct FleetArgs {
  std::vector<std::string> roots;
  std::string imds_url;
  bool no_imds = false;
  int imds_timeout_ms = 1500;
  std::string env_file;
  std::string nvml_library;
  std::string nccl_library;
  double timeout_s = 60;
  double probe_timeout_s = 30;
  int gather_group = 0;  // --gather-group: 0 picks, 1 one level, K a leader per K ranks
  SharedFlags flags;
  bool slurm_health = false;  // --slurm-health: this node alone, for Slurm (slurm_health.h)
  SlurmHealthOptions slurm;   // --drain
  BandwidthFlags bandwidth;   // --bandwidth, --quick, --full; run in run_phases() below
};

std::chrono::milliseconds ms(double s) {
  return std::chrono::milliseconds(static_cast<long long>(std::llround(s * 1000)));
}

// The phases after the facts: they run on every rank, and only when every rank answered (they
// use collectives, which one missing rank would hang). `report` is rank 0's, null elsewhere;
// a phase adds its facts there for the rules. Hook point for fleet --bandwidth.
void run_phases(const FleetArgs& a, FleetSession& s, Report* report) {
  run_bandwidth_flags(a.bandwidth, a.flags, s.world.get(), report);
}

// fleet --slurm-health: slurmd runs it on each node (HealthCheckProgram, Prolog), so no MPI and
// no gather: this node's facts, the node rules, one line for Slurm.
int run_slurm_health_mode(const FleetArgs& a, const ProbeOptions& probe) {
  if (a.roots.size() > 1)
    throw InputError("--root", 0, "--slurm-health judges this one node: give at most one --root");
  if (a.flags.json || a.flags.format != "text" || !a.flags.output.empty())
    throw InputError("--slurm-health", 0,
                     "prints one line for Slurm; --format, --json and --output do not apply");
  // No rank without a launcher: a "%r" in --root reads as rank 0.
  const std::string given = a.roots.empty() ? std::string("/") : root_for_rank(a.roots, 0);
  FsRoot root(given);
  require_snapshot_root(root, given);
  return run_slurm_health(probe_node(root, probe), a.flags, a.slurm, std::cout, std::cerr);
}

int run_fleet(const FleetArgs& a) {
  a.flags.check();  // bad options fail on every rank before anything is probed
  if (a.probe_timeout_s >= a.timeout_s)
    throw InputError("--probe-timeout", 0,
                     "less than --timeout (rank 0 must outwait each rank's probes)");
  FleetOptions opt;
  opt.roots = a.roots;
  if (!a.imds_url.empty()) opt.probe.imds_url = a.imds_url;
  opt.probe.imds_disabled = a.no_imds;
  opt.probe.imds_timeout_ms = a.imds_timeout_ms;
  if (!a.env_file.empty()) opt.probe.env_file = a.env_file;
  if (!a.nvml_library.empty()) opt.probe.nvml_library = a.nvml_library;
  if (!a.nccl_library.empty()) opt.probe.nccl_library = a.nccl_library;
  if (a.slurm_health) return run_slurm_health_mode(a, opt.probe);
  opt.probe_timeout = ms(a.probe_timeout_s);
  opt.gather_timeout = ms(a.timeout_s);
  opt.gather_group = a.gather_group;
  opt.judge.catalog = &a.flags.catalog();
  opt.judge.selection = a.flags.selection();
  opt.judge.options = a.flags.run_options();
  // Only these formats print every node's facts; for the others leaders send judgements alone.
  const std::string format = a.flags.chosen_format();
  opt.judge.forward_facts = format == "json" || format == "prom";

  FleetSession s = gather_fleet(opt);
  // Rank 0 decides whether the later phases run and says so to every rank that answered; the
  // others wait for that word a little longer than rank 0 waits for facts.
  bool phases = s.all_answered;
  if (s.rank == 0)
    release_ranks(s, phases, ms(a.timeout_s));
  else
    phases = await_release(s, ms(a.timeout_s + 60));

  std::unique_ptr<Report> r;
  if (s.rank == 0) {
    r = std::make_unique<Report>(start_report("fleet", a.flags));
    if (s.judged) {  // two levels: the leaders judged the nodes
      r->nodes = std::move(s.judged->nodes);
      r->cluster_nodes = std::make_shared<ClusterNodes>(std::move(s.judged->cluster));
      r->judged_nodes = std::make_shared<JudgedNodes>(std::move(s.judged->judged));
      r->fleet = std::make_shared<FleetFacts>(std::move(s.judged->fleet));
    } else {
      r->nodes = std::move(s.gathered->nodes);
      r->fleet = std::make_shared<FleetFacts>(std::move(s.gathered->fleet));
    }
  }
  if (phases) run_phases(a, s, r.get());
  if (s.rank != 0) end_fleet(s, 0);

  r->evaluation = run_rules(*r, a.flags);
  r->fleet_summary = std::make_shared<FleetSummary>(summarize_fleet(*r));
  finish_report(*r, a.flags.fail_on_severity());
  const int code = emit_report(*r, a.flags);
  check_stdout();
  if (!s.world) return code;
  end_fleet(s, code);
}

}  // namespace

Runner add_fleet_command(CLI::App& app) {
  auto a = std::make_shared<FleetArgs>();
  CLI::App* c = app.add_subcommand(
      "fleet",
      "Check every node of a cluster in one run: launch under mpirun or srun, one rank per node");
  c->add_option("--root", a->roots,
                "Read snapshot directories instead of the live nodes; %r becomes the rank "
                "(snaps/node-%r); several: rank i reads the (i mod count)-th");
  c->add_option("--timeout", a->timeout_s,
                "Seconds rank 0 waits for every rank's facts; a rank that has not answered by "
                "then is reported")
      ->check(CLI::Range(1.0, 86400.0));
  c->add_option("--probe-timeout", a->probe_timeout_s,
                "Seconds each rank's probes may take before that rank reports them as hung")
      ->check(CLI::Range(0.5, 86400.0));
  c->add_option(
       "--gather-group", a->gather_group,
       "Two-level gather: each rank sends its facts to the first rank of its group of K "
       "consecutive ranks, which judges their nodes and sends rank 0 its judgement; 1: every "
       "rank sends rank 0; "
       "0 (default): one level up to 256 ranks, groups of 64 above")
      ->check(CLI::Range(0, 1000000));
  c->add_option("--imds", a->imds_url,
                "Ask this instance-metadata URL (even off Azure or for a snapshot)");
  c->add_flag("--no-imds", a->no_imds, "Never ask the instance metadata service");
  c->add_option("--imds-timeout-ms", a->imds_timeout_ms, "IMDS timeout in milliseconds")
      ->check(CLI::Range(10, 60000));
  c->add_option("--env-file", a->env_file,
                "Judge this captured environment instead of each rank's own");
  add_bandwidth_flags(c, a->bandwidth);
  add_shared_flags(c, a->flags,
                   kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag | kXidFlag);
  c->add_option("--nvml-library", a->nvml_library,
                "NVML library to load (default libnvidia-ml.so.1)");
  c->add_option("--nccl-library", a->nccl_library,
                "NCCL library to ask for its version (default libnccl.so.2)");
  CLI::Option* health = c->add_flag(
      "--slurm-health", a->slurm_health,
      "Judge this node alone, without MPI, as Slurm's HealthCheckProgram or Prolog: exit 0 "
      "healthy, 1 a finding at or above --fail-on (its reason on one line), 2 cannot judge "
      "(docs/slurm.md)");
  c->add_flag("--drain", a->slurm.drain,
              "With --slurm-health: run the scontrol command that drains this node (and resumes "
              "a node it drained that passes again) instead of printing it; a reason someone "
              "else set is left alone")
      ->needs(health);
  return [a] { return run_fleet(*a); };
}

}  // namespace trainready
