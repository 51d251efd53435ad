#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/root.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;
namespace fs = std::filesystem;

// /var/log/messages (RHEL family) is read when kern.log is absent; neither -> missing, with how
// to pass the log instead.
TEST(KernelLogProbe, MessagesFallbackAndMissing) {
  std::string d = temp_dir("kernlog-probe");
  fs::create_directories(d + "/var/log");
  {
    std::ofstream(d + "/var/log/messages")
        << read_fixture("kernel-log/nvidia-docker-849-dmesg-T-xid-48-63.log");
  }
  FsRoot root(d);
  Fact<KernelLogFacts> k = probe_kernel_log(root);
  ASSERT_TRUE(k.ok()) << k.describe();
  EXPECT_EQ(k->xids.size(), 2u);
  EXPECT_NE(k.where.source.find("var/log/messages"), std::string::npos);
  fs::remove(d + "/var/log/messages");
  Fact<KernelLogFacts> none = probe_kernel_log(root);
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.reason.find("--capture kernel-log=FILE"), std::string::npos);
}

// /opt/azurehpc/component_versions.txt in a snapshot tree; a malformed one is unreadable with the
// line, not a crash.
TEST(ImageComponentsProbe, ReadsTheFileOrSaysWhy) {
  std::string d = temp_dir("components-probe");
  fs::create_directories(d + "/opt/azurehpc");
  {
    std::ofstream(d + "/opt/azurehpc/component_versions.txt")
        << read_fixture("azurehpc/azhpc-images-246-ubuntu1804-component_versions.txt");
  }
  FsRoot root(d);
  Fact<ImageComponents> c = probe_image_components(root);
  ASSERT_TRUE(c.ok()) << c.describe();
  EXPECT_EQ(c->versions.at("NCCL"), "2.18.1-1");
  { std::ofstream(d + "/opt/azurehpc/component_versions.txt") << "NCCL=2.18.1-1\ngarbage\n"; }
  Fact<ImageComponents> bad = probe_image_components(root);
  EXPECT_EQ(bad.status, FactStatus::kUnreadable);
  EXPECT_NE(bad.reason.find(":2:"), std::string::npos) << bad.reason;
  EXPECT_FALSE(probe_image_components(FsRoot(d + "/none")).ok());
}
