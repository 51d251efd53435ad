#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json findings_and_skips(const CliResult& r) {
  json j = json::parse(r.out);
  for (auto& f : j["findings"]) {
    for (auto& e : f["evidence"]) e.erase("source");  // paths differ between live and snapshot
  }
  json skipped = json::array();
  for (const auto& s : j["skipped"]) skipped.push_back(s["rule"]);
  return {{"findings", j["findings"]}, {"skipped", skipped}, {"verdict", j["verdict"]["status"]}};
}

}  // namespace

// "doctor --root on a collected snapshot gives the same findings as the live run it came from."
TEST(Collect, LiveRunAndItsSnapshotAgree) {
  std::string d = temp_dir("collect-live");
  const std::string env = "NCCL_IB_DISABLE=1 NCCL_TOPO_FILE=/nonexistent/topo.xml";
  CliResult live = run_trainready(
      {"doctor", "--json", "--no-imds", "--nvml-library", TR_FAKE_NVML},
      env + " TRAINREADY_FAKE_NVML=" + example("nd-h100-healthy/trainready/nvml.json"));
  ASSERT_NE(live.code, 2) << live.err;
  CliResult col = run_trainready(
      {"collect", d + "/snap", "--no-imds", "--no-commands", "--nvml-library", TR_FAKE_NVML},
      env + " TRAINREADY_FAKE_NVML=" + example("nd-h100-healthy/trainready/nvml.json"));
  ASSERT_EQ(col.code, 0) << col.err;
  CliResult snap = run_trainready({"doctor", "--json", "--root", d + "/snap"});
  EXPECT_EQ(findings_and_skips(live), findings_and_skips(snap)) << live.out << "\n----\n"
                                                                << snap.out;
  json j = json::parse(snap.out);
  EXPECT_EQ(j["nodes"][0]["gpus"]["value"]["gpus"].size(),
            8u);  // NVML answers travelled in nvml.json
  bool ib_disable_seen = false;
  for (const auto& kv : j["nodes"][0]["nccl_settings"]["value"]["env"])
    ib_disable_seen |= kv["name"] == "NCCL_IB_DISABLE";
  EXPECT_TRUE(ib_disable_seen);
}

TEST(Collect, RecollectedExampleGivesTheSameReport) {
  std::string d = temp_dir("collect-example");
  for (const char* ex : {"nd-h100-healthy", "nd-a100-ib-disabled", "nd-h100-split/node-c"}) {
    std::string out = d + "/" + std::to_string(std::hash<std::string>{}(ex));
    CliResult c = run_trainready({"collect", "--root", example(ex), out});
    ASSERT_EQ(c.code, 0) << c.err;
    CliResult a = run_trainready({"doctor", "--json", "--root", example(ex)});
    CliResult b = run_trainready({"doctor", "--json", "--root", out});
    EXPECT_EQ(a.code, b.code);
    EXPECT_EQ(findings_and_skips(a), findings_and_skips(b)) << ex;
  }
}

TEST(Collect, ScrubKeepsFindingsButNotIdentifiers) {
  std::string d = temp_dir("collect-scrub");
  ASSERT_EQ(
      run_trainready({"collect", "--scrub", "--root", example("nd-h100-split/node-a"), d + "/a"})
          .code,
      0);
  ASSERT_EQ(
      run_trainready({"collect", "--scrub", "--root", example("nd-h100-split/node-b"), d + "/b"})
          .code,
      0);
  CliResult r = run_trainready({"doctor", "--json", "--root", d + "/a", "--root", d + "/b"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.find("ndh100-a01"), std::string::npos);
  EXPECT_EQ(r.out.find("1f2e3d4c-5b6a"), std::string::npos);
  EXPECT_EQ(r.out.find("5dff:fe33"), std::string::npos);
  json j = json::parse(r.out);
  std::vector<std::string> ids;
  for (const auto& f : j["findings"]) ids.push_back(f["rule"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"cluster-pkey-mismatch", "cluster-placement-mismatch"}));
}

TEST(Collect, RefusesANonEmptyTargetAndLeavesItUntouched) {
  std::string d = temp_dir("collect-exists");
  std::ofstream(d + "/keep.txt") << "mine";
  CliResult r = run_trainready({"collect", "--root", example("nd-h100-healthy"), d});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not an empty directory"), std::string::npos);
  int n = 0;
  for (const auto& e : fs::directory_iterator(d)) n += e.exists();
  EXPECT_EQ(n, 1);
  for (const auto& e : fs::directory_iterator(fs::path(d).parent_path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos)
        << "left a temporary: " << e.path();
  }
}

// A node whose /var/log/kern.log holds Xid lines (the gpud H100 capture) among other kernel lines:
// the snapshot keeps the NVRM lines with the log's first and last line, not the log itself, and
// doctor on the snapshot reports the same Xid finding as on the source tree.
TEST(Collect, KernelLogBecomesItsNvrmExcerpt) {
  std::string d = temp_dir("collect-kernlog");
  fs::copy(example("nd-h100-healthy"), d + "/src",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove(d + "/src/trainready/kernel-log-nvrm.txt");
  fs::create_directories(d + "/src/var/log");
  {
    std::ofstream k(d + "/src/var/log/kern.log");
    k << "Feb 23 16:20:00 ndh100 kernel: Linux version 5.15.0-1073-azure\n"
      << read_fixture("kernel-log/gpud-dmesg-T-h100-xid-119-gsp-timeout.log")
      << "Feb 23 16:31:00 ndh100 kernel: mlx5_core 0101:00:00.0: last line\n";
  }
  CliResult c = run_trainready({"collect", "--root", d + "/src", d + "/snap"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_FALSE(fs::exists(d + "/snap/var/log/kern.log"));
  std::ifstream in(d + "/snap/trainready/kernel-log-nvrm.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Linux version"), std::string::npos);
  EXPECT_NE(text.find("last line"), std::string::npos);
  EXPECT_EQ(text.find("Call Trace"), std::string::npos);
  EXPECT_NE(text.find("NVRM: Xid (PCI:0000:9b:00): 119"), std::string::npos);
  CliResult a = run_trainready({"doctor", "--json", "--root", d + "/src"});
  CliResult b = run_trainready({"doctor", "--json", "--root", d + "/snap"});
  // The Xids are of February 2025, the example's manifest and the new snapshot are later: more
  // than --xid-window (2 h) old, so info on both, exit 0 (gpu-xid-errors judges recent Xids).
  EXPECT_EQ(a.code, 0);
  json ja = json::parse(a.out);
  json jb = json::parse(b.out);
  ASSERT_EQ(ja["findings"].size(), 1u);
  EXPECT_EQ(ja["findings"][0]["rule"], "gpu-xid-errors");
  EXPECT_EQ(ja["findings"][0]["severity"], "info");
  EXPECT_EQ(ja["findings"][0]["message"], jb["findings"][0]["message"]);
}
