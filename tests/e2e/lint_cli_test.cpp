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

// Issue 22 item 1: one bad file in a directory is reported with its path and line, the others
// are still linted, and every format is still a valid document that carries the error.
TEST(LintCli, OneBadFileInADirectoryIsReportedAndTheOthersLinted) {
  std::string dir = temp_dir("lint-dir-bad");
  std::ifstream good(fixture("deploy-templates/azhop/ubuntu_azurecli_vm_template.json"));
  std::ofstream(dir + "/a-good.json") << good.rdbuf();
  write(dir, "b-bad.json", "{\n  \"$schema\": \"x\",\n  \"resources\": [,]\n}\n");
  auto t = run_trainready({"lint", dir});
  EXPECT_EQ(t.code, 2) << t.out << t.err;
  EXPECT_NE(t.out.find("Not read (1)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("b-bad.json:3: column"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("INCOMPLETE: 1 file not read"), std::string::npos) << t.out;

  auto j = run_trainready({"lint", dir, "--json"});
  EXPECT_EQ(j.code, 2);
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["lint"]["input_errors"].size(), 1u);
  EXPECT_EQ(doc["lint"]["input_errors"][0]["line"], 3);
  EXPECT_NE(doc["lint"]["input_errors"][0]["file"].get<std::string>().find("b-bad.json"),
            std::string::npos);
  EXPECT_EQ(doc["lint"]["files"].size(), 1u);  // the good one was read
  EXPECT_EQ(doc["lint"]["resources"], 2);

  std::string out = dir + "/../lint-dir-bad.sarif";
  auto s = run_trainready({"lint", dir, "--format", "sarif", "-o", out});
  EXPECT_EQ(s.code, 2);
  std::ifstream in(out);
  auto sarif = nlohmann::json::parse(in);
  const auto& inv = sarif["runs"][0]["invocations"][0];
  EXPECT_EQ(inv["executionSuccessful"], false);
  const auto& note = inv["toolExecutionNotifications"][0];
  EXPECT_EQ(note["level"], "error");
  EXPECT_EQ(note["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  std::string py = python_with_jsonschema();
  ASSERT_FALSE(py.empty());
  std::string cmd = py + " " + std::string(TR_TEST_DATA) + "/../tools/validate_sarif.py " +
                    data("sarif/sarif-schema-2.1.0.json") + " " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// Issue 19 item 12: a directory walk does not follow a link out of the directory.
TEST(LintCli, DirectoryWalkDoesNotFollowLinksOutOfTheDirectory) {
  std::string dir = temp_dir("lint-links");
  std::string outside = temp_dir("lint-links-outside");
  write(outside, "secret.json", "\x01not json");
  std::ifstream good(fixture("deploy-templates/azhop/ubuntu_azurecli_vm_template.json"));
  std::ofstream(dir + "/a.json") << good.rdbuf();
  ASSERT_EQ(std::system(("ln -s " + outside + "/secret.json " + dir + "/b.json").c_str()), 0);
  ASSERT_EQ(std::system(("ln -s a.json " + dir + "/c.json").c_str()), 0);  // inside: read
  auto r = run_trainready({"lint", dir, "--json"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["lint"]["files"].size(), 2u);
  EXPECT_NE(j["lint"]["not_resolved"].dump().find("b.json: a link out of the directory"),
            std::string::npos)
      << j["lint"]["not_resolved"].dump();
  EXPECT_EQ(r.out.find("not json"), std::string::npos);
}

// Issue 19 item 11: a duplicate key is refused with both lines.
TEST(LintCli, DuplicateKeysAreAnInputErrorNamingBothLines) {
  std::string dir = temp_dir("lint-dup");
  std::string f = write(dir, "dup.json", R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "resources": [{
    "type": "Microsoft.Compute/virtualMachineScaleSets", "name": "ib",
    "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2},
    "properties": {"singlePlacementGroup": true, "singlePlacementGroup": false}
  }]
})");
  auto r = run_trainready({"lint", f});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find("dup.json:7: key \"singlePlacementGroup\" appears twice in one object (line 7 "
                 "and line 7)"),
      std::string::npos)
      << r.err;
}

// Issue 19 item 1: the size is checked before a byte is read; stdin has the same bound.
TEST(LintCli, HugeInputsAreRefusedBeforeTheyAreRead) {
  std::string dir = temp_dir("lint-huge");
  std::string big = dir + "/big.json";
  ASSERT_EQ(std::system(("truncate -s 1G " + big).c_str()), 0);  // sparse: no disk used
  auto r = run_trainready({"lint", big});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("larger than 64 MiB"), std::string::npos) << r.err;
  auto z = run_trainready({"lint", "-"}, "", big);
  EXPECT_EQ(z.code, 2);
  EXPECT_NE(z.err.find("<stdin>: larger than 64 MiB"), std::string::npos) << z.err;
}

// Issue 22 item 2, issue 31 item 4: -p values are checked as ARM checks them; a value ARM would
// refuse is a finding at the value (exit 1) and the rest of the template is still linted, not
// an input error.
TEST(LintCli, ParameterValuesAreCheckedAgainstTheDeclaration) {
  const std::string tpl =
      fixture("deploy-templates/hpcpack2019/newcluster-templates/single-hn-lnxcn.json");
  auto low = run_trainready({"lint", tpl, "-p", "computeNodeNumber=0", "--json"});
  EXPECT_EQ(low.code, 1) << low.err;
  EXPECT_NE(low.out.find("deploy-parameter-invalid"), std::string::npos) << low.out;
  EXPECT_NE(low.out.find("parameter 'computeNodeNumber' = 0 is below minValue 1"),
            std::string::npos)
      << low.out;
  EXPECT_NE(low.out.find("-p computeNodeNumber"), std::string::npos) << low.out;
  auto img = run_trainready({"lint", tpl, "-p", "computeNodeImage=Windows2019", "--json"});
  EXPECT_EQ(img.code, 1);
  EXPECT_NE(img.out.find("is not one of the allowedValues"), std::string::npos) << img.out;
  auto type = run_trainready({"lint", tpl, "-p", "computeNodeNumber=many", "--json"});
  EXPECT_EQ(type.code, 1);
  EXPECT_NE(type.out.find("is not a whole number"), std::string::npos) << type.out;
  auto len = run_trainready({"lint", tpl, "-p", "clusterName=ab", "--json"});
  EXPECT_EQ(len.code, 1);
  EXPECT_NE(len.out.find("shorter than minLength 3"), std::string::npos) << len.out;
  // -p name=4 for a string parameter is the string "4", as az passes it.
  auto digits = run_trainready({"lint", tpl, "-p", "clusterName=4444", "--json"});
  EXPECT_NE(digits.code, 2) << digits.err;
  for (const auto& f : nlohmann::json::parse(digits.out)["findings"])
    EXPECT_NE(f["rule"], "deploy-parameter-invalid") << f.dump();
  // Only an unreadable file is exit 2.
  auto missing = run_trainready({"lint", tpl, "-p", "@/nonexistent/params.json"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/params.json"), std::string::npos) << missing.err;
}

// Issue 31 item 4: a secure value is never printed, in any format; a Key Vault reference is
// listed as not resolved without its vault or secret name.
TEST(LintCli, SecureValuesAndKeyVaultReferencesNeverReachTheOutput) {
  std::string dir = temp_dir("lint-secure");
  std::string tpl = write(dir, "t.json", R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "adminPassword": {"type": "securestring", "minLength": 12},
    "sshKey": {"type": "securestring"}
  },
  "resources": []
})");
  std::string par = write(dir, "p.json", R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "adminPassword": {"value": "hunter2-short"},
    "sshKey": {"reference": {"keyVault": {"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/vault-x"}, "secretName": "secret-y"}}
  }
})");
  for (const char* fmt : {"text", "json", "sarif"}) {
    auto r = run_trainready({"lint", tpl, par, "--format", fmt, "-p", "adminPassword=tiny"});
    EXPECT_EQ(r.code, 1) << fmt << r.err;
    for (const char* secret : {"tiny", "hunter2", "vault-x", "secret-y"}) {
      EXPECT_EQ(r.out.find(secret), std::string::npos) << fmt << ": " << secret << "\n" << r.out;
      EXPECT_EQ(r.err.find(secret), std::string::npos) << fmt << ": " << secret;
    }
    if (std::string(fmt) != "json") continue;  // text wraps its lines; SARIF has no notes
    EXPECT_NE(r.out.find("shorter than minLength 12"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Key Vault reference, not resolved"), std::string::npos) << r.out;
  }
}

}  // namespace trainready::test
