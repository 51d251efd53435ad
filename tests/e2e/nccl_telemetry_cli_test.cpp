// `trainready nccl` with NCCL's and PyTorch's own telemetry beside (or instead of) the logs:
// a job of 8 ranks on 2 nodes whose rank 5 is one AllReduce behind, as ncclras (JSON), the
// Flight Recorder (7 pickles as torch writes them, 1 JSON) and the Inspector (8 process logs)
// report it, with a `collect` snapshot of that rank's node whose IB port mlx5_ib3/1 is down.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string data(const std::string& rel) {
  return std::string(TR_TEST_DATA) + "/nccl-telemetry/" + rel;
}

// examples/nd-h100-split/node-b (host ndh100-b01) with one IB port taken down.
std::string snapshot_with_port_down() {
  const std::string dir = temp_dir("nccl-telemetry-snap") + "/ndh100-b01";
  fs::copy(example("nd-h100-split/node-b"), dir,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const std::string port = dir + "/sys/class/infiniband/mlx5_ib3/ports/1/";
  std::ofstream(port + "state") << "1: DOWN\n";
  std::ofstream(port + "phys_state") << "3: Disabled\n";
  return dir;
}

const json* finding(const json& j, const std::string& rule) {
  for (const json& f : j["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

}  // namespace

TEST(NcclTelemetryCli, OneRankBehindNamedWithItsNodeCollectiveAndPath) {
  const std::string snap = snapshot_with_port_down();
  json j = report_json({"nccl", data("job-rank5-behind"), snap}, 1);
  const json* f = finding(j, "nccl-ranks-behind");
  ASSERT_NE(f, nullptr) << j.dump(2);
  const std::string m = (*f)["message"];
  EXPECT_NE(m.find("1 rank(s) behind in AllReduce of communicator 9c2f6a1e0b7d4e35"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("rank 5 on ndh100-b01 (10.0.0.5)"), std::string::npos) << m;
  EXPECT_NE(m.find("— ndh100-b01 (10.0.0.5): IB port mlx5_ib3/1 DOWN (Disabled)"),
            std::string::npos)
      << m;
  // The Flight Recorder's view of the same rank is evidence of the same finding.
  bool fr = false;
  for (const json& e : (*f)["evidence"])
    fr = fr || std::string(e["text"]).find("nccl:all_reduce") != std::string::npos;
  EXPECT_TRUE(fr) << f->dump(2);
  // The node's own finding is there too, from the snapshot.
  EXPECT_NE(finding(j, "ib-port-not-active"), nullptr);
}

TEST(NcclTelemetryCli, TextReportNamesRankNodeCollectiveAndPathInOneFinding) {
  CliResult r = run_trainready(
      {"nccl", "--color", "never", data("job-rank5-behind"), snapshot_with_port_down()});
  EXPECT_EQ(r.code, 1) << r.err;
  // The reporter wraps the message to the terminal; unwrapped, it is the one line.
  std::string flat;
  for (std::size_t i = 0; i < r.out.size(); ++i) {
    if (r.out[i] == '\n') {
      while (i + 1 < r.out.size() && r.out[i + 1] == ' ') ++i;
      flat += ' ';
    } else {
      flat += r.out[i];
    }
  }
  EXPECT_NE(flat.find("1 rank(s) behind in AllReduce of communicator 9c2f6a1e0b7d4e35: rank 5 on "
                      "ndh100-b01 (10.0.0.5) (GPU 1) — ndh100-b01 (10.0.0.5): IB port mlx5_ib3/1 "
                      "DOWN (Disabled)"),
            std::string::npos)
      << r.out;
}

TEST(NcclTelemetryCli, AWatchRecordingIsToldApartByContent) {
  // A recording of the rank's node with no samples yet: matched by host, and nothing to blame.
  const std::string rec = temp_dir("nccl-telemetry-rec") + "/b01.jsonl";
  std::ofstream(rec) << "{\"format\":\"trainready-watch\",\"version\":1,\"host\":\"ndh100-b01\"}\n";
  json j = report_json({"nccl", data("job-rank5-behind"), rec}, 1);
  const json* f = finding(j, "nccl-ranks-behind");
  ASSERT_NE(f, nullptr) << j.dump(2);
  EXPECT_EQ(std::string((*f)["message"]).find(" — "), std::string::npos) << (*f)["message"];
  bool named = false;
  for (const json& e : (*f)["evidence"])
    named = named || std::string(e["text"]).find("ndh100-b01 (" + rec +
                                                 ") shows no IB port down") != std::string::npos;
  EXPECT_TRUE(named) << f->dump(2);
}

TEST(NcclTelemetryCli, RasBesideItsLogExplainsAllAgreeTimeout) {
  // NVIDIA/nccl#1730: the report and the watchdog lines pasted in one file.
  json j = report_json({"nccl", data("ras-text-2.26.2-nccl1730-all-ok-watchdog-timeout.txt")}, 1);
  const json* f = finding(j, "nccl-ranks-behind");
  ASSERT_NE(f, nullptr) << j.dump(2);
  EXPECT_NE(std::string((*f)["message"]).find("inside a collective all ranks entered"),
            std::string::npos);
  EXPECT_NE(finding(j, "nccl-collective-timeout"), nullptr);
}

TEST(NcclTelemetryCli, BrokenTelemetryIsAnInputError) {
  const std::string dir = temp_dir("nccl-telemetry-bad");
  const std::string bad = dir + "/nccl_trace_rank_0";
  std::ofstream(bad, std::ios::binary)
      << std::string("\x80\x02}(X\x09\x00\x00\x00pg_config", 18) << "cos\nsystem\n";
  CliResult r = run_trainready({"nccl", bad});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nccl_trace_rank_0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("os.system refused"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}
