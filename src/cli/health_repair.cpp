#include "cli/health_repair.h"

#include <algorithm>
#include <ctime>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/slurm_drain.h"
#include "collect/command_runner.h"
#include "core/input_error.h"
#include "core/text.h"
#include "parsers/scontrol_node.h"

namespace trainready {
namespace {

std::string iso_utc(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  if (::gmtime_r(&tt, &tm) == nullptr) return std::to_string(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

RepairPlan plan_repair(const std::vector<Finding>& findings, const HealthFacts& facts,
                       Severity fail_on) {
  RepairPlan p;
  std::vector<std::pair<HealthVerdict, Finding>> failing;
  for (const Finding& f : findings) {
    if (f.severity < fail_on || f.rule_id.rfind("health-", 0) != 0) continue;
    for (HealthVerdict& v : health_verdicts(facts, f.rule_id))
      if (v.message == f.message) {
        failing.emplace_back(std::move(v), f);
        break;
      }
  }
  std::stable_sort(failing.begin(), failing.end(),
                   [](const auto& a, const auto& b) { return a.first.action > b.first.action; });
  for (auto& [v, f] : failing) {
    if (p.failing.empty()) {
      p.action = v.action;
      p.ghr_category = v.ghr_category;
      p.ghr_description = v.message;
    }
    Finding led = f;
    led.message = "action=" + std::string(to_string(v.action)) +
                  (v.ghr_category.empty() ? "" : " ghr=" + v.ghr_category) + ": " + f.message;
    p.failing.push_back(std::move(led));
  }
  return p;
}

std::string ghr_body(const RepairPlan& p, const HealthFacts& facts) {
  if (p.action != RepairAction::kReportAzure || p.ghr_category.empty()) return "";
  // Microsoft Learn's field order (ordered_json keeps it).
  const nlohmann::ordered_json body = {
      {"properties",
       {{"startDateTime", iso_utc(facts.state.updated_at)},
        {"impactCategory", p.ghr_category},
        {"impactDescription", p.ghr_description},
        {"impactedResourceId",
         facts.resource_id.empty()
             ? "/subscriptions/<subscriptionId>/resourceGroups/<rg>/providers/"
               "Microsoft.Compute/virtualMachines/<vm>"
             : facts.resource_id},
        {"additionalProperties",
         {{"PhysicalHostName", "<PhysicalHostName from /var/lib/hyperv/.kvp_pool_3>"},
          {"VmUniqueId", facts.vm_id.empty() ? "<vmId from IMDS compute.vmId>" : facts.vm_id}}}}}};
  return body.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void print_repair_plan(std::ostream& out, const RepairPlan& p, const HealthFacts& facts,
                       const std::string& node) {
  if (p.failing.empty()) return;
  const std::string n = terminal_safe(node);
  out << "repair: " << to_string(p.action)
      << (p.ghr_category.empty() ? "" : " (" + p.ghr_category + ")") << " for " << n << "\n";
  int step = 1;
  if (p.action == RepairAction::kIgnore || p.action == RepairAction::kRestartJob) {
    out << "  " << step++ << ". "
        << (p.action == RepairAction::kIgnore ? "nothing to do on the node now"
                                              : "restart the job; the node stays in service")
        << "\n";
    return;
  }
  out << "  " << step++ << ". drain " << n << " (the reason carries the action; see below)\n";
  out << "  " << step++ << ". collect the evidence before anything restarts: `trainready "
      << "collect --out " << n << "-evidence` and `sudo nvidia-bug-report.sh`\n";
  const std::string body = ghr_body(p, facts);
  if (!body.empty()) {
    out << "  " << step++ << ". file a Guest Health Report (printed, not sent):\n     PUT "
        << kGhrUrl << "\n";
    std::string indented = terminal_safe(body);
    std::string line;
    for (char c : indented) {
      if (c == '\n') {
        out << "     " << line << "\n";
        line.clear();
      } else {
        line += c;
      }
    }
    if (!line.empty()) out << "     " << line << "\n";
    out << "  " << step++ << ". then deallocate the VM (Azure takes an Unhealthy host out for "
        << "repair) or reboot it once Azure has the report\n";
  } else if (p.action == RepairAction::kResetGpu) {
    out << "  " << step++ << ". reset the GPU (`nvidia-smi -r -i <index>`) or reboot\n";
  } else if (p.action == RepairAction::kReboot) {
    out << "  " << step++ << ". reboot (`sudo reboot`, or GHR Resource.Hpc.Reboot)\n";
  } else if (p.action == RepairAction::kRedeploy) {
    out << "  " << step++ << ". deallocate and start the VM (it moves to other hardware)\n";
  }
  out << "  " << step++ << ". resume: the next `trainready health --drain` sample with a clear "
      << "state resumes it (sticky states need `--clear`)\n";
}

void slurm_act(std::ostream& out, std::ostream& err, const RepairPlan& p, const std::string& node,
               const SlurmAct& how) {
  const bool fails = !p.failing.empty();
  const std::string found = find_scontrol(std::getenv("PATH"));
  const std::string scontrol = found.empty() ? std::string("scontrol") : found;
  const std::string reason = drain_reason(p.failing);
  if (!how.act || how.record_only) {
    const char* lead = how.record_only ? "record-only, would run: " : "would run: ";
    if (fails)
      out << lead << shell_line(drain_argv(scontrol, node, reason))
          << (how.record_only ? "\n" : " (--drain runs it)\n");
    else if (how.record_only)
      out << lead << shell_line(resume_argv(scontrol, node))
          << " (only if trainready drained it)\n";
    return;
  }
  if (found.empty()) {
    err << "trainready: cannot change " << node
        << " in Slurm: scontrol not found on PATH, /usr/bin, /usr/local/bin, /bin or "
           "/opt/slurm/bin\n";
    return;
  }
  const std::vector<std::string> show = {scontrol, "show", "node", node, "-o"};
  const CommandResult shown = run_command(show, how.timeout_ms, 1 << 16, true);
  if (!shown.found || shown.timed_out || shown.exit_code != 0) {
    err << "trainready: " << shell_line(show)
        << " failed: " << terminal_safe(first_line(shown.output)) << "; " << node
        << " left as it is\n";
    return;
  }
  ScontrolNode now;
  try {
    now = parse_scontrol_node(shown.output, "scontrol show node " + node);
  } catch (const InputError& e) {
    err << "trainready: " << terminal_safe(e.what()) << "; " << node << " left as it is\n";
    return;
  }
  const bool ours = now.reason.rfind(kDrainReasonLeader, 0) == 0;
  std::vector<std::string> change;
  if (fails) {
    if (!now.reason.empty() && !ours) {
      out << "left as it is: " << node
          << " has a reason trainready did not set: " << terminal_safe(now.reason) << "\n";
      return;
    }
    change = drain_argv(scontrol, node, reason);
  } else if (ours &&
             (now.has_flag("DRAIN") || now.has_flag("DRAINED") || now.has_flag("DRAINING"))) {
    change = resume_argv(scontrol, node);
  } else {
    return;
  }
  const CommandResult res = run_command(change, how.timeout_ms, 4096, true);
  if (res.found && !res.timed_out && res.exit_code == 0) {
    out << (fails ? "drained: " : "resumed: ") << shell_line(change) << "\n";
    return;
  }
  err << "trainready: " << shell_line(change) << " failed: "
      << (res.timed_out ? std::string("no answer") : terminal_safe(first_line(res.output))) << "\n";
}

}  // namespace trainready
