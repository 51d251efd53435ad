// framework-launcher-failed: mpirun / prterun, the ssh it starts its daemons through, or pdsh
// (DeepSpeed's launcher) could not start, or lost, the processes on a remote node: NCCL never
// ran there, so no NCCL line can say why (src/parsers/nccl_framework_launcher.cpp cites each
// line's source).
#include <array>
#include <string_view>

#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

enum class Fix { kSsh, kPath, kConnectBack, kStart, kLost, kRcmd, kRemoteCommand };

struct LauncherReading {
  std::string_view detail;
  std::string_view message;
  std::string_view cause;
  Fix fix;
  bool ssh_line = false;  // OpenSSH's own line: the launcher's only beside a launcher's line
};

// Most specific first: ssh's own refusal explains the daemon mpirun then could not start or lost.
constexpr std::array<LauncherReading, 11> kReadings{{
    {"ssh host name", "ssh could not resolve a node's host name",
     "mpirun (or pdsh) starts its processes on each remote node over ssh, and a name in the host "
     "list or hostfile does not resolve on the node the launcher runs on (DNS, /etc/hosts, a "
     "short name where only the full one resolves, a placeholder left in the hostfile).",
     Fix::kSsh, true},
    {"ssh connect", "ssh could not connect to a node",
     "mpirun (or pdsh) starts its processes on each remote node over ssh, and the TCP connection "
     "to that node's sshd failed: \"Connection refused\" means nothing listens on the port (no "
     "sshd in the container or pod, another port), \"No route to host\" or a time-out a network "
     "or firewall between the nodes.",
     Fix::kSsh, true},
    {"ssh host key", "ssh refused a node's host key",
     "mpirun starts its daemons over ssh without a terminal, so ssh cannot ask whether to trust "
     "a node it has never seen (or whose key changed, e.g. a re-imaged VM): the node's key is not "
     "in known_hosts.",
     Fix::kSsh, true},
    {"ssh authentication", "ssh could not log in to a node",
     "mpirun starts its daemons over ssh without a terminal, so ssh needs a key the node accepts "
     "for this user (passwordless ssh); no key was accepted.",
     Fix::kSsh, true},
    {"pdsh rsh", "pdsh used its rsh module, not ssh, and could not reach a node",
     "pdsh runs the command through the first remote-command module it has loaded of mrsh, rsh, "
     "ssh (its default order) unless PDSH_RCMD_TYPE or -R names one; \"connect:\" and \"rcmd: "
     "socket:\" are its rsh module's errors. rsh needs an rshd listening on each node (port "
     "514, which few nodes run) and a reserved source port that only root may bind (\"rcmd: "
     "socket: Permission denied\" as another user).",
     Fix::kRcmd},
    {"ssh 255", "ssh from pdsh to a node failed (exit code 255)",
     "pdsh (DeepSpeed's multi-node launcher) runs the command on each node over ssh, and 255 is "
     "ssh's own status: it could not connect or log in, or the connection or the remote command "
     "ended without an exit status (OpenSSH starts it at -1). The lines ssh printed before it "
     "tell which.",
     Fix::kSsh},
    {"ssh 127", "the command pdsh ran on a node was not found there (exit code 127)",
     "pdsh's \"ssh exited with exit code N\" is the remote command's exit status, and 127 is the "
     "shell's for a program it could not find (\"command not found\", or \"No such file or "
     "directory\" for a path): the program is not at that path, or not on the PATH of the "
     "non-interactive shell ssh starts, on that node. DeepSpeed's pdsh runner starts "
     "`cd <dir>; <the launching node's Python, by its absolute path> -u -m "
     "deepspeed.launcher.launch ...` (multinode_runner.py), so that interpreter (a conda or "
     "virtual environment) must exist at the same path on every node.",
     Fix::kRemoteCommand},
    {"daemon not on PATH", "Open MPI's daemon (orted / prted) was not found on a remote node",
     "mpirun runs its daemon on each remote node through a non-interactive shell, which does not "
     "read the PATH an interactive login sets: Open MPI is not installed on that node, or at "
     "another path than on the launching node.",
     Fix::kPath},
    {"daemon not started", "mpirun could not start its daemon on one or more nodes",
     "Open MPI's help text for this line names its causes: the daemon (orted / prted) or its "
     "libraries not found on a node (PATH, LD_LIBRARY_PATH), no authority to run there, /tmp not "
     "writable, or no route from the daemon back to mpirun (no common network interface, a "
     "firewall). The lines before it, when the log holds them (ssh's, the shell's), tell which.",
     Fix::kStart},
    {"daemon failed at start", "mpirun's daemon on a node failed before it called back",
     "The daemon started on the node but could not connect back to mpirun: the nodes share no "
     "network interface mpirun can use, or a firewall or route blocks it (Open MPI's help text).",
     Fix::kConnectBack},
    {"daemon lost", "mpirun lost contact with its daemon on a remote node",
     "The daemon on that node, or its TCP connection to mpirun, went away (Open MPI's help text): "
     "at start-up a network or firewall problem between the nodes; during a run the node itself "
     "(it rebooted, crashed, ran out of memory and the OOM killer took the daemon) or its "
     "network. The processes on it were lost with it.",
     Fix::kLost},
}};

constexpr std::string_view kConfirm =
    " Confirm: `mpirun -np 2 -H <node1>,<node2> hostname` prints both names before nccl-tests or "
    "the job runs.";
