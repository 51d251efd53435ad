// `trainready doctor`: is this node (or these nodes) ready for multi-node training?
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/captures.h"
#include "cli/commands.h"
#include "cli/judge.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "core/root.h"
#include "engine/engine.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"
#include "probes/probes.h"

namespace trainready {
namespace {

struct DoctorArgs {
  std::vector<std::string> roots;
  std::vector<std::string> captures;
  std::string imds_url;
  bool no_imds = false;
  std::string env_file;
  SharedFlags flags;
  std::vector<std::string> nccl_logs;
  std::string nccl_tests;
  std::string nvml_library;
  std::string nccl_library;
  int imds_timeout_ms = 1500;
};

int run_doctor(const DoctorArgs& a) {
  a.flags.check();  // bad options fail before anything is probed
  if (!a.captures.empty() && a.roots.size() > 1) {
    throw InputError("--capture", 0,
                     "captures describe one node; use them with at most one --root");
  }
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
      require_snapshot_root(*root, r);
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
  Report r = start_report("doctor", a.flags);
  r.nodes = std::move(nodes);
  // A run's NCCL log and nccl-tests output, judged together with the nodes.
  if (!a.nccl_logs.empty()) {
    auto log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(a.nccl_logs));
    if (!has_nccl_output(*log)) throw InputError(a.nccl_logs.front(), 0, kNoNcclOutput);
    r.nccl_log = std::move(log);
  }
  if (!a.nccl_tests.empty())
    r.nccl_tests = std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(a.nccl_tests));
  return judge_and_emit(r, a.flags);
}

}  // namespace

Runner add_doctor_command(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  CLI::App* c = app.add_subcommand(
      "doctor", "Check this node (or snapshots of several) for multi-node training");
  c->add_option("--root", a->roots,
                "Read a snapshot directory instead of the live machine (repeat for several nodes)");
  c->add_option(
      "--capture", a->captures,
      "Fold in a capture: ibstat, ibstatus, ibv_devinfo -v, lspci, ofed_info -s, "
      "nvidia-smi topo -m, IMDS "
      "JSON, env dump, kernel log (dmesg, journalctl -k: Xid errors), ib_write_bw output, "
      "/opt/azurehpc/component_versions.txt, /etc/nccl.conf, scontrol show node, sinfo -R, "
      "nvidia-smi [-q], ibdev2netdev, show_gids, mst status -v, dcgmi diag, "
      "nvidia-bug-report.log, or a pasted terminal session "
      "holding several of them with their prompts and command lines (FILE, - for stdin, or "
      "KIND=FILE; repeatable). Without --root, only the captures are judged");
  c->add_option("--imds", a->imds_url,
                "Ask this instance-metadata URL (even off Azure or for a snapshot)");
  c->add_flag("--no-imds", a->no_imds, "Never ask the instance metadata service");
  c->add_option("--imds-timeout-ms", a->imds_timeout_ms, "IMDS timeout in milliseconds")
      ->check(CLI::Range(10, 60000));
  c->add_option(
      "--env-file", a->env_file,
      "Judge this captured environment (env output or /proc/PID/environ) instead of ours");
  c->add_option("--nccl-log", a->nccl_logs,
                "Also judge this NCCL_DEBUG=INFO log (file, directory of per-rank logs, gzip; "
                "repeatable)");
  c->add_option("--nccl-tests", a->nccl_tests, "Also judge this nccl-tests output (table or JSON)");
  add_shared_flags(c, a->flags,
                   kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag | kXidFlag);
  c->add_option("--nvml-library", a->nvml_library,
                "NVML library to load (default libnvidia-ml.so.1)");
  c->add_option("--nccl-library", a->nccl_library,
                "NCCL library to ask for its version (default libnccl.so.2)");
  return [a] { return run_doctor(*a); };
}

}  // namespace trainready
