// framework-launcher-failed: the launcher's own failure lines (Open MPI's and PRRTE's help texts,
// OpenSSH's and pdsh's messages, each cited in src/parsers/nccl_framework_launcher.cpp), read in
// the words those programs print; the real log is NVIDIA/nccl-tests#299 (holdout9).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Finding launcher(const std::string& log) {
  const RuleOutcome o = log_rule("framework-launcher-failed", log_text(log));
  return o.findings.empty() ? Finding{} : o.findings[0];
}

// NVIDIA/nccl-tests#299: ssh refused, then PRRTE lost its daemon; the maintainer: "Your MPI
// installation does not work correctly in a multi-node setting."
TEST(FrameworkLauncherFailed, SshRefusedComesBeforeTheDaemonPrrteLost) {
  const std::string log =
      read_all(std::string(TR_TEST_DATA) + "/nccl-public/gh-nccltests-299-mpi-ssh-broken.log");
  ASSERT_FALSE(log.empty());
  const std::vector<Finding> all = judge_log(log);
  ASSERT_FALSE(all.empty());
  const Finding& x = all[0];
  EXPECT_EQ(x.rule_id, "framework-launcher-failed");
  EXPECT_EQ(x.severity, Severity::kError);
  EXPECT_EQ(x.message, "ssh could not connect to a node: NCCL never started there");
  EXPECT_NE(x.cause.find("\"Connection refused\" means nothing listens"), std::string::npos);
  EXPECT_NE(x.fix.find("ssh <node> true"), std::string::npos);
  EXPECT_FALSE(x.consequence);
  ASSERT_EQ(x.evidence.size(), 3u);  // ssh's line, PRRTE's, and the mpirun command line
  EXPECT_NE(x.evidence[1].text.find("PRTE has lost communication"), std::string::npos);
  EXPECT_NE(x.evidence[2].text.find("mpirun --allow-run-as-root"), std::string::npos);
}

TEST(FrameworkLauncherFailed, EachLauncherLineHasItsOwnReading) {
  const std::pair<const char*, const char*> cases[] = {
      // Open MPI 4.1 (help-errmgr-base.txt [failed-daemon-launch]) after bash's own line.
      {"bash: orted: command not found\n"
       "ORTE was unable to reliably start one or more daemons.\n",
       "Open MPI's daemon (orted / prted) was not found on a remote node"},
      {"ORTE was unable to reliably start one or more daemons.\n",
       "mpirun could not start its daemon on one or more nodes"},
      {"prterun was unable to reliably start one or more daemons.\n",
       "mpirun could not start its daemon on one or more nodes"},
      {"An ORTE daemon has unexpectedly failed after launch and before\n",
       "mpirun's daemon on a node failed before it called back"},
      {"zsh:1: command not found: prted\n",
       "Open MPI's daemon (orted / prted) was not found on a remote node"},
      // OpenSSH's own lines, beside the launcher's command line.
      {"$ mpirun -np 16 -H node1,node7 ./all_reduce_perf -b 8 -e 1G\n"
       "Host key verification failed.\n",
       "ssh refused a node's host key"},
      {"mpiexec -n 2 --hostfile hosts python train.py\n"
       "node7: Permission denied (publickey,password).\n",
       "ssh could not log in to a node"},
      {"+ mpirun -np 2 -H worker-3 hostname\n"
       "ssh: Could not resolve hostname worker-3: Name or service not known\n",
       "ssh could not resolve a node's host name"},
      // The `deepspeed` command runs pdsh, which prefixes ssh's line with the node
      // (deepspeedai/DeepSpeedExamples#894).
      {"deepspeed --autotuning tune train.py -p 1 --steps=200 --deepspeed ds_config.json\n"
       "localhost: ssh: connect to host localhost port 22: Connection refused\n",
       "ssh could not connect to a node"},
      // DeepSpeed's launcher runs pdsh; 255 is ssh's own status, whatever ended it.
      {"pdsh@node1: node2: ssh exited with exit code 255\n",
       "ssh from pdsh to a node failed (exit code 255)"},
      // The line's form as chaos/pdsh#109 shows it (there a host name taken for a command).
      {"compute-0-0: bash: compute-0-1: command not found\n"
       "pdsh@rocks7: compute-0-0: ssh exited with exit code 127\n",
       "the command pdsh ran on a node was not found there (exit code 127)"},
      // pdsh's rsh module (its default when loaded): chaos/pdsh#127, and connect's own error.
      {"pdcp@localhost: host: rcmd: socket: Permission denied\n",
       "pdsh used its rsh module, not ssh, and could not reach a node"},
      {"pdsh@head: node3: connect: Connection refused\n",
       "pdsh used its rsh module, not ssh, and could not reach a node"},
  };
  for (const auto& [log, message] : cases)
    EXPECT_EQ(launcher(log).message, std::string(message) + ": NCCL never started there") << log;
}