constexpr std::string_view kSshFix =
    "From the node that runs the launcher, make `ssh <node> true` work for this user without a "
    "prompt (sshd running on the port, the key in the node's authorized_keys, the node in "
    "known_hosts, the name resolvable); or launch through the scheduler instead of ssh (`srun`, "
    "the Kubeflow MPI Operator).";
constexpr std::string_view kPathFix =
    "Install the same Open MPI at the same path on every node, or run `mpirun --prefix <dir>` "
    "(Open MPI's own answer; `--enable-mpirun-prefix-by-default` at configure time does it for "
    "every run), so the non-interactive shell finds the daemon and its libraries.";
constexpr std::string_view kConnectBackFix =
    "Let the daemons reach mpirun: name the interface the nodes share (`--mca oob_tcp_if_include "
    "<if>`, and `--mca btl_tcp_if_include <if>` for MPI's own traffic) and open the firewall "
    "between the nodes for it.";

constexpr std::string_view kPdshConfirm =
    " Confirm: `pdsh -R ssh -w <node1>,<node2> hostname` prints both names.";
constexpr std::string_view kRcmdFix =
    "Run pdsh over ssh: `export PDSH_RCMD_TYPE=ssh` or `pdsh -R ssh` (`pdsh -V` lists the "
    "modules and the default). DeepSpeed's pdsh runner sets PDSH_RCMD_TYPE=ssh itself, so this "
    "shows where pdsh is run by hand or by another script.";
constexpr std::string_view kRemoteCommandFix =
    "Install the same environment at the same path on every node (a shared file system, or the "
    "same container image); the shell's line before pdsh's names the program it could not run.";

std::string fix_for(Fix f) {
  switch (f) {
    case Fix::kRcmd:
      return std::string(kRcmdFix) + std::string(kPdshConfirm);
    case Fix::kRemoteCommand:
      return std::string(kRemoteCommandFix) +
             " Confirm: `pdsh -R ssh -w <node> 'ls -l <that program>'` on each node.";
    case Fix::kSsh:
      return std::string(kSshFix) + std::string(kConfirm);
    case Fix::kPath:
      return std::string(kPathFix) + std::string(kConfirm);
    case Fix::kConnectBack:
      return std::string(kConnectBackFix) + std::string(kConfirm);
    case Fix::kStart:
      return std::string(kSshFix) + " " + std::string(kPathFix) + " " +
             std::string(kConnectBackFix) + std::string(kConfirm);
    case Fix::kLost:
      break;
  }
  return "If it happened during the run, read that node's kernel log at the time of the line "
         "(`journalctl -k`: the OOM killer, an Xid, a reboot) and drain the node if it failed; "
         "if at start-up, " +
         std::string(kConnectBackFix) + std::string(kConfirm);
}

class FrameworkLauncherFailed : public Rule {
 public:
  std::string_view id() const override { return "framework-launcher-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "The launcher could not start or keep the processes on a remote node";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    auto events = framework_events(f.framework, {FrameworkEventKind::kLauncherFailed});
    // OpenSSH's lines are the launcher's only beside a launcher's own line (git, pip and rsync
    // run ssh too), and never once NCCL completed its init (the job started).
    bool launcher = f.framework.launcher.has_value();
    for (const FrameworkEvent* e : events)
      launcher = launcher || (e->framework != "ssh" && e->framework != "shell");
    const bool started = f.init_complete_line.has_value();
    std::erase_if(events, [&](const FrameworkEvent* e) {
      return e->framework == "ssh" && (!launcher || started);
    });
    // pdsh's 127 once NCCL completed its init is a later command's (a wrapper's upload step),
    // not the job's start.
    if (started)
      std::erase_if(events, [](const FrameworkEvent* e) { return e->detail == "ssh 127"; });
    const LauncherReading* reading = nullptr;
    for (const LauncherReading& r : kReadings) {
      for (const FrameworkEvent* e : events)
        if (e->detail == r.detail) reading = &r;
      if (reading != nullptr) break;
    }
    if (reading == nullptr) return {};
    // The shell's "<program>: No such file or directory" names what pdsh's 127 could not run.
    if (reading->detail != "ssh 127")
      std::erase_if(events, [](const FrameworkEvent* e) { return e->framework == "shell"; });
    const bool nccl_ran = f.nccl_lines > 0;
    const bool lost = reading->fix == Fix::kLost;
    Finding x = finding(std::string(reading->message) + (lost && nccl_ran
                                                             ? ": the processes there were lost"
                                                             : ": NCCL never started there"));
    for (const FrameworkEvent* e : events)
      if (x.evidence.size() < 4) x.evidence.push_back(framework_evidence(*e));
    if (f.framework.launcher && x.evidence.size() < 4)
      x.evidence.push_back({f.framework.launcher->text, f.framework.launcher->where});
    x.cause = std::string(reading->cause);
    if (!(lost && nccl_ran)) x.cause += " NCCL_DEBUG does not help: NCCL has not run there.";
    x.fix = fix_for(reading->fix);
    // A daemon lost mid-run follows whatever took the node down: an earlier failure in the log
    // goes first (src/engine/failure_order.h).
    if (lost) {
      for (const FrameworkEvent* e : events)
        if (e->detail == reading->detail) {
          x.onset = {e->where, e->time, ""};
          break;
        }
      x.consequence = true;
    }
    x.rank = 45;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_launcher_failed() {
  return std::make_unique<FrameworkLauncherFailed>();
}

}  // namespace trainready
