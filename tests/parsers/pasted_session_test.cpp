// The splitter of pasted terminal sessions (parsers/pasted_session.h): prompt forms people paste,
// the lines that only look like prompts, and the wrappers around the program that does the work.
#include <gtest/gtest.h>

#include "parsers/pasted_session.h"

using namespace trainready;

TEST(PastedSession, PromptFormsGiveTheirCommand) {
  EXPECT_EQ(command_of_line("admin@gpu-07:~$ sudo ibstat"), "sudo ibstat");
  EXPECT_EQ(command_of_line("root@test-sriov-ib-pod:~# ibstat mlx5_7"), "ibstat mlx5_7");
  EXPECT_EQ(command_of_line("[root@node ~]# ofed_info -s"), "ofed_info -s");
  EXPECT_EQ(command_of_line("[root@01 ~/]$ ibstat"), "ibstat");
  EXPECT_EQ(command_of_line("(venv) user@host:~/run$ nvidia-smi topo -m"), "nvidia-smi topo -m");
  EXPECT_EQ(command_of_line("(base) [me@login01 work]$ dmesg -T | grep -i xid"),
            "dmesg -T | grep -i xid");
  EXPECT_EQ(command_of_line("$ lspci -vvv -s 3b:00.0"), "lspci -vvv -s 3b:00.0");
  EXPECT_EQ(command_of_line("~$ ibstat mlx5_ib0"), "ibstat mlx5_ib0");
  EXPECT_EQ(command_of_line("root@node2:~/DeepEP# nvidia-smi topo -m"), "nvidia-smi topo -m");
  EXPECT_EQ(command_of_line("PS C:\\> nvidia-smi topo -m"), "nvidia-smi topo -m");
  EXPECT_EQ(command_of_line("PS C:\\Users\\me> ibstat"), "ibstat");
  EXPECT_EQ(command_of_line(">>> import torch"), "import torch");
  EXPECT_EQ(command_of_line("# cat /etc/nccl.conf"), "cat /etc/nccl.conf");
  EXPECT_EQ(command_of_line("+ ibstat"), "ibstat");  // set -x
  // A prompt alone is a section boundary without a command.
  EXPECT_EQ(command_of_line("user@host:~$"), "");
  EXPECT_EQ(command_of_line("$"), "");
}

TEST(PastedSession, BareCommandsAndLabelsNamingAProgram) {
  EXPECT_EQ(command_of_line("ibstat"), "ibstat");
  EXPECT_EQ(command_of_line("nvidia-smi topo -m"), "nvidia-smi topo -m");
  EXPECT_EQ(command_of_line("ibv_devinfo:"), "ibv_devinfo");
  EXPECT_EQ(command_of_line("Log ibstat:"), "ibstat");
  EXPECT_EQ(command_of_line("ib_send_bw shows:"), "ib_send_bw");
}

// Output lines that look a little like prompts stay output.
TEST(PastedSession, OutputIsNotAPrompt) {
  EXPECT_FALSE(command_of_line("# Port info: Lid 1 port 6"));       // ibportstate output
  EXPECT_FALSE(command_of_line("# nThread 1 nGpus 1 minBytes 9"));  // nccl-tests header
  EXPECT_FALSE(command_of_line("CA 'mlx5_0'"));
  EXPECT_FALSE(command_of_line("        State: Active"));
  EXPECT_FALSE(command_of_line("mlx5_4 port 1 ==> enp97s0f0 (Up)"));
  EXPECT_FALSE(command_of_line("hca_id:\tmlx5_0"));
  EXPECT_FALSE(command_of_line("[24128.828315] NVRM: Xid (PCI:0000:01:00): 32, Channel ID"));
  EXPECT_FALSE(command_of_line("[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13"));
  EXPECT_FALSE(command_of_line("GPU0     X      NV18    NV18"));
  EXPECT_FALSE(command_of_line("  SYS  = Connection traversing PCIe"));
  EXPECT_FALSE(command_of_line("user@example.com wrote:"));
}

TEST(PastedSession, StagesDropWrappers) {
  auto s = command_stages("sudo -E dmesg -T | grep -i xid");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (std::vector<std::string>{"dmesg", "-T"}));
  EXPECT_EQ(s[1], (std::vector<std::string>{"grep", "-i", "xid"}));
  EXPECT_EQ(command_stages("kubectl exec -it pod-0 -n ml -- ibstat mlx5_0")[0],
            (std::vector<std::string>{"ibstat", "mlx5_0"}));
  EXPECT_EQ(command_stages("docker exec -it trainer nvidia-smi topo -m")[0],
            (std::vector<std::string>{"nvidia-smi", "topo", "-m"}));
  EXPECT_EQ(command_stages("NCCL_DEBUG=INFO env | grep NCCL")[0],
            (std::vector<std::string>{"env"}));
  EXPECT_EQ(command_stages("/usr/sbin/ibstat 2>&1")[0], (std::vector<std::string>{"ibstat"}));
  EXPECT_EQ(command_stages("timeout 10 ssh node7 ibstatus")[0],
            (std::vector<std::string>{"ibstatus"}));
}

TEST(PastedSession, SplitsAtCommandLinesKeepingLineNumbers) {
  const std::string paste =
      "some words first\n"              // 1
      "[root@node ~]# ibstat mlx5_0\n"  // 2
      "CA 'mlx5_0'\n"                   // 3
      "\tPort 1:\n"                     // 4
      "\n"                              // 5
      "[root@node ~]# ofed_info -s\n"   // 6
      "MLNX_OFED_LINUX-5.8-1.0.1.1:\n"  // 7
      "[root@node ~]#\n";               // 8
  auto s = split_pasted_session(paste);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].command_line, 0);
  EXPECT_EQ(s[0].first_line, 1);
  EXPECT_EQ(s[0].last_line, 1);
  EXPECT_EQ(s[1].command, "ibstat mlx5_0");
  EXPECT_EQ(s[1].command_line, 2);
  EXPECT_EQ(s[1].first_line, 3);
  EXPECT_EQ(s[1].last_line, 5);
  EXPECT_EQ(s[2].command, "ofed_info -s");
  EXPECT_EQ(s[2].first_line, 7);
  EXPECT_EQ(s[2].last_line, 7);
  EXPECT_EQ(s[3].command, "");
  EXPECT_LT(s[3].last_line, s[3].first_line);
}

TEST(PastedSession, NoCommandIsOneSection) {
  auto s = split_pasted_session("CA 'mlx5_0'\n\tPort 1:\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].command_line, 0);
  EXPECT_EQ(s[0].last_line, 2);
  EXPECT_TRUE(split_pasted_session("").empty());
}
