// Parameter values (issue 31 item 4): a value ARM would refuse or one left to fill is a
// ParameterProblem with the file and line of the value, never an input error; -p is converted by
// the declared type as az converts it; Key Vault references are notes, never printed.
#include <gtest/gtest.h>

#include <fstream>

#include "core/input_error.h"
#include "iac/arm_template.h"
#include "iac/deployment_inputs.h"
#include "iac/parameter_values.h"
#include "support/paths.h"

namespace trainready::test {
namespace {

using json = nlohmann::json;

const char* kTemplate = R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {
    "clusterName": {"type": "string", "minLength": 3, "maxLength": 15},
    "adminPassword": {"type": "securestring", "minLength": 12},
    "nodeCount": {"type": "int", "defaultValue": 2, "minValue": 1, "maxValue": 100},
    "vmSize": {"type": "string", "defaultValue": "Standard_ND96isr_H100_v5",
               "allowedValues": ["Standard_ND96isr_H100_v5", "Standard_ND96asr_v4"]},
    "useSpg": {"type": "bool", "defaultValue": false},
    "tags": {"type": "object", "defaultValue": {}},
    "zones": {"type": "array", "defaultValue": []},
    "suffix": {"type": "string", "defaultValue": "x"},
    "vnetName": {"type": "string"}
  },
  "resources": [
    {"type": "Microsoft.Compute/virtualMachineScaleSets", "apiVersion": "2024-03-01",
     "name": "[parameters('clusterName')]",
     "sku": {"name": "[parameters('vmSize')]", "capacity": "[parameters('nodeCount')]"},
     "properties": {"singlePlacementGroup": "[parameters('useSpg')]"}},
    {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01", "name": "net",
     "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]}}}
  ]
})";

struct Temp {
  std::string dir = temp_dir("param-values");
  std::string put(const std::string& name, const std::string& text) const {
    std::string p = dir + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
};

DeploymentFacts lint(const std::vector<std::string>& paths, std::vector<std::string> p = {}) {
  DeploymentInputOptions o;
  o.parameters = std::move(p);
  return read_deployment_inputs(paths, o);
}

const ParameterProblem* problem(const DeploymentFacts& f, const std::string& name) {
  for (const auto& p : f.parameter_problems)
    if (p.name == name) return &p;
  return nullptr;
}

const DeploymentResource* scale_set(const DeploymentFacts& f) {
  for (const auto& r : f.resources)
    if (r.kind == ResourceKind::kScaleSet) return &r;
  return nullptr;
}

std::string params_file(const std::string& body) {
  return "{\n  \"$schema\": "
         "\"https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#\",\n"
         "  \"contentVersion\": \"1.0.0.0\",\n  \"parameters\": {\n" +
         body + "\n  }\n}\n";
}

}  // namespace

// A placeholder ARM would accept is a finding of its own kind, located on the value's line; the
// template is still read, with the value unknown.
TEST(ParameterValues, PlaceholdersAreProblemsOnTheValueLineAndTheRestIsRead) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  std::string par = t.put("t.parameters.json", params_file(R"(    "clusterName": {
      "value": "GEN-UNIQUE"
    },
    "adminPassword": {"value": "GEN-PASSWORD-LONG"},
    "vnetName": {"value": "<your-vnet>"})"));
  DeploymentFacts f = lint({tpl, par});
  EXPECT_TRUE(f.input_errors.empty());
  const ParameterProblem* name = problem(f, "clusterName");
  ASSERT_NE(name, nullptr);
  EXPECT_TRUE(name->placeholder);
  EXPECT_FALSE(name->refused);
  EXPECT_EQ(name->where.str(), par + ":6");
  EXPECT_NE(name->message.find("left to fill (a GEN-* placeholder"), std::string::npos)
      << name->message;
  EXPECT_EQ(name->declared.str(), tpl + ":5");
  const ParameterProblem* vnet = problem(f, "vnetName");
  ASSERT_NE(vnet, nullptr);
  EXPECT_NE(vnet->message.find("angle-bracketed placeholder"), std::string::npos);
  // A secure value is never quoted, placeholder or not.
  const ParameterProblem* pw = problem(f, "adminPassword");
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(pw->message.find("GEN-PASSWORD"), std::string::npos) << pw->message;
  EXPECT_NE(pw->message.find("not shown"), std::string::npos) << pw->message;
  const DeploymentResource* ss = scale_set(f);
  ASSERT_NE(ss, nullptr);
  EXPECT_TRUE(ss->vm_size.is_known());
  EXPECT_EQ(ss->count.value, 2);
}

