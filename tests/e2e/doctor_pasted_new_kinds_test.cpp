// A pasted session holding the capture kinds of issue 31 item 3 (scontrol show node, nvidia-smi,
// show_gids, sinfo -R) under their prompts: each section is read by its command line through
// the kind table of src/cli/captures.cpp and judged by that kind's rules. The outputs are real
// (tests/data/node-captures, provenance in tests/data/SOURCES.md); only the prompts are added.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/node-captures/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> rules_of(const json& j) {
  std::vector<std::string> out;
  for (const json& f : j["findings"]) out.push_back(f["rule"].get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(DoctorPastedNewKinds, EachSectionIsReadByItsCommand) {
  const std::string path = temp_dir("paste-new-kinds") + "/paste.txt";
  {
    std::ofstream out(path);
    out << "[root@gpu-07 ~]# scontrol show node yigou-dev-102-68\n"
        << capture("scontrol-show-node-gres-lower.txt") << "\n"
        << "[root@gpu-07 ~]# nvidia-smi\n"
        << capture("nvidia-smi-gpu-lost.txt") << "\n"
        << "[root@gpu-07 ~]# show_gids\n"
        << capture("show_gids-bond-no-ip.txt") << "\n"
        << "[root@gpu-07 ~]# sinfo -R\n"
        << capture("sinfo-R-kill-task-failed.txt");
  }
  CliResult r = run_trainready({"doctor", "--json", "--capture", path});
  ASSERT_EQ(r.code, 1) << r.err << r.out.substr(0, 2000);
  const json j = json::parse(r.out);
  std::vector<std::string> kinds;
  for (const json& s : j["nodes"][0]["capture_sections"]) {
    EXPECT_TRUE(s["read"].get<bool>()) << s.dump();
    kinds.push_back(s["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"scontrol-show-node", "nvidia-smi", "show_gids", "sinfo-R"}))
      << j["nodes"][0]["capture_sections"].dump();
  const auto rules = rules_of(j);
  EXPECT_TRUE(has(rules, "slurm-node-unavailable")) << r.out.substr(0, 3000);
  EXPECT_TRUE(has(rules, "gpu-unreadable")) << r.out.substr(0, 3000);
}

// An nvidia-bug-report.log holds lspci and kernel lines of its own: it is read whole by its own
// sections, never cut as a paste of several captures.
TEST(DoctorPastedNewKinds, BugReportIsReadWhole) {
  CliResult r = run_trainready(
      {"doctor", "--json", "--capture",
       std::string(TR_TEST_DATA) + "/node-captures/nvidia-bug-report-assembled.log"});
  ASSERT_LE(r.code, 1) << r.err;
  const json secs = json::parse(r.out)["nodes"][0]["capture_sections"];
  ASSERT_EQ(secs.size(), 1u) << secs.dump();
  EXPECT_EQ(secs[0]["kind"], "nvidia-bug-report");
}