// A daemon lost mid-run follows what took the node down: an earlier NCCL failure goes first.
TEST(FrameworkLauncherFailed, ADaemonLostAfterAnNcclFailureComesSecond) {
  const std::string lost =
      "ORTE has lost communication with a remote daemon.\n"
      "  HNP daemon   : [[51426,0],0] on node nodea\n"
      "  Remote daemon: [[51426,0],1] on node nodeb\n";
  const Finding alone = launcher(lost);
  EXPECT_EQ(alone.message,
            "mpirun lost contact with its daemon on a remote node: NCCL never "
            "started there");
  EXPECT_TRUE(alone.consequence);
  EXPECT_NE(alone.fix.find("journalctl -k"), std::string::npos);
  EXPECT_NE(alone.fix.find("oob_tcp_if_include"), std::string::npos);
  const std::vector<Finding> all = judge_log(
      "nodeb:4101:4170 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n"
      "nodeb:4101:4170 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
      "10.0.0.1<43212> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n"
      "nodeb:4101:4170 [0] NCCL INFO transport/net.cc:1134 -> 6\n" +
      lost);
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[0].rule_id, "nccl-ib-completion-error");
  const Finding* later = nullptr;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].rule_id == "framework-launcher-failed") later = &all[i];
  ASSERT_NE(later, nullptr);
  // NCCL ran there: its processes were lost, and NCCL_DEBUG is no dead end.
  EXPECT_EQ(later->message,
            "mpirun lost contact with its daemon on a remote node: the processes there were lost");
  EXPECT_EQ(later->cause.find("NCCL_DEBUG does not help"), std::string::npos);
}

// Each pdsh reading gets its own fix: ssh instead of rsh; the environment on every node.
TEST(FrameworkLauncherFailed, PdshReadingsGetTheirOwnFix) {
  const Finding rsh = launcher("pdsh@head: node3: connect: Connection refused\n");
  EXPECT_NE(rsh.fix.find("PDSH_RCMD_TYPE=ssh"), std::string::npos);
  EXPECT_NE(rsh.cause.find("port 514"), std::string::npos);
  // DeepSpeed starts the launching node's interpreter by its path: the shell names it.
  const Finding missing = launcher(
      "node3: bash: line 1: /home/u/miniconda3/envs/ds/bin/python: No such file or "
      "directory\n"
      "pdsh@head: node3: ssh exited with exit code 127\n");
  EXPECT_NE(missing.fix.find("same path on every node"), std::string::npos);
  EXPECT_EQ(missing.fix.find("PDSH_RCMD_TYPE"), std::string::npos);
  ASSERT_EQ(missing.evidence.size(), 2u);
  EXPECT_NE(missing.evidence[0].text.find("envs/ds/bin/python"), std::string::npos);
  // A shell's line alone is no launcher failure; beside another reading it is not evidence.
  EXPECT_TRUE(launcher("bash: nvidia-smi: command not found\n").message.empty());
  EXPECT_EQ(launcher("bash: nvidia-smi: command not found\n"
                     "pdsh@head: node3: connect: Connection refused\n")
                .evidence.size(),
            1u);
  // 127 after NCCL completed its init: a later command of a wrapper, not the job's start.
  EXPECT_TRUE(launcher("node2:7:7 [0] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 0 busId 1000 "
                       "commId 0x9 - Init COMPLETE\n"
                       "node2: bash: upload_results: command not found\n"
                       "pdsh@node1: node2: ssh exited with exit code 127\n")
                  .message.empty());
  // Other exit codes are the remote program's own: nothing the launcher did.
  EXPECT_TRUE(launcher("pdsh@head: node3: ssh exited with exit code 2\n").message.empty());
}

TEST(FrameworkLauncherFailed, ADaemonThatCannotCallBackGetsTheInterfaceFix) {
  const Finding x = launcher(
      "An ORTE daemon has unexpectedly failed after launch and before\n"
      "communicating back to mpirun. This could be caused by a number\n");
  EXPECT_NE(x.fix.find("--mca oob_tcp_if_include"), std::string::npos);
  EXPECT_EQ(x.fix.find("authorized_keys"), std::string::npos);
}

// ssh is also git's, pip's and rsync's: its lines alone, or once the job has started, are not
// the launcher's.
TEST(FrameworkLauncherFailed, QuietOnSshLinesThatAreNotTheLaunchers) {
  // "deepspeed" as a word in a module path or prose is no command line.
  EXPECT_TRUE(launcher("[INFO] cmd = /usr/bin/python -u -m deepspeed.launcher.launch\n"
                       "ssh: connect to host github.com port 22: Connection timed out\n")
                  .message.empty());
  EXPECT_TRUE(launcher("Cloning into 'apex'...\n"
                       "git@github.com: Permission denied (publickey).\n"
                       "fatal: Could not read from remote repository.\n")
                  .message.empty());
  EXPECT_TRUE(
      launcher("ssh: connect to host github.com port 22: Connection timed out\n").message.empty());
  EXPECT_TRUE(launcher("mpirun -np 2 -H a,b ./train.sh\n"
                       "a:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                       "a:100:100 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
                       "busId 1000 commId 0x1 - Init COMPLETE\n"
                       "git@github.com: Permission denied (publickey).\n")
                  .message.empty());
}

TEST(FrameworkLauncherFailed, QuietOnSshsNoticesAndOnLogsWithoutALauncherFailure) {
  EXPECT_TRUE(launcher("Warning: Permanently added 'node2,10.0.0.2' (ECDSA) to the list of known "
                       "hosts.\n")
                  .message.empty());
  EXPECT_TRUE(launcher("pdsh@node1: node2: ssh exited with exit code 1\n").message.empty());
  EXPECT_TRUE(launcher("node1:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                       "node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
                  .message.empty());
}

}  // namespace
}  // namespace trainready::test
