#include "cli/slurm_health.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <ostream>
#include <utility>
#include <vector>

#include "cli/judge.h"
#include "cli/slurm_drain.h"
#include "collect/command_runner.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/text.h"
#include "parsers/scontrol_node.h"

namespace trainready {
namespace {

// slurmd's own node name defaults to `hostname -s` (slurm.conf NodeName), so the fallback is
// the host name up to its first dot.
std::string short_host_name() {
  const std::string name = host_name();
  const std::size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

int run_slurm_health(NodeFacts node, const SharedFlags& flags, const SlurmHealthOptions& opt,
                     std::ostream& out, std::ostream& err) {
  flags.check();
  const std::string slurm_node = slurm_node_name(std::getenv("SLURMD_NODENAME"), short_host_name());
  Report r = start_report("fleet", flags);
  r.nodes.push_back(std::move(node));
  const Evaluation ev = run_rules(r, flags);
  const Severity fail_on = flags.fail_on_severity();
  std::vector<Finding> failing;
  for (const Finding& f : ev.findings)
    if (f.severity >= fail_on) failing.push_back(f);

  const std::string found = find_scontrol(std::getenv("PATH"));
  const std::string scontrol = found.empty() ? std::string("scontrol") : found;
  const int code = failing.empty() ? 0 : 1;
  if (failing.empty()) {
    out << "trainready: " << slurm_node << " healthy (" << ev.evaluations
        << " rule evaluations, none at or above " << to_string(fail_on) << ")\n";
  } else {
    out << drain_reason(failing) << "\n";
  }
  if (!opt.drain) {
    if (code != 0)
      out << "would run: " << shell_line(drain_argv(scontrol, slurm_node, drain_reason(failing)))
          << " (--drain runs it)\n";
    return code;
  }
  if (found.empty()) {
    err << "trainready: cannot change " << slurm_node
        << " in Slurm: scontrol not found on PATH, /usr/bin, /usr/local/bin, /bin or "
           "/opt/slurm/bin\n";
    return code;
  }
  // What Slurm says of the node now: NHC's rule, a reason someone else set is theirs.
  const std::vector<std::string> show = {scontrol, "show", "node", slurm_node, "-o"};
  const CommandResult shown = run_command(show, opt.scontrol_timeout_ms, 1 << 16, true);
  if (!shown.found || shown.timed_out || shown.exit_code != 0) {
    err << "trainready: " << shell_line(show) << " failed ("
        << (shown.timed_out
                ? "no answer in " + std::to_string(opt.scontrol_timeout_ms / 1000) + " s"
                : "exit " + std::to_string(shown.exit_code))
        << "): " << terminal_safe(first_line(shown.output)) << "; " << slurm_node
        << " left as it is\n";
    return code;
  }
  ScontrolNode now;
  try {
    now = parse_scontrol_node(shown.output, "scontrol show node " + slurm_node);
  } catch (const InputError& e) {
    // The verdict stands; only the change is off, since what Slurm holds is unknown.
    err << "trainready: " << terminal_safe(e.what()) << "; " << slurm_node << " left as it is\n";
    return code;
  }
  const bool ours = now.reason.rfind(kDrainReasonLeader, 0) == 0;
  std::vector<std::string> change;
  if (code != 0) {
    if (!now.reason.empty() && !ours) {
      out << "left as it is: " << slurm_node << " (State=" << terminal_safe(now.state)
          << ") has a reason trainready did not set: " << terminal_safe(now.reason) << "\n";
      return code;
    }
    change = drain_argv(scontrol, slurm_node, drain_reason(failing));
  } else if (ours &&
             (now.has_flag("DRAIN") || now.has_flag("DRAINED") || now.has_flag("DRAINING"))) {
    // NHC's node-mark-online: a node we drained and that now passes goes back into service.
    change = resume_argv(scontrol, slurm_node);
  } else {
    return code;
  }
  const CommandResult res = run_command(change, opt.scontrol_timeout_ms, 4096, true);
  if (res.found && !res.timed_out && res.exit_code == 0) {
    out << (code != 0 ? "drained: " : "resumed: ") << shell_line(change) << "\n";
    return code;
  }
  err << "trainready: " << shell_line(change) << " failed: ";
  if (!res.found)
    err << "could not start it";
  else if (res.timed_out)
    err << "no answer in " << opt.scontrol_timeout_ms / 1000 << " s";
  else
    err << "exit " << res.exit_code << ": " << terminal_safe(first_line(res.output));
  err << "\n";
  return code;
}

}  // namespace trainready
