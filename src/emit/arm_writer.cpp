// The deployment model as an ARM template (JSON, languageVersion 1.0). ARM JSON has no comment
// syntax: each resource's "comments" property and the variable _trainready carry the reason for
// every setting.
#include <nlohmann/json.hpp>
#include <vector>

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

// A located resource's header: its type, API version, name, region and why it is what it is.
ojson located(const std::string& type, const std::string& api_version, const std::string& name,
              const std::string& comments) {
  ojson r;
  r["type"] = type;
  r["apiVersion"] = api_version;
  r["name"] = name;
  r["location"] = "[parameters('location')]";
  r["comments"] = comments;
  return r;
}

// The storage account and containers the file system imports from, the role assignments it
// needs on them, and the file system itself.
std::vector<ojson> lustre_resources(const DeploymentModel& m) {
  const ManagedLustre& l = *m.lustre;
  const std::string account =
      "[resourceId('Microsoft.Storage/storageAccounts', "
      "variables('storageName'))]";
  auto container_id = [](const char* var) {
    return std::string(
               "[resourceId('Microsoft.Storage/storageAccounts/blobServices/containers', "
               "variables('storageName'), 'default', variables('") +
           var + "'))]";
  };
  std::vector<ojson> out;
  ojson sa = located("Microsoft.Storage/storageAccounts", "2023-05-01",
                     "[variables('storageName')]", reasons(m, {"hsm"}));
  sa["kind"] = "StorageV2";
  sa["sku"] = {{"name", "Standard_LRS"}};
  sa["properties"] = {{"allowSharedKeyAccess", true},
                      {"minimumTlsVersion", "TLS1_2"},
                      {"allowBlobPublicAccess", false},
                      {"supportsHttpsTrafficOnly", true}};
  out.push_back(sa);
  for (const char* var : {"dataContainer", "logContainer"}) {
    ojson c;
    c["type"] = "Microsoft.Storage/storageAccounts/blobServices/containers";
    c["apiVersion"] = "2023-05-01";
    c["name"] =
        std::string("[concat(variables('storageName'), '/default/', variables('") + var + "'))]";
    c["comments"] = std::string(var) == "dataContainer"
                        ? "hsm: the container the file system imports at creation"
                        : "hsm: import and export logs, a container apart from the data (API)";
    c["dependsOn"] = ojson::array({account});
    c["properties"] = {{"publicAccess", "None"}};
    out.push_back(c);
  }
  for (const char* role : {kStorageAccountContributorRoleId, kStorageBlobDataContributorRoleId}) {
    ojson ra;
    ra["type"] = "Microsoft.Authorization/roleAssignments";
    ra["apiVersion"] = "2022-04-01";
    ra["scope"] = "[format('Microsoft.Storage/storageAccounts/{0}', variables('storageName'))]";
    ra["name"] = std::string(
                     "[guid(resourceGroup().id, variables('storageName'), "
                     "parameters('hpcCacheResourceProviderObjectId'), '") +
                 role + "')]";
    ra["comments"] = reasons(m, {"roleAssignments"});
    ra["dependsOn"] = ojson::array({account});
    ra["properties"] = {
        {"roleDefinitionId",
         std::string("[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '") +
             role + "')]"},
        {"principalId", "[parameters('hpcCacheResourceProviderObjectId')]"},
        {"principalType", "ServicePrincipal"}};
    out.push_back(ra);
  }
  ojson fs =
      located("Microsoft.StorageCache/amlFilesystems", l.api_version, "[variables('amlfsName')]",
              reasons(m, {"amlfsSku", "storageCapacityTiB", "filesystemSubnet", "zones",
                          "maintenanceWindow", "hsm", "roleAssignments"}));
  ojson deps =
      ojson::array({"[resourceId('Microsoft.Network/virtualNetworks', variables('vnetName'))]",
                    container_id("dataContainer"), container_id("logContainer")});
  for (const char* role : {kStorageAccountContributorRoleId, kStorageBlobDataContributorRoleId}) {
    deps.push_back(
        std::string("[extensionResourceId(resourceId('Microsoft.Storage/"
                    "storageAccounts', variables('storageName')), "
                    "'Microsoft.Authorization/roleAssignments', guid(resourceGroup().id, "
                    "variables('storageName'), "
                    "parameters('hpcCacheResourceProviderObjectId'), '") +
        role + "'))]");
  }
  fs["dependsOn"] = deps;
  fs["sku"] = {{"name", l.tier.name}};
  fs["zones"] = ojson::array({"[parameters('zone')]"});
  fs["properties"] = {
      {"storageCapacityTiB", l.capacity_tib},
      {"filesystemSubnet",
       "[resourceId('Microsoft.Network/virtualNetworks/subnets', variables('vnetName'), "
       "variables('amlfsSubnetName'))]"},
      {"maintenanceWindow",
       {{"dayOfWeek", "[parameters('maintenanceDay')]"},
        {"timeOfDayUTC", "[parameters('maintenanceTimeUtc')]"}}},
      {"hsm",
       {{"settings",
         {{"container", container_id("dataContainer")},
          {"loggingContainer", container_id("logContainer")},
          {"importPrefix", l.import_prefix}}}}}};
  out.push_back(fs);
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
  if (m.lustre) {
    const ManagedLustre& l = *m.lustre;
    p["zone"] = param("string", "zones: " + m.why_of("zones"), l.zone);
    p["maintenanceDay"] =
        param("string", "maintenanceWindow: " + m.why_of("maintenanceWindow"), l.maintenance_day);
    p["maintenanceTimeUtc"] = param("string",
                                    "Start of the weekly 30-minute maintenance window "
                                    "(HH:MM, UTC)",
                                    l.maintenance_time_utc);
    p["hpcCacheResourceProviderObjectId"] =
        param("string", "roleAssignments: " + m.why_of("roleAssignments"), std::nullopt);
    // An object id is a GUID: an empty lookup result fails validation, not the role assignment.
    p["hpcCacheResourceProviderObjectId"]["minLength"] = 36;
    p["hpcCacheResourceProviderObjectId"]["maxLength"] = 36;
  }

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
  if (m.lustre) {
    ojson& v = t["variables"];
    v["amlfsName"] = "[concat(parameters('namePrefix'), '-amlfs')]";
    v["amlfsSubnetName"] = "amlfs";
    // 3-24 lowercase letters and digits, unique in Azure: the prefix's letters, then a hash.
    v["storageName"] =
        "[concat(take(toLower(replace(parameters('namePrefix'), '-', '')), 11), "
        "uniqueString(resourceGroup().id))]";
    v["dataContainer"] = "data";
    v["logContainer"] = "logs";
  }

  ojson vnet = located("Microsoft.Network/virtualNetworks", "2023-11-01", "[variables('vnetName')]",
                       reasons(m, {"addressSpace"}));
  vnet["properties"] = {
      {"addressSpace", {{"addressPrefixes", ojson::array({m.vnet_prefix})}}},
      {"subnets", ojson::array({{{"name", "[variables('subnetName')]"},
                                 {"properties", {{"addressPrefix", m.subnet_prefix}}}}})}};
  if (m.lustre) {
    vnet["comments"] = reasons(m, {"addressSpace", "filesystemSubnet"});
    vnet["properties"]["subnets"].push_back(
        {{"name", "[variables('amlfsSubnetName')]"},
         {"properties", {{"addressPrefix", m.lustre->subnet_prefix}}}});
  }

  ojson vmss =
      located("Microsoft.Compute/virtualMachineScaleSets", "2024-03-01", "[variables('vmssName')]",
              reasons(m, {"vmSize", "capacity", "orchestrationMode", "singlePlacementGroup",
                          "platformFaultDomainCount", "overprovision", "image", "customData"}));
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
  if (m.lustre) {
    vmss["comments"] =
        vmss["comments"].get<std::string>() + " | " + reasons(m, {"zones", "userData"});
    vmss["zones"] = ojson::array({"[parameters('zone')]"});
    vmss["dependsOn"].push_back(
        "[resourceId('Microsoft.StorageCache/amlFilesystems', variables('amlfsName'))]");
  }
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
  if (m.lustre) {
    profile["userData"] =
        "[base64(reference(resourceId('Microsoft.StorageCache/amlFilesystems', "
        "variables('amlfsName')), '" +
        m.lustre->api_version + "').clientInfo.mgsAddress)]";
  }
  props["virtualMachineProfile"] = profile;
  vmss["properties"] = props;

  t["resources"] = ojson::array({vnet});
  if (m.lustre) {
    for (ojson& r : lustre_resources(m)) t["resources"].push_back(std::move(r));
  }
  t["resources"].push_back(vmss);
  t["outputs"] = {{"vmssName", {{"type", "string"}, {"value", "[variables('vmssName')]"}}}};
  if (m.lustre) {
    t["outputs"]["lustreMgsAddress"] = {
        {"type", "string"},
        {"value",
         "[reference(resourceId('Microsoft.StorageCache/amlFilesystems', "
         "variables('amlfsName')), '" +
             m.lustre->api_version + "').clientInfo.mgsAddress]"}};
    t["outputs"]["lustreMount"] = {{"type", "string"}, {"value", m.lustre->mount}};
  }
  return t.dump(2) + "\n";
}

}  // namespace trainready
