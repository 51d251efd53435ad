// Issue 31 item 3 through the real CLI: every capture of tests/data/node-captures is detected
// without KIND=, judged (exit 0 or 1, never 2) and gives the finding an expert would.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

std::string node_capture(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/node-captures/" + name;
}

}  // namespace

TEST(DoctorNodeCaptures, EveryCaptureIsJudgedWithTheExpectedRule) {
  struct Case {
    const char* file;
    const char* rule;  // expected among the findings; "" for none of the new rules
    int code;
  };
  const Case cases[] = {
      {"scontrol-show-node-gres-lower.txt", "slurm-node-unavailable", 1},
      {"scontrol-show-nodes-slinky.txt", "", 0},
      {"sinfo-R-unige-gres.txt", "slurm-node-unavailable", 1},
      {"sinfo-R-kill-task-failed.txt", "slurm-node-unavailable", 1},
      {"sinfo-R-empty.txt", "", 0},
      {"nvidia-smi-a40-err.txt", "gpu-unreadable", 1},
      {"nvidia-smi-a100-8gpu.txt", "", 0},
      {"nvidia-smi-unknown-error.txt", "gpu-unreadable", 1},
      {"nvidia-smi-gpu-lost.txt", "gpu-unreadable", 1},
      {"nvidia-smi-q-a100-remap-pending.txt", "gpu-memory-errors", 0},  // a warning rule
      {"ibdev2netdev-imbue-h100.txt", "roce-link-down", 0},             // second ports: warnings
      {"ibdev2netdev-sriov-pod.txt", "", 0},  // an IB VF's "net1": not taken for RoCE
      {"show_gids-bond.txt", "", 0},
      {"show_gids-bond-no-ip.txt", "roce-gid-missing", 1},
      {"show_gids-rdma0.txt", "", 0},
      {"mst-status-v-cx7.txt", "", 0},
      {"ibv_devinfo-no-v-aks-hb120.txt", "", 0},
      {"dcgmi-diag-3.3.0-pcie-fail-all.txt", "dcgm-diag-failed", 1},
      {"dcgmi-diag-4.2.3-pcie-internal-error.txt", "dcgm-diag-failed", 1},
      {"dcgmi-diag-4.0.0-r3-pass.txt", "", 0},
      {"dcgmi-diag-deployment-error.txt", "dcgm-diag-failed", 1},
  };
  const std::vector<std::string> ours = {"slurm-node-unavailable", "gpu-unreadable",
                                         "dcgm-diag-failed", "roce-link-down", "roce-gid-missing"};
  for (const Case& c : cases) {
    CliResult r = run_trainready({"doctor", "--json", "--capture", node_capture(c.file)});
    EXPECT_EQ(r.code, c.code) << c.file << ": " << r.err;
    if (r.code == 2) continue;
    const json j = json::parse(r.out);
    const auto ids = rules_of(j);
    if (*c.rule != '\0') {
      EXPECT_NE(std::find(ids.begin(), ids.end(), c.rule), ids.end()) << c.file << " " << r.out;
    } else {
      for (const auto& id : ours)
        EXPECT_EQ(std::find(ids.begin(), ids.end(), id), ids.end()) << c.file << " " << id;
    }
  }
}

TEST(DoctorNodeCaptures, BugReportFeedsGpusAndKernelLog) {
  CliResult r = run_trainready(
      {"doctor", "--json", "--capture", node_capture("nvidia-bug-report-assembled.log")});
  EXPECT_NE(r.code, 2) << r.err;
  const json j = json::parse(r.out);
  const auto ids = rules_of(j);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu-memory-errors"), ids.end()) << r.out;
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu-xid-errors"), ids.end()) << r.out;
}

TEST(DoctorNodeCaptures, KindNamesAndAGarbageScontrolCapture) {
  CliResult r = run_trainready(
      {"doctor", "--json", "--capture", "show_gids=" + node_capture("sinfo-R-empty.txt")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sinfo-R-empty.txt:1: expected show_gids output"), std::string::npos)
      << r.err;
  r = run_trainready({"doctor", "--json", "--capture",
                      "scontrol-show-node=" + node_capture("show_gids-bond.txt")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("expected scontrol show node output"), std::string::npos) << r.err;
}
