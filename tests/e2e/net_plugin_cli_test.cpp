// The network plugin (libtrainready-net.so) as a user's binary opens it: the built binary finds it
// beside itself; a plugin that is missing or is not one is said, with exit 2 where the command
// needs it and an unreadable IMDS fact where doctor only asked. Servers are on 127.0.0.1 only.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "support/loopback_http.h"
#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;
namespace fs = std::filesystem;

namespace {

const char* kImds = "imds/walinuxagent-imds-compute-vmss-trustedlaunch.json";

}  // namespace

TEST(NetPlugin, VersionNamesThePluginBesideTheBinary) {
  CliResult r = run_trainready({"--version"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string beside = (fs::path(TR_BINARY).parent_path() / "libtrainready-net.so").string();
  EXPECT_NE(r.out.find("network plugin: libtrainready-net.so"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from " + beside + " (next to the executable)"), std::string::npos) << r.out;
}

TEST(NetPlugin, DoctorAsksImdsThroughThePlugin) {
  LoopbackHttp server(200, read_fixture(kImds));
  CliResult r = run_trainready({"doctor", "--imds", server.url("/metadata/instance")});
  EXPECT_NE(r.out.find("Standard_A3"), std::string::npos) << r.out << r.err;
  EXPECT_NE(server.last_request().find("Metadata: true"), std::string::npos)
      << server.last_request();
}

TEST(NetPlugin, MissingPluginLeavesImdsUnreadableAndSaysWhere) {
  LoopbackHttp server(200, read_fixture(kImds));
  CliResult r = run_trainready({"doctor", "--json", "--imds", server.url("/metadata/instance")},
                               "TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so");
  EXPECT_EQ(r.out.find("Standard_A3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("IMDS not asked: TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so: "
                       "no such file"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(server.last_request(), "");
}

TEST(NetPlugin, ALibraryThatIsNotThePluginIsRefused) {
  LoopbackHttp server(200, read_fixture(kImds));
  CliResult r = run_trainready({"doctor", "--json", "--imds", server.url("/metadata/instance")},
                               std::string("TRAINREADY_NET_PLUGIN=") + TR_FAKE_NVML);
  EXPECT_NE(r.out.find("has no trainready_net_plugin_v1 entry point"), std::string::npos) << r.out;
  EXPECT_EQ(server.last_request(), "");
}

TEST(NetPlugin, StageFromBlobWithoutThePluginExits2AndWritesNothing) {
  const fs::path dst = fs::temp_directory_path() / ("tr-net-plugin-" + std::to_string(::getpid()));
  fs::remove_all(dst);
  CliResult r = run_trainready(
      {"stage", "https://acct.blob.core.windows.net/data/p?sv=2022-11-02&sig=NOTASECRET1234",
       dst.string(), "--progress", "never"},
      "TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so: no such file"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("NOTASECRET1234"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dst));
}

TEST(NetPlugin, APluginOfAnotherBuildIsRefusedNotCalled) {
  const fs::path dst = fs::temp_directory_path() / ("tr-net-foreign-" + std::to_string(::getpid()));
  fs::remove_all(dst);
  CliResult r = run_trainready(
      {"stage", "https://acct.blob.core.windows.net/data/p?sv=2022-11-02&sig=NOTASECRET1234",
       dst.string(), "--progress", "never"},
      std::string("TRAINREADY_NET_PLUGIN=") + TR_FAKE_NET_PLUGIN);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("comes from another build (plugin: trainready ?, interface 2, compiler ?"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dst));
}

TEST(NetPlugin, WatchListenWithoutThePluginExits2) {
  CliResult r = run_trainready({"watch", "--listen", "127.0.0.1:1", "--duration", "1"},
                               "TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("TRAINREADY_NET_PLUGIN=/nonexistent/libtrainready-net.so: no such file"),
            std::string::npos)
      << r.err;
}

TEST(NetPlugin, ADirectoryIsNotAPlugin) {
  const std::string dir = fs::temp_directory_path().string();
  CliResult r = run_trainready({"doctor", "--json", "--imds", "http://127.0.0.1:1/"},
                               "TRAINREADY_NET_PLUGIN=" + dir);
  EXPECT_NE(r.out.find("TRAINREADY_NET_PLUGIN=" + dir + ": not a regular file"), std::string::npos)
      << r.out;
}
