// lint reads what deployment tools compile or plan (ARM JSON, Terraform plan JSON), not their
// sources: a Bicep or Terraform source gets the command that makes the JSON, not a JSON syntax
// error at line 1.
#include <gtest/gtest.h>

#include <fstream>

#include "core/input_error.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::string error_of(const std::string& path) {
  try {
    read_deployment_inputs({path}, {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DeploymentSources, ABicepSourceNamesTheBuildCommand) {
  // Microsoft's own amlFilesystems example, as a .bicep file (tests/data/SOURCES.md).
  const std::string path =
      std::string(TR_TEST_DATA) + "/deploy/sources/amlfs-restspec-example.bicep";
  const std::string e = error_of(path);
  EXPECT_NE(e.find("amlfs-restspec-example.bicep:1"), std::string::npos) << e;
  EXPECT_NE(e.find("a Bicep source, not JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("az bicep build --file"), std::string::npos) << e;
}

TEST(DeploymentSources, ATerraformSourceNamesThePlanCommands) {
  const std::string dir = test::temp_dir("deployment-sources");
  const std::string tf = dir + "/main.tf";
  std::ofstream(tf) << "resource \"azurerm_resource_group\" \"rg\" {\n  name = \"rg\"\n}\n";
  const std::string e = error_of(tf);
  EXPECT_NE(e.find("a Terraform source, not JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("terraform show -json"), std::string::npos) << e;
}

TEST(DeploymentSources, JsonUnderAnyNameIsStillRead) {
  // Bicep's compiled output is sometimes kept with the source's name; JSON is read as JSON.
  const std::string dir = test::temp_dir("deployment-sources-json");
  const std::string f = dir + "/main.bicep";
  std::ofstream(f) << "{\"$schema\": "
                      "\"https://schema.management.azure.com/schemas/2019-04-01/"
                      "deploymentTemplate.json#\", \"contentVersion\": \"1.0.0.0\", "
                      "\"resources\": []}\n";
  EXPECT_EQ(error_of(f), "");
}

}  // namespace
}  // namespace trainready
