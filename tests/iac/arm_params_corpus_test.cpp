// Real templates with the parameters files published beside them (issue 31 item 4,
// tests/data/deploy/params-corpus, provenance in tests/data/SOURCES.md): each lints with its own
// parameters file (exit 0 or 1, never an input error), with the findings an Azure engineer reading
// the two files would give.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"

namespace trainready::test {
namespace {

std::string corpus(const std::string& dir) {
  return std::string(TR_TEST_DATA) + "/deploy/params-corpus/" + dir;
}

struct Expected {
  std::string dir;
  // deploy-parameter-invalid findings, by parameter name, each with a piece of its message.
  std::vector<std::pair<std::string, std::string>> invalid;
  // deploy-parameter-placeholder findings, by parameter name.
  std::vector<std::string> placeholder;
  std::vector<std::string> note;  // pieces of a lint note (not resolved)
};

struct Linted {
  DeploymentFacts facts;
  Evaluation ev;
};

Linted lint(const std::string& dir) {
  Linted l;
  l.facts = read_deployment_inputs(
      {corpus(dir) + "/azuredeploy.json", corpus(dir) + "/azuredeploy.parameters.json"}, {});
  l.ev = evaluate_deployment_rules(l.facts, Catalog::builtin());
  return l;
}

std::vector<std::string> names(const Evaluation& ev, const std::string& rule) {
  std::vector<std::string> out;
  for (const auto& f : ev.findings)
    if (f.rule_id == rule) out.push_back(f.resource);
  std::sort(out.begin(), out.end());
  return out;
}

const Finding* about(const Evaluation& ev, const std::string& rule, const std::string& name) {
  for (const auto& f : ev.findings)
    if (f.rule_id == rule && f.resource == "parameters('" + name + "')") return &f;
  return nullptr;
}

void check(const Expected& e) {
  SCOPED_TRACE(e.dir);
  Linted l = lint(e.dir);
  EXPECT_TRUE(l.facts.input_errors.empty());
  std::vector<std::string> want_invalid;
  for (const auto& [name, piece] : e.invalid) {
    want_invalid.push_back("parameters('" + name + "')");
    const Finding* f = about(l.ev, "deploy-parameter-invalid", name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_NE(f->message.find(piece), std::string::npos) << f->message;
    EXPECT_EQ(f->severity, Severity::kError);
    // Located on the value in the parameters file.
    EXPECT_NE(f->location.source.find("azuredeploy.parameters.json"), std::string::npos);
    EXPECT_GT(f->location.line, 1);
  }
  std::sort(want_invalid.begin(), want_invalid.end());
  EXPECT_EQ(names(l.ev, "deploy-parameter-invalid"), want_invalid);
  std::vector<std::string> want_placeholder;
  for (const auto& name : e.placeholder) want_placeholder.push_back("parameters('" + name + "')");
  std::sort(want_placeholder.begin(), want_placeholder.end());
  EXPECT_EQ(names(l.ev, "deploy-parameter-placeholder"), want_placeholder);
  std::string notes;
  for (const auto& n : l.facts.notes) notes += n + "\n";
  for (const auto& piece : e.note) EXPECT_NE(notes.find(piece), std::string::npos) << notes;
  // None of these is an InfiniBand or GPU deployment: no other rule fires.
  for (const auto& f : l.ev.findings)
    EXPECT_TRUE(f.rule_id == "deploy-parameter-invalid" ||
                f.rule_id == "deploy-parameter-placeholder")
        << f.rule_id << ": " << f.message;
}

}  // namespace

// namePrefix GEN-UNIQUE-8 is 12 characters where the template allows 8: ARM refuses it (exit 2
// before issue 31). GEN-PASSWORD is a placeholder ARM accepts; it is a securestring, so its
// message quotes no value.
TEST(ArmParamsCorpus, StorageSpacesDirect) {
  check({"azurestack-301-storage-spaces-direct",
         {{"namePrefix",
           "is a value left to fill (a GEN-* placeholder of the Azure quickstart "
           "templates) and is longer than maxLength 8"}},
         {"adminPassword"},
         {}});
}

// OS-Version and SQL-VERSION are not among the allowedValues (exit 2 before issue 31); the
// GEN-USER / GEN-PASSWORD values are placeholders.
TEST(ArmParamsCorpus, AppServiceFileServerSqlHa) {
  check({"azurestack-appservice-fileserver-sqlserver-ha",
         {{"OSBaseVersion", "is not one of the allowedValues"},
          {"OSSQLVersion", "is not one of the allowedValues"}},
         {"adminPassword", "adminUsername", "fileShareOwnerPassword", "fileShareOwnerUserName",
          "fileShareUserPassword", "fileShareUserUserName", "sqlLogin", "sqlLoginPassword",
          "sqlServerServiceAccountPassword", "sqlServerServiceAccountUserName"},
         {}});
}

// Three passwords left null: parameter values are not nullable (exit 2 before issue 31).
TEST(ArmParamsCorpus, AppServiceFileServerStandalone) {
  check({"azurestack-appservice-fileserver-standalone",
         {{"adminPassword", "null, where the template needs a value"},
          {"fileShareOwnerPassword", "is not of type securestring (it is null)"},
          {"fileShareUserPassword", "is not of type securestring (it is null)"}},
         {},
         {}});
}

// sshkeyData, imageName and imageUri left null (exit 2 before issue 31).
TEST(ArmParamsCorpus, CustomManagedDiskVm) {
  check({"azurestack-101-simple-linux-vm-custom-managed-disk",
         {{"imageName", "is not of type string (it is null)"},
          {"imageUri", "is not of type string (it is null)"},
          {"sshkeyData", "null, where the template needs a value"}},
         {},
         {}});
}

// The admin password is a Key Vault reference: not resolved, never read, never shown.
TEST(ArmParamsCorpus, PasswordFromKeyVault) {
  check({"azurestack-101-vm-windows-create-passwordfromkv",
         {},
         {},
         {"parameter 'adminPassword' is a Key Vault reference, not resolved"}});
  Linted l = lint("azurestack-101-vm-windows-create-passwordfromkv");
  for (const auto& n : l.facts.notes) EXPECT_EQ(n.find("vaultName"), std::string::npos) << n;
}

// A parameters file keyed "schema" instead of "$schema" is still a parameters file (exit 2
// before issue 31: "not a deployment file"). Every value is "": a blank where the template has
// no default is left to fill; where it has one, "" is a value the user may mean.
TEST(ArmParamsCorpus, DockerRegistryBlankParameters) {
  check({"azurestack-101-vm-linux-docker-registry",
         {},
         {"adminPublicKey", "pfxKeyVaultResourceId", "pfxKeyVaultSecretUrl", "pfxThumbprint",
          "pipDomainNameLabel", "pipName", "servicePrincipalClientId",
          "servicePrincipalClientSecret", "storageAccountContainer", "storageAccountResourceId"},
         {}});
  Linted l = lint("azurestack-101-vm-linux-docker-registry");
  const Finding* secret =
      about(l.ev, "deploy-parameter-placeholder", "servicePrincipalClientSecret");
  ASSERT_NE(secret, nullptr);
  EXPECT_NE(secret->message.find("(a securestring value, not shown)"), std::string::npos);
}

// A scale set with an empty parameters file: nothing to report.
TEST(ArmParamsCorpus, LargeScaleScaleSet) {
  check({"azurestack-201-vmss-linux-vm-largescale", {}, {}, {}});
}

}  // namespace trainready::test
