// scontrol show node: real outputs of Slurm 22.05.8 (tests/data/slurm, SOURCES.md) and garbage.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/input_error.h"
#include "parsers/scontrol_node.h"

using namespace trainready;

namespace {

std::string slurm_file(const std::string& name) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/slurm/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(ScontrolNode, IdleNodeHasNoReason) {
  ScontrolNode n = parse_scontrol_node(slurm_file("scontrol-show-node-idle.txt"), "idle");
  EXPECT_EQ(n.name, "node1");
  EXPECT_EQ(n.state, "IDLE");
  EXPECT_EQ(n.reason, "");
  EXPECT_FALSE(n.has_flag("DRAIN"));
}

TEST(ScontrolNode, DrainedByAnAdminOneLineAndIndented) {
  for (const char* f :
       {"scontrol-show-node-drained-admin.txt", "scontrol-show-node-drained-multiline.txt"}) {
    ScontrolNode n = parse_scontrol_node(slurm_file(f), f);
    EXPECT_EQ(n.name, "node2") << f;
    EXPECT_EQ(n.state, "IDLE+DRAIN") << f;
    EXPECT_TRUE(n.has_flag("DRAIN")) << f;
    EXPECT_TRUE(n.has_flag("idle")) << f;
    // The " [root@2026-...]" that slurmctld appends is not part of the reason.
    EXPECT_EQ(n.reason, "admin: replace fan, ticket 4711") << f;
  }
}

TEST(ScontrolNode, DrainedByTrainreadyAndDown) {
  ScontrolNode t =
      parse_scontrol_node(slurm_file("scontrol-show-node-drained-trainready.txt"), "t");
  EXPECT_EQ(t.reason, "trainready: ib-port-not-active: mlx5_ib3 port 1 is DOWN");
  ScontrolNode d = parse_scontrol_node(slurm_file("scontrol-show-node-down.txt"), "d");
  EXPECT_EQ(d.state, "DOWN");
  EXPECT_TRUE(d.has_flag("DOWN"));
  EXPECT_EQ(d.reason, "node1 died");
}

TEST(ScontrolNode, ReasonMayHoldKeysAndBrackets) {
  ScontrolNode n = parse_scontrol_node(
      "NodeName=a State=IDLE+DRAIN Reason=State=DOWN [not a setter] x [u@t]\n", "k");
  EXPECT_EQ(n.state, "IDLE+DRAIN");
  EXPECT_EQ(n.reason, "State=DOWN [not a setter] x");
  EXPECT_TRUE(parse_scontrol_node("NodeName=b State=DOWN*+DRAIN", "s").has_flag("DOWN"));
}

TEST(ScontrolNode, GarbageIsAnInputErrorWithALine) {
  EXPECT_THROW(parse_scontrol_node(slurm_file("scontrol-show-node-unknown.txt"), "u"), InputError);
  EXPECT_THROW(parse_scontrol_node("", "empty"), InputError);
  EXPECT_THROW(parse_scontrol_node("NodeName=a\n", "nostate"), InputError);
  try {
    parse_scontrol_node("NodeName=a State=IDLE\nNodeName=b State=IDLE\n", "two");
    FAIL() << "two nodes accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_THROW(parse_scontrol_node(std::string("\xff\x00\x1b[2J", 5), "bin"), InputError);
}
