#include <gtest/gtest.h>

#include "parsers/component_versions.h"
#include "support/paths.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(ClusterVersionMismatch, ReportsEachComponentThatDiffers) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  b.gpus.value.driver_version = "550.90.07";
  b.ofed_version.value = "inbox (kernel rdma drivers, no MLNX_OFED)";
  RuleOutcome o = run_cluster_rule("cluster-version-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].message.rfind("NVIDIA driver versions differ", 0), 0u);
  EXPECT_EQ(o.findings[1].message.rfind("OFED versions differ", 0), 0u);
}

TEST(ClusterVersionMismatch, NcclMismatchAndQuietWhenEqual) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  EXPECT_TRUE(run_cluster_rule("cluster-version-mismatch", {a, b}).findings.empty());
  b.nccl_version.value = "2.18.3";
  RuleOutcome o = run_cluster_rule("cluster-version-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL"), std::string::npos);
}

// Two real component_versions.txt of Azure's Ubuntu 18.04 HPC image (azhpc-images #204 and #246):
// the image-recorded NVIDIA, CUDA, MOFED, NCCL and HPC-X versions differ; the same file on both
// nodes is quiet.
TEST(ClusterVersionMismatch, AzureHpcImageComponentsDiffer) {
  auto with_file = [](const std::string& label, const std::string& rel) {
    NodeFacts n = healthy_nd_h100(label);
    n.image_components =
        Fact<ImageComponents>::present(parse_component_versions(read_fixture(rel), rel), {rel, 0});
    return n;
  };
  NodeFacts a = with_file("a", "azurehpc/azhpc-images-204-ubuntu1804-component_versions.txt");
  NodeFacts b = with_file("b", "azurehpc/azhpc-images-246-ubuntu1804-component_versions.txt");
  RuleOutcome o = run_cluster_rule("cluster-version-mismatch", {a, b});
  std::vector<std::string> msgs;
  for (const Finding& f : o.findings) msgs.push_back(f.message);
  ASSERT_EQ(msgs.size(), 5u);
  EXPECT_EQ(msgs[0].rfind("Azure HPC image NVIDIA (component_versions.txt) versions differ", 0),
            0u);
  EXPECT_NE(msgs[3].find("NCCL"), std::string::npos);
  EXPECT_NE(msgs[3].find("2.16.5-1"), std::string::npos);
  EXPECT_NE(msgs[3].find("2.18.1-1"), std::string::npos);
  NodeFacts c = with_file("c", "azurehpc/azhpc-images-204-ubuntu1804-component_versions.txt");
  EXPECT_TRUE(run_cluster_rule("cluster-version-mismatch", {a, c}).findings.empty());
}
