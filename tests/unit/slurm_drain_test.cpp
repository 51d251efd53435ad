// The Slurm side of `fleet --slurm-health`: the reason line, the node name and the scontrol argv
// (tests/slurm/slurm_check.py runs them against a real slurmctld).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/slurm_drain.h"
#include "core/input_error.h"

using namespace trainready;

namespace {

Finding finding(const std::string& id, const std::string& message, Severity s = Severity::kError) {
  Finding f;
  f.rule_id = id;
  f.message = message;
  f.severity = s;
  return f;
}

}  // namespace

TEST(SlurmDrain, ReasonNamesTheFindingFirstThenTheOthers) {
  const std::string r =
      drain_reason({finding("ib-port-not-active", "mlx5_0 port 1 is Down"),
                    finding("gpu-count-low", "7 GPUs"), finding("pcie-link-degraded", "x8")});
  EXPECT_EQ(r,
            "trainready: ib-port-not-active: mlx5_0 port 1 is Down (+2 more: gpu-count-low, "
            "pcie-link-degraded)");
}

TEST(SlurmDrain, ReasonIsOneLineOfPrintableAsciiAndBounded) {
  // A message quoting an input: newlines, an escape sequence, a quote, a shell metacharacter,
  // UTF-8 and a malformed byte.
  const std::string hostile =
      "line one\nline two\r\n\x1b]0;owned\x07 \"q\" $(reboot); `id` caf\xc3\xa9 \xff end";
  const std::string r = drain_reason({finding("ib-port-not-active", hostile)});
  for (char c : r) {
    EXPECT_GE(static_cast<unsigned char>(c), 0x20) << r;
    EXPECT_LE(static_cast<unsigned char>(c), 0x7e) << r;
  }
  EXPECT_EQ(r.find('\n'), std::string::npos);
  EXPECT_NE(r.find("line one line two"), std::string::npos) << r;
  EXPECT_NE(r.find("caf? ? end"), std::string::npos) << r;
  // The text is kept as text (execv passes it as one argument; no shell ever reads it).
  EXPECT_NE(r.find("$(reboot)"), std::string::npos) << r;

  const std::string long_reason =
      drain_reason({finding("ib-port-not-active", std::string(5000, 'x'))});
  EXPECT_EQ(long_reason.size(), kDrainReasonMaxBytes);
  EXPECT_EQ(long_reason.substr(0, 31), "trainready: ib-port-not-active:");
  EXPECT_EQ(long_reason.substr(long_reason.size() - 3), "...");
}

TEST(SlurmDrain, NodeNameComesFromSlurmAndIsOneNode) {
  EXPECT_EQ(slurm_node_name("node7", "vm"), "node7");
  EXPECT_EQ(slurm_node_name(nullptr, "vm"), "vm");
  EXPECT_EQ(slurm_node_name("", "vm"), "vm");
  // scontrol reads nodename= as a hostlist: each of these would drain more than one node.
  // "ALL" drains the whole cluster (measured on Slurm 22.05).
  for (const char* bad : {"node[1-64]", "a,b", "node1 node2", "ALL", "all", "../x", "n\n"}) {
    EXPECT_THROW(slurm_node_name(bad, "vm"), InputError) << bad;
  }
  EXPECT_THROW(slurm_node_name(nullptr, "bad host"), InputError);
  EXPECT_THROW(slurm_node_name(std::string(65, 'a').c_str(), "vm"), InputError);
  EXPECT_TRUE(is_single_node_name("ndv5-0042.cluster_a"));
}

// reliability-probe-3 D30: the refusal names the actual reason, not always "a list of nodes".
TEST(SlurmDrain, ARefusedNodeNameSaysWhy) {
  auto why = [](const char* name) {
    try {
      slurm_node_name(name, "vm");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("n;id").find("the character ';' is not allowed"), std::string::npos) << why("n;id");
  EXPECT_EQ(why("n;id").find("list of nodes"), std::string::npos);
  EXPECT_NE(why(std::string(65, 'a').c_str()).find("65 bytes, more than 64"), std::string::npos);
  EXPECT_NE(why("node\n").find("line break"), std::string::npos);
  EXPECT_NE(why("a,b").find("list of nodes"), std::string::npos);
  EXPECT_NE(why("ALL").find("every node of the cluster"), std::string::npos);
  EXPECT_NE(why("n\xc3"
                "\xb6"
                "d")
                .find("byte 0xc3"),
            std::string::npos);
}

TEST(SlurmDrain, ArgvIsFiveWordsAndThePrintedLineQuotesThem) {
  const auto argv = drain_argv("/usr/bin/scontrol", "node2", "trainready: x: it's $(down)");
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[2], "nodename=node2");
  EXPECT_EQ(argv[3], "state=drain");
  EXPECT_EQ(argv[4], "reason=trainready: x: it's $(down)");
  EXPECT_EQ(shell_line(argv),
            "/usr/bin/scontrol update nodename=node2 state=drain "
            "'reason=trainready: x: it'\\''s $(down)'");
}

TEST(SlurmDrain, FindsScontrolWithoutPath) {
  // slurmd gives a HealthCheckProgram no PATH: the fallback directories must still find it.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tr-scontrol-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path fake = dir / "scontrol";
  std::ofstream(fake) << "#!/bin/sh\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  EXPECT_EQ(find_scontrol(dir.c_str()), fake.string());
  // Relative PATH entries never count.
  EXPECT_NE(find_scontrol("."), "./scontrol");
  const std::string fallback = find_scontrol(nullptr);
  if (!fallback.empty()) {
    EXPECT_EQ(fallback.front(), '/');
  }
  std::filesystem::remove_all(dir);
}
