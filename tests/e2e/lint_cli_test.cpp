// `trainready lint` end to end: exit codes, text / JSON / SARIF, suppressions, bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready::test {

namespace {
const std::string kTemplate = fixture("deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json");
std::string data(const std::string& rel) { return std::string(TR_TEST_DATA) + "/" + rel; }
std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}
// A python3 that has jsonschema: Debian's (python3-jsonschema from setup-deps), else PATH's.
std::string python_with_jsonschema() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    std::string cmd = std::string(py) + " -c 'import jsonschema' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return "";
}
}  // namespace

TEST(LintCli, RealTemplateFindingsAndExitCodes) {
  auto ok = run_trainready({"lint", kTemplate});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("OK: the deployment has none of the traps checked (0 errors"),
            std::string::npos)
      << ok.out;
  auto bad =
      run_trainready({"lint", kTemplate, data("deploy/hpcpack-nd-standalone.parameters.json")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("deploy-ib-vms-ungrouped"), std::string::npos);
  EXPECT_NE(bad.out.find("16 InfiniBand VMs are standalone"), std::string::npos);
  auto warn = run_trainready(
      {"lint", data("deploy/tf-confidential-gpu/plan.json"), "--fail-on", "warning"});
  EXPECT_EQ(warn.code, 1);
  EXPECT_NE(warn.out.find("modules/partition/main.tf:124"), std::string::npos);
}

TEST(LintCli, SarifValidatesAgainstTheOasisSchemaAndLeavesSuppressedOut) {
  std::string dir = temp_dir("lint-sarif");
  std::string sup = write(dir, "sup.json", R"({"suppressions": [
    {"rule": "deploy-ib-image-no-driver", "resource": "vm", "justification": "custom image has OFED"}]})");
  std::string out = dir + "/lint.sarif";
  auto r = run_trainready({"lint", kTemplate, data("deploy/hpcpack-nd-standalone.parameters.json"),
                           "--suppressions", sup, "--format", "sarif", "-o", out});
  EXPECT_EQ(r.code, 1) << r.err;
  std::ifstream in(out);
  auto sarif = nlohmann::json::parse(in);
  EXPECT_EQ(sarif["version"], "2.1.0");
  const auto& run = sarif["runs"][0];
  ASSERT_EQ(run["results"].size(), 1u);
  const auto& res = run["results"][0];
  EXPECT_EQ(res["ruleId"], "deploy-ib-vms-ungrouped");
  EXPECT_EQ(res["level"], "error");
  EXPECT_GT(res["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>(), 1);
  EXPECT_EQ(run["properties"]["suppressed_count"], 1);
  bool help = false;
  for (const auto& rule : run["tool"]["driver"]["rules"])
    help =
        help || rule["helpUri"].get<std::string>().find("docs/rules/deploy-") != std::string::npos;
  EXPECT_TRUE(help);

  std::string py = python_with_jsonschema();
  ASSERT_FALSE(py.empty()) << "python3-jsonschema is missing: run scripts/setup-deps.sh";
  std::string cmd = py + " " + std::string(TR_TEST_DATA) + "/../tools/validate_sarif.py " +
                    data("sarif/sarif-schema-2.1.0.json") + " " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(LintCli, JsonCountsSuppressedFindings) {
  std::string dir = temp_dir("lint-json");
  std::string sup = write(dir, "sup.json", R"({"suppressions": [
    {"rule": "deploy-gpu-size-without-ib", "resource": "module.tee_on*", "justification": "confidential partition runs single-VM jobs"}]})");
  auto r = run_trainready(
      {"lint", data("deploy/tf-confidential-gpu/plan.json"), "--suppressions", sup, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "lint");
  EXPECT_EQ(j["counts"]["warning"], 1);
  EXPECT_EQ(j["counts"]["suppressed"], 1);
  EXPECT_EQ(j["lint"]["suppressed"][0]["suppression"]["kind"], "file");
  EXPECT_EQ(j["findings"][0]["location"]["line"], 124);
}

TEST(LintCli, BadInputExitsTwoNamingFileLineAndColumn) {
  std::string dir = temp_dir("lint-bad");
  std::string bad = write(dir, "bad.json", "{\n  \"resources\": [\n    {,}\n  ]\n}\n");
  auto r = run_trainready({"lint", bad});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.json:3: column"), std::string::npos) << r.err;
  std::string other = write(dir, "other.json", R"({"hello": "world"})");
  auto o = run_trainready({"lint", other});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("expected an ARM template"), std::string::npos) << o.err;
  std::string empty = temp_dir("lint-empty");
  auto none = run_trainready({"lint", empty});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no deployment JSON found"), std::string::npos) << none.err;
  // A FIFO (or device) is refused at once, not read until a writer appears.
  std::string fifo = dir + "/plan.fifo";
  ASSERT_EQ(std::system(("mkfifo " + fifo).c_str()), 0);
  auto f = run_trainready({"lint", fifo});
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.err.find("not a regular file"), std::string::npos) << f.err;
  auto missing = run_trainready({"lint", dir + "/nope.json"});
  EXPECT_EQ(missing.code, 2);
  std::string sup = write(dir, "sup.json", R"({"suppressions": [{"rule": "x"}]})");
  auto s = run_trainready({"lint", kTemplate, "--suppressions", sup});
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("justification"), std::string::npos);
  // -o is never left half-written: a failed run leaves no file.
  auto w = run_trainready({"lint", bad, "-o", dir + "/out.sarif", "--format", "sarif"});
  EXPECT_EQ(w.code, 2);
  EXPECT_FALSE(std::ifstream(dir + "/out.sarif").good());
}

TEST(LintCli, DirectoryWalkSkipsUnrelatedJson) {
  auto r = run_trainready({"lint", data("deploy/tf-confidential-gpu"), "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["lint"]["resources"], 2);
}

}  // namespace trainready::test