// A value that breaks the declaration is a refused problem (not an InputError), and the
// expressions that use it see it as unknown.
TEST(ParameterValues, ARefusedValueIsUnknownToTheEvaluator) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  std::string par = t.put("p.json", params_file(R"(    "clusterName": {"value": "ok-name"},
    "adminPassword": {"value": "short"},
    "vmSize": {"value": "Standard_D2s_v3"},
    "nodeCount": {"value": "4"},
    "vnetName": {"value": "v"})"));
  DeploymentFacts f = lint({tpl, par});
  EXPECT_TRUE(f.input_errors.empty());
  ASSERT_NE(problem(f, "vmSize"), nullptr);
  EXPECT_NE(problem(f, "vmSize")->message.find("is not one of the allowedValues"),
            std::string::npos);
  EXPECT_EQ(problem(f, "vmSize")->where.str(), par + ":7");
  // A file's "4" for an int is read as 4 (not judged: ARM's conversion is not documented).
  EXPECT_EQ(problem(f, "nodeCount"), nullptr);
  ASSERT_NE(problem(f, "adminPassword"), nullptr);
  EXPECT_NE(problem(f, "adminPassword")->message.find("shorter than minLength 12"),
            std::string::npos);
  EXPECT_EQ(problem(f, "adminPassword")->message.find("short\""), std::string::npos);
  const DeploymentResource* ss = scale_set(f);
  ASSERT_NE(ss, nullptr);
  EXPECT_TRUE(ss->vm_size.is_unknown());
  EXPECT_EQ(ss->count.value, 4);
  EXPECT_EQ(ss->name, "ok-name");
}

// -p name=value is converted by the declared type as az converts it (azure-cli custom.py,
// _try_parse_key_value_object).
TEST(ParameterValues, CliValuesAreConvertedByTheDeclaredType) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  DeploymentFacts f =
      lint({tpl}, {"clusterName=4444", "nodeCount= 1_6 ", "useSpg=True", "vnetName=v",
                   "adminPassword=correct-horse-battery", "tags={\"a\": 1}", "zones=[\"1\"]"});
  for (const auto& p : f.parameter_problems) ADD_FAILURE() << p.message;
  const DeploymentResource* ss = scale_set(f);
  ASSERT_NE(ss, nullptr);
  EXPECT_EQ(ss->name, "4444");  // a string parameter keeps the text "4444"
  EXPECT_EQ(ss->count.value, 16);
  EXPECT_TRUE(ss->placement->single_placement_group.is_known());
  EXPECT_TRUE(ss->placement->single_placement_group.value);

  DeploymentFacts bad =
      lint({tpl}, {"nodeCount=many", "useSpg=yes", "tags=not-json", "clusterName=okay",
                   "vnetName=v", "adminPassword=0123456789ab"});
  ASSERT_NE(problem(bad, "nodeCount"), nullptr);
  EXPECT_NE(problem(bad, "nodeCount")->message.find("is not a whole number"), std::string::npos);
  EXPECT_EQ(problem(bad, "nodeCount")->where.str(), "-p nodeCount");
  ASSERT_NE(problem(bad, "useSpg"), nullptr);
  EXPECT_NE(problem(bad, "useSpg")->message.find("az would pass false"), std::string::npos);
  ASSERT_NE(problem(bad, "tags"), nullptr);
  EXPECT_NE(problem(bad, "tags")->message.find("is not JSON"), std::string::npos);
  EXPECT_EQ(bad.parameter_problems.size(), 3u);
}

