#pragma once
// Minimal ARM templates and az / IMDS documents for the deployment-rule cases.
#include <string>
#include <vector>

#include "iac/deployment_inputs.h"
#include "support/rule_harness.h"

namespace trainready::test {

// A template whose "resources" array is `resources` (JSON text).
inline DeploymentFacts arm_resources(const std::string& resources) {
  return read_deployment_text(
      "{\n\"$schema\": "
      "\"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\",\n"
      "\"contentVersion\": \"1.0.0.0\",\n\"resources\": [\n" +
          resources + "\n]\n}\n",
      "t.json");
}

inline std::string vmss(const std::string& size, int capacity, const std::string& props) {
  return R"({"type": "Microsoft.Compute/virtualMachineScaleSets", "apiVersion": "2024-03-01",
  "name": "gpu", "sku": {"name": ")" +
         size + R"(", "capacity": )" + std::to_string(capacity) + R"(}, "properties": {)" + props +
         "}}";
}

inline std::string vm(const std::string& name, const std::string& size, const std::string& props,
                      int copies = 1) {
  std::string copy =
      copies > 1 ? R"("copy": {"name": "loop", "count": )" + std::to_string(copies) + "}, " : "";
  return R"({"type": "Microsoft.Compute/virtualMachines", "apiVersion": "2024-03-01", )" + copy +
         R"("name": ")" + name + R"(", "properties": {"hardwareProfile": {"vmSize": ")" + size +
         "\"}" + (props.empty() ? "" : ", " + props) + "}}";
}

inline std::string imds(const std::string& name, const std::string& size, const std::string& pg,
                        const std::string& vmss) {
  return R"({"compute": {"name": ")" + name + R"(", "vmSize": ")" + size +
         R"(", "placementGroupId": ")" + pg + R"(", "vmScaleSetName": ")" + vmss +
         R"(", "vmId": "x"}})";
}

// Several IMDS documents (one per node), as `lint node-*.json` reads them.
inline DeploymentFacts imds_nodes(const std::vector<std::string>& docs) {
  DeploymentFacts all;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    DeploymentFacts one = read_deployment_text(docs[i], "node" + std::to_string(i) + ".json");
    for (auto& r : one.resources) all.resources.push_back(std::move(r));
  }
  return all;
}

}  // namespace trainready::test
