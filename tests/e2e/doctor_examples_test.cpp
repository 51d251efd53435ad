#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

json doctor_json(const std::vector<std::string>& roots, int expect_code) {
  std::vector<std::string> args{"doctor"};
  for (const auto& r : roots) {
    args.push_back("--root");
    args.push_back(example(r));
  }
  return report_json(args, expect_code);
}

}  // namespace

TEST(DoctorExamples, HealthyNdH100IsReady) {
  json j = doctor_json({"nd-h100-healthy"}, 0);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["verdict"]["status"], "ready");
  EXPECT_TRUE(j["findings"].empty());
  EXPECT_TRUE(j["skipped"].empty());
  expect_snake_case_keys(j);
}

TEST(DoctorExamples, SplitPlacementIsNotReadyWithPkeyAndPlacementFindings) {
  json j = doctor_json({"nd-h100-split/node-a", "nd-h100-split/node-b", "nd-h100-split/node-c"}, 1);
  EXPECT_EQ(j["verdict"]["status"], "not_ready");
  auto ids = rules_of(j);
  for (const char* want : {"cluster-pkey-mismatch", "cluster-placement-mismatch",
                           "ib-port-not-active", "vm-not-in-scale-set"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), want), ids.end()) << want;
  }
  EXPECT_EQ(j["nodes"].size(), 3u);
  // Each finding carries evidence with a source, a cause and a fix.
  for (const auto& f : j["findings"]) {
    EXPECT_FALSE(f["evidence"].empty());
    EXPECT_FALSE(f["evidence"][0]["source"].get<std::string>().empty());
    EXPECT_FALSE(f["cause"].get<std::string>().empty());
    EXPECT_FALSE(f["fix"].get<std::string>().empty());
  }
  // Two nodes that each look healthy still fail together: different pkeys.
  json two = doctor_json({"nd-h100-split/node-a", "nd-h100-split/node-b"}, 1);
  auto two_ids = rules_of(two);
  EXPECT_EQ(two_ids,
            (std::vector<std::string>{"cluster-pkey-mismatch", "cluster-placement-mismatch"}));
}

TEST(DoctorExamples, Nc40IsNotReadyForMultiNode) {
  json j = doctor_json({"nc40-multinode"}, 1);
  EXPECT_EQ(rules_of(j), (std::vector<std::string>{"vm-size-no-infiniband"}));
  EXPECT_NE(j["findings"][0]["fix"].get<std::string>().find("Standard_ND96isr_H100_v5"),
            std::string::npos);
}

TEST(DoctorExamples, IbDisabledAndNoPeermem) {
  json j = doctor_json({"nd-a100-ib-disabled"}, 1);
  EXPECT_EQ(rules_of(j), (std::vector<std::string>{"nccl-ib-disabled", "gpudirect-rdma-disabled",
                                                   "nccl-topo-file-unset"}));
  EXPECT_EQ(j["findings"][0]["severity"], "error");
  EXPECT_EQ(j["findings"][1]["severity"], "warning");
}

TEST(DoctorExamples, FailOnControlsTheExitCode) {
  CliResult warn_only = run_trainready(
      {"doctor", "--root", example("nd-a100-ib-disabled"), "--skip", "nccl-ib-disabled"});
  EXPECT_EQ(warn_only.code, 0) << warn_only.out;
  CliResult strict = run_trainready({"doctor", "--root", example("nd-a100-ib-disabled"), "--skip",
                                     "nccl-ib-disabled", "--fail-on", "warning"});
  EXPECT_EQ(strict.code, 1);
  CliResult info = run_trainready({"doctor", "--root", example("nd-a100-ib-disabled"), "--rule",
                                   "nccl-topo-file-unset", "--fail-on", "info"});
  EXPECT_EQ(info.code, 1);
}

TEST(DoctorExamples, TextReportHasVerdictEvidenceCauseFixAndNoColourWhenPiped) {
  CliResult r = run_trainready({"doctor", "--root", example("nd-a100-ib-disabled")});
  EXPECT_EQ(r.out.rfind("NOT READY", 0), 0u);
  EXPECT_NE(r.out.find("evidence  NCCL_IB_DISABLE=1"), std::string::npos);
  EXPECT_NE(r.out.find("cause"), std::string::npos);
  EXPECT_NE(r.out.find("fix"), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  CliResult c =
      run_trainready({"doctor", "--root", example("nd-a100-ib-disabled"), "--color", "always"});
  EXPECT_NE(c.out.find("\x1b[1;31m"), std::string::npos);
}

TEST(DoctorExamples, SkuOverrideAndCaptureOnlyMode) {
  CliResult r = run_trainready(
      {"doctor", "--json", "--sku", "Standard_ND96asr_v4", "--capture",
       fixture("ib-status/ibstat-cx4lx-eth25-cx6-hdr200-two-ports-down-disabled.txt")});
  EXPECT_EQ(r.code, 1) << r.err;
  json j = json::parse(r.out);
  auto ids = rules_of(j);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "ib-port-not-active"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "ib-port-count-low"), ids.end());
  for (const auto& f : j["findings"]) {
    if (f["rule"] != "ib-port-not-active") continue;
    EXPECT_EQ(f["evidence"][0]["source"].get<std::string>().find(TR_TEST_DATA), 0u);
    // The ConnectX-4 Lx port (link layer Ethernet, line 34) is RoCE: a warning of its own.
    if (f["message"].get<std::string>().find("RoCE port") != std::string::npos) {
      EXPECT_EQ(f["severity"], "warning");
      continue;
    }
    EXPECT_GT(f["evidence"][0]["line"].get<int>(), 50);  // the ibstat line that shows the state
  }
}
