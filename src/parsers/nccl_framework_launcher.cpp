// The launcher's own failure lines, each from its source:
// - Open MPI 1.x-4.1 (ORTE), orte/mca/errmgr/base/help-errmgr-base.txt @ v4.1.8:
//   [failed-daemon-launch] "ORTE was unable to reliably start one or more daemons.",
//   [failed-daemon] "An ORTE daemon has unexpectedly failed after launch and before
//   communicating back to mpirun.", [node-died] "ORTE has lost communication with a remote
//   daemon.";
// - PRRTE (Open MPI 5's runtime), src/mca/errmgr/base/help-errmgr-base.txt @ 52d5e4b: the same
//   three, "%s was unable to reliably start one or more daemons." (the tool's name),
//   "An PRTE daemon has unexpectedly failed after launch ...", "PRTE has lost communication with
//   a remote daemon.";
// - the daemon not found by the remote shell (mpirun starts orted / prted over ssh in a
//   non-interactive shell): bash's "orted: command not found";
// - OpenSSH, which mpirun and pdsh start: sshconnect.c:554 "ssh: connect to host %s port %s: %s",
//   sshconnect2.c:104 "Host key verification failed.", sshconnect2.c:543 "%s@%s: Permission
//   denied (%s)." ("Permission denied (%s)." before 8.x), ssh.c:265 "%s: Could not resolve
//   hostname %.100s: %s" @ openssh-portable 0ef0f5a;
// - pdsh (DeepSpeed's multi-node launcher), src/common/pipecmd.c:231 @ 21f5996: "%p: %S: %s
//   exited with exit code %d" (%s the rcmd program, ssh) - 255 is ssh's own status (openssh
//   clientloop.c starts it at -1): it could not connect or log in, or the connection or the remote
//   command ended without an exit status; any other code is the remote command's, and 127 the
//   shell's "command not found" (bash manual, "Exit Status"). Its rsh module, src/modules/xrcmd.c @
//   21f5996: "%p: %S: connect: %m",
//   "%p: %S: rcmd: socket: %m" (%p "pdsh@<host>" or "pdcp@<host>").
#include "parsers/nccl_framework_launcher.h"

namespace trainready::framework_lines {

std::optional<LauncherLine> launcher_failure(std::string_view t, const Bigrams& bg) {
  const auto in = [&](std::string_view needle) { return find(bg, t, needle) != t.npos; };
  if (in("unable to reliably start one or more daemons"))
    return LauncherLine{in("ORTE") ? "Open MPI" : "PRRTE", "daemon not started"};
  if (in("daemon has unexpectedly failed after launch"))
    return LauncherLine{in("ORTE") ? "Open MPI" : "PRRTE", "daemon failed at start"};
  if (in("has lost communication with a remote daemon"))
    return LauncherLine{in("ORTE") ? "Open MPI" : "PRRTE", "daemon lost"};
  // bash: "orted: command not found"; zsh: "command not found: orted".
  if (in("orted: command not found") || in("command not found: orted"))
    return LauncherLine{"Open MPI", "daemon not on PATH"};
  if (in("prted: command not found") || in("command not found: prted"))
    return LauncherLine{"PRRTE", "daemon not on PATH"};
  // pdsh prints "pdsh@<launching host>: <node>: ssh exited with exit code N".
  if (in("pdsh@") && in(": ssh exited with exit code 255")) return LauncherLine{"pdsh", "ssh 255"};
  if (in("pdsh@") && in(": ssh exited with exit code 127")) return LauncherLine{"pdsh", "ssh 127"};
  if ((in("pdsh@") || in("pdcp@")) && (in(": connect: ") || in(": rcmd: socket: ")))
    return LauncherLine{"pdsh", "pdsh rsh"};
  // The remote shell's own words for a program it could not run, which pdsh prefixes with the
  // node ("node2: bash: line 1: /opt/env/bin/python: No such file or directory"): evidence for
  // pdsh's exit code 127, never a reading alone (any script prints such lines).
  if ((in("bash: ") || in("sh: ")) &&
      (in(": command not found") || in(": No such file or directory")))
    return LauncherLine{"shell", "remote command missing"};
  // OpenSSH's own lines say nothing of who ran ssh (git, pip, rsync do too): the rule reads them
  // only beside a launcher's line (launcher_command below, or one of the lines above).
  if (in("ssh: connect to host ") && in(" port ")) return LauncherLine{"ssh", "ssh connect"};
  if (in("Host key verification failed.")) return LauncherLine{"ssh", "ssh host key"};
  if (in("Permission denied (publickey") || in("Permission denied (gssapi") ||
      in("Permission denied (password"))
    return LauncherLine{"ssh", "ssh authentication"};
  if (in("ssh: Could not resolve hostname ")) return LauncherLine{"ssh", "ssh host name"};
  return std::nullopt;
}

std::optional<std::string_view> launcher_command(std::string_view t, const Bigrams& bg) {
  // A command line as a shell prompt or a script echoes it: the launcher's name as a word, then
  // a blank ("mpirun -np 16 ...", "$ mpiexec --hostfile h ...", "+ prterun ...").
  // DeepSpeed's own `deepspeed` command runs pdsh on every node of its hostfile
  // (deepspeed/launcher/runner.py: pdsh is its default multi-node launcher).
  static constexpr std::string_view kLaunchers[] = {"mpirun", "mpiexec", "prterun", "pdsh",
                                                    "deepspeed"};
  for (std::string_view name : kLaunchers) {
    for (std::size_t p = find(bg, t, name); p != t.npos; p = t.find(name, p + 1)) {
      const bool word_start = p == 0 || t[p - 1] == ' ' || t[p - 1] == '/' || t[p - 1] == '`';
      const std::size_t e = p + name.size();
      if (word_start && e < t.size() && t[e] == ' ') return name;
    }
  }
  return std::nullopt;
}

}  // namespace trainready::framework_lines
