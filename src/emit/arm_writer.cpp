// The deployment model as an ARM template (JSON, languageVersion 1.0). ARM JSON has no comment
// syntax: each resource's "comments" property and the variable _trainready carry the reason for
// every setting.
#include <nlohmann/json.hpp>

#include "emit/deployment_model.h"

namespace trainready {
namespace {

using ojson = nlohmann::ordered_json;

ojson param(const std::string& type, const std::string& description,
            const std::optional<std::string>& default_value) {
  ojson p;
  p["type"] = type;
  if (default_value) p["defaultValue"] = *default_value;
  p["metadata"] = {{"description", description}};
  return p;
}

std::string reasons(const DeploymentModel& m, std::initializer_list<const char*> settings) {
  std::string out;
  for (const char* s : settings) {
    if (!out.empty()) out += " | ";
    out += std::string(s) + ": " + m.why_of(s);
  }
  return out;
}

}  // namespace

std::string write_arm_template(const DeploymentModel& m) {
  ojson t;
  t["$schema"] = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";
  t["contentVersion"] = "1.0.0.0";
  ojson& p = t["parameters"];
  p["location"] = param("string", "Azure region of every resource (the plan priced this one)",
                        m.location.empty() ? std::nullopt : std::optional<std::string>(m.location));
  p["namePrefix"] =
      param("string", "Prefix of the resource names and the VMs' host names", std::string("train"));
  p["adminUsername"] = param("string", "Administrator user on every VM", std::string("azureuser"));
  p["sshPublicKey"] = param("string",
                            "SSH public key (ssh-rsa / ssh-ed25519 ...) for the administrator; "
                            "password logins are disabled",
                            std::nullopt);
  p["imagePublisher"] = param("string", m.image.why, m.image.publisher);
  p["imageOffer"] = param("string", "Offer of the HPC image", m.image.offer);
  p["imageSku"] = param("string", "SKU of the HPC image", m.image.sku);
  p["imageVersion"] = param("string", "Version of the HPC image", m.image.version);

  // The 2019-04-01 template schema allows no top-level metadata: the generator, the reasons and
  // the notes are an (unused) variable, which ARM accepts and ignores.
  ojson why = ojson::object();
  for (const Why& w : m.why) why[w.setting] = w.reason;
  t["variables"] = {
      {"_trainready",
       {{"generator", "trainready plan --emit arm"},
        {"plan", m.plan_summary},
        {"why", why},
        {"notes", m.notes}}},
      {"vnetName", "[concat(parameters('namePrefix'), '-vnet')]"},
      {"subnetName", "compute"},
      {"vmssName", "[concat(parameters('namePrefix'), '-vmss')]"},
      {"cloudInit", m.cloud_init},
  };

  ojson vnet;
  vnet["type"] = "Microsoft.Network/virtualNetworks";
  vnet["apiVersion"] = "2023-11-01";
  vnet["name"] = "[variables('vnetName')]";
  vnet["location"] = "[parameters('location')]";
  vnet["comments"] = reasons(m, {"addressSpace"});
  vnet["properties"] = {
      {"addressSpace", {{"addressPrefixes", ojson::array({m.vnet_prefix})}}},
      {"subnets", ojson::array({{{"name", "[variables('subnetName')]"},
                                 {"properties", {{"addressPrefix", m.subnet_prefix}}}}})}};

  ojson vmss;
  vmss["type"] = "Microsoft.Compute/virtualMachineScaleSets";
  vmss["apiVersion"] = "2024-03-01";
  vmss["name"] = "[variables('vmssName')]";
  vmss["location"] = "[parameters('location')]";
  vmss["comments"] =
      reasons(m, {"vmSize", "capacity", "orchestrationMode", "singlePlacementGroup",
                  "platformFaultDomainCount", "overprovision", "image", "customData"});
  if (m.support_request) {
    vmss["metadata"] = {
        {"trainready",
         ojson::array({"deploy-placement-limit: " + std::to_string(m.vms) +
                       " VMs in one placement group, planned so; open the support request that "
                       "raises the single-placement-group limit to 300 before deploying"})}};
  }
  vmss["dependsOn"] =
      ojson::array({"[resourceId('Microsoft.Network/virtualNetworks', variables('vnetName'))]"});
  vmss["sku"] = {{"name", m.vm_size}, {"tier", "Standard"}, {"capacity", m.vms}};
  ojson props;
  props["orchestrationMode"] = m.orchestration;
  props["singlePlacementGroup"] = m.single_placement_group;
  props["platformFaultDomainCount"] = m.platform_fault_domain_count;
  props["overprovision"] = m.overprovision;
  props["upgradePolicy"] = {{"mode", "Manual"}};
  ojson profile;
  profile["storageProfile"] = {{"imageReference",
                                {{"publisher", "[parameters('imagePublisher')]"},
                                 {"offer", "[parameters('imageOffer')]"},
                                 {"sku", "[parameters('imageSku')]"},
                                 {"version", "[parameters('imageVersion')]"}}},
                               {"osDisk",
                                {{"createOption", "FromImage"},
                                 {"caching", "ReadWrite"},
                                 {"managedDisk", {{"storageAccountType", "Premium_LRS"}}}}}};
  profile["osProfile"] = {
      {"computerNamePrefix", "[parameters('namePrefix')]"},
      {"adminUsername", "[parameters('adminUsername')]"},
      {"customData", "[base64(variables('cloudInit'))]"},
      {"linuxConfiguration",
       {{"disablePasswordAuthentication", true},
        {"ssh",
         {{"publicKeys", ojson::array({{{"path",
                                         "[concat('/home/', parameters('adminUsername'), "
                                         "'/.ssh/authorized_keys')]"},
                                        {"keyData", "[parameters('sshPublicKey')]"}}})}}}}}};
  profile["networkProfile"] = {
      {"networkInterfaceConfigurations",
       ojson::array(
           {{{"name", "nic"},
             {"properties",
              {{"primary", true},
               {"enableAcceleratedNetworking", true},
               {"ipConfigurations",
                ojson::array(
                    {{{"name", "ipconfig"},
                      {"properties",
                       {{"subnet",
                         {{"id",
                           "[resourceId('Microsoft.Network/virtualNetworks/subnets', "
                           "variables('vnetName'), variables('subnetName'))]"}}}}}}})}}}}})}};
  props["virtualMachineProfile"] = profile;
  vmss["properties"] = props;

  t["resources"] = ojson::array({vnet, vmss});
  t["outputs"] = {{"vmssName", {{"type", "string"}, {"value", "[variables('vmssName')]"}}}};
  return t.dump(2) + "\n";
}

}  // namespace trainready