// -p @file, -p FILE, -p '{json}' and -p name=@file, as az takes them.
TEST(ParameterValues, CliFilesAndJsonObjects) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  std::string file = t.put("p.json", params_file(R"(    "clusterName": {"value": "from-file"},
    "vnetName": {"value": "v"},
    "adminPassword": {"value": "0123456789abc"})"));
  std::string bare = t.put("bare.json", R"({"nodeCount": {"value": 0}})");
  std::string text = t.put("name.txt", "from-text-file\n");
  DeploymentFacts f =
      lint({tpl}, {"@" + file, bare, R"({"vmSize": {"value": "Standard_ND96asr_v4"}})"});
  ASSERT_NE(problem(f, "nodeCount"), nullptr);
  EXPECT_EQ(problem(f, "nodeCount")->where.str(), bare + ":1");
  EXPECT_NE(problem(f, "nodeCount")->message.find("below minValue 1"), std::string::npos);
  EXPECT_EQ(f.parameter_problems.size(), 1u);
  const DeploymentResource* ss = scale_set(f);
  ASSERT_NE(ss, nullptr);
  EXPECT_EQ(ss->name, "from-file");
  EXPECT_EQ(ss->vm_size.value, "Standard_ND96asr_v4");
  DeploymentFacts g = lint({tpl, file}, {"clusterName=@" + text});
  ASSERT_NE(scale_set(g), nullptr);
  EXPECT_EQ(scale_set(g)->name, "from-text-file");
  // An unreadable file is still exit 2.
  EXPECT_THROW(lint({tpl}, {"@" + t.dir + "/missing.json"}), InputError);
  EXPECT_THROW(lint({tpl}, {"clusterName=@" + t.dir + "/missing.txt"}), InputError);
  EXPECT_THROW(lint({tpl}, {"no-equals-sign"}), InputError);
}

// A Key Vault reference is a note: the value is unknown, and neither the vault nor the secret
// name is ever shown.
TEST(ParameterValues, KeyVaultReferencesAreNotesNeverPrinted) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  std::string par = t.put("p.json", params_file(R"(    "clusterName": {"value": "abc"},
    "vnetName": {"value": "v"},
    "adminPassword": {
      "reference": {
        "keyVault": {"id": "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv-secret-vault"},
        "secretName": "the-secret-name"
      }
    })"));
  DeploymentFacts f = lint({tpl, par});
  EXPECT_TRUE(f.parameter_problems.empty());
  std::string notes;
  for (const auto& n : f.notes) notes += n + "\n";
  EXPECT_NE(notes.find(par + ":8: parameter 'adminPassword' is a Key Vault reference, not "
                             "resolved"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("the-secret-name"), std::string::npos);
  EXPECT_EQ(notes.find("kv-secret-vault"), std::string::npos);
}

// A supplied value the template does not declare: ARM refuses it; with several templates in one
// run it is not held against the ones that do not declare it.
TEST(ParameterValues, UndeclaredValuesAreReportedForOneTemplate) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  DeploymentFacts f = lint({tpl}, {"clusterName=abc", "vnetName=v", "adminPassword=0123456789ab",
                                   "adminUserName=azureuser"});
  ASSERT_NE(problem(f, "adminusername"), nullptr);
  EXPECT_NE(problem(f, "adminusername")->message.find("is not declared by the template"),
            std::string::npos);
  std::string other = t.put("other.json", R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0", "parameters": {"adminUserName": {"type": "string"}},
  "resources": []})");
  DeploymentFacts two = lint(
      {tpl, other},
      {"clusterName=abc", "vnetName=v", "adminPassword=0123456789ab", "adminUserName=azureuser"});
  EXPECT_TRUE(two.parameter_problems.empty());
}

// An empty string for a required parameter is a value left to fill; for one with a default, it
// is a choice.
TEST(ParameterValues, EmptyRequiredStringsAreLeftToFill) {
  Temp t;
  std::string tpl = t.put("t.json", kTemplate);
  DeploymentFacts f =
      lint({tpl}, {"clusterName=abc", "vnetName=", "adminPassword=0123456789ab", "suffix="});
  ASSERT_EQ(f.parameter_problems.size(), 1u);
  EXPECT_EQ(f.parameter_problems[0].name, "vnetName");
  EXPECT_NE(f.parameter_problems[0].message.find("an empty value for a parameter the template "
                                                 "requires"),
            std::string::npos);
}

}  // namespace trainready::test
