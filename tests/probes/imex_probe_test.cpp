#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/root.h"
#include "probes/probes.h"
#include "support/live_over_root.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;
namespace fs = std::filesystem;

namespace {

Fact<GpuFacts> gpus_with_fabric(const char* state) {
  GpuFacts g;
  g.driver_loaded = true;
  Gpu x;
  if (state) x.fabric_state = state;
  g.gpus.push_back(x);
  return Fact<GpuFacts>::present(g);
}

}  // namespace

// The daemon is found by its process name in /proc/<pid>/comm; none running is a present
// "false", and nothing is scanned where no GPU reports an NVLink fabric.
TEST(ImexProbe, DaemonByProcessName) {
  const std::string d = temp_dir("imex-daemon");
  write_fixture_file(d + "/proc/1/comm", "systemd\n");
  write_fixture_file(d + "/proc/42/comm", "nvidia-imex\n");
  write_fixture_file(d + "/proc/modules", "");
  FsRoot root(d);
  Fact<bool> f = probe_imex_daemon(root, gpus_with_fabric("completed"));
  ASSERT_TRUE(f.ok()) << f.describe();
  EXPECT_TRUE(*f);
  EXPECT_NE(f.where.source.find("proc/42/comm"), std::string::npos);
  fs::remove(d + "/proc/42/comm");
  f = probe_imex_daemon(root, gpus_with_fabric("completed"));
  ASSERT_TRUE(f.ok()) << f.describe();
  EXPECT_FALSE(*f);
  f = probe_imex_daemon(root, gpus_with_fabric("not-supported"));
  EXPECT_FALSE(f.ok());
  EXPECT_NE(f.reason.find("not looked for"), std::string::npos);
  // A snapshot that recorded no process at all says so, never "not running".
  const std::string e = temp_dir("imex-daemon-empty");
  write_fixture_file(e + "/proc/modules", "");
  FsRoot empty(e);
  f = probe_imex_daemon(empty, gpus_with_fabric("completed"));
  EXPECT_FALSE(f.ok());
  EXPECT_NE(f.reason.find("records no process"), std::string::npos);
}

// Live: the entries of /dev/nvidia-caps-imex-channels (none when the directory is absent).
// Snapshot: the listing collect wrote; an older snapshot without it is missing, not "absent".
TEST(ImexProbe, ChannelsLiveAndFromASnapshot) {
  const std::string d = temp_dir("imex-channels");
  LiveOver live(d);
  Fact<std::vector<std::string>> c = probe_imex_channels(live);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->empty());
  write_fixture_file(d + "/dev/nvidia-caps-imex-channels/channel0", "");
  c = probe_imex_channels(live);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ(c->front(), "channel0");

  FsRoot snap(d);
  c = probe_imex_channels(snap);
  EXPECT_EQ(c.status, FactStatus::kMissing);
  EXPECT_NE(c.reason.find("does not list"), std::string::npos);
  write_fixture_file(d + "/trainready/imex-channels", "channel0\n");
  c = probe_imex_channels(snap);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ(c->front(), "channel0");
}
