// The deployment model as Bicep: the same resources and values as the ARM writer, with a
// `//` comment above each setting saying why it is what it is.
#include <sstream>

#include "emit/deployment_model.h"

namespace trainready {
namespace {

// A Bicep single-quoted string literal.
std::string q(const std::string& s) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (c == '$' && i + 1 < s.size() && s[i + 1] == '{') {
      out += "\\$";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string comment(const std::string& pad, const std::string& setting, const DeploymentModel& m) {
  return pad + "// " + setting + ": " + m.why_of(setting) + "\n";
}

// The storage account, containers and role assignments the Blob import needs, then the file
// system; the same resources and values as the ARM writer.
std::string lustre_bicep(const DeploymentModel& m) {
  const ManagedLustre& l = *m.lustre;
  std::ostringstream b;
  b << comment("", "hsm", m)
    << "resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n"
    << "  name: '${take(toLower(replace(namePrefix, '-', '')), "
       "11)}${uniqueString(resourceGroup().id)}'\n"
    << "  location: location\n  kind: 'StorageV2'\n  sku: {\n    name: 'Standard_LRS'\n  }\n"
    << "  properties: {\n    allowSharedKeyAccess: true\n    minimumTlsVersion: 'TLS1_2'\n"
    << "    allowBlobPublicAccess: false\n    supportsHttpsTrafficOnly: true\n  }\n}\n\n"
    << "resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {\n"
    << "  parent: storage\n  name: 'default'\n}\n\n"
    << "resource dataContainer "
       "'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {\n"
    << "  parent: blobs\n  name: 'data'\n  properties: {\n    publicAccess: 'None'\n  }\n}\n\n"
    << "resource logContainer "
       "'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {\n"
    << "  parent: blobs\n  name: 'logs'\n  properties: {\n    publicAccess: 'None'\n  }\n}\n\n"
    << comment("", "roleAssignments", m) << "var hsmRoles = [\n  '"
    << kStorageAccountContributorRoleId << "'\n  '" << kStorageBlobDataContributorRoleId
    << "'\n]\n\n"
    << "resource hsmAccess 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in "
       "hsmRoles: {\n"
    << "  scope: storage\n"
    << "  name: guid(resourceGroup().id, storage.name, hpcCacheResourceProviderObjectId, role)\n"
    << "  properties: {\n"
    << "    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', "
       "role)\n"
    << "    principalId: hpcCacheResourceProviderObjectId\n"
    << "    principalType: 'ServicePrincipal'\n  }\n}]\n\n"
    << "resource amlfs 'Microsoft.StorageCache/amlFilesystems@" << l.api_version << "' = {\n"
    << "  name: '${namePrefix}-amlfs'\n  location: location\n"
    << comment("  ", "amlfsSku", m) << "  sku: {\n    name: " << q(l.tier.name) << "\n  }\n"
    << comment("  ", "zones", m) << "  zones: [\n    zone\n  ]\n"
    << "  properties: {\n"
    << comment("    ", "storageCapacityTiB", m) << "    storageCapacityTiB: " << l.capacity_tib
    << "\n"
    << comment("    ", "filesystemSubnet", m)
    << "    filesystemSubnet: vnet.properties.subnets[1].id\n"
    << comment("    ", "maintenanceWindow", m)
    << "    maintenanceWindow: {\n      dayOfWeek: maintenanceDay\n"
    << "      timeOfDayUTC: maintenanceTimeUtc\n    }\n"
    << comment("    ", "hsm", m) << "    hsm: {\n      settings: {\n"
    << "        container: dataContainer.id\n        loggingContainer: logContainer.id\n"
    << "        importPrefix: " << q(l.import_prefix) << "\n      }\n    }\n"
    << "  }\n  dependsOn: [\n    hsmAccess\n  ]\n}\n\n";
  return b.str();
}

}  // namespace

std::string write_bicep(const DeploymentModel& m) {
  std::ostringstream b;
  b << "// Written by `trainready plan --emit bicep`: " << m.plan_summary << ".\n"
    << "// Compile with `az bicep build --file main.bicep` and lint the JSON with "
       "`trainready lint main.json`.\n";
  for (const std::string& n : m.notes) b << "// NOTE " << n << "\n";
  b << "\n@description('Azure region of every resource (the plan priced this one)')\n"
    << "param location string" << (m.location.empty() ? "" : " = " + q(m.location)) << "\n\n"
    << "@description('Prefix of the resource names and the VMs\\' host names')\n"
    << "param namePrefix string = 'train'\n\n"
    << "@description('Administrator user on every VM')\n"
    << "param adminUsername string = 'azureuser'\n\n"
    << "@description('SSH public key for the administrator; password logins are disabled')\n"
    << "param sshPublicKey string\n\n"
    << comment("", "image", m) << "param imagePublisher string = " << q(m.image.publisher) << "\n"
    << "param imageOffer string = " << q(m.image.offer) << "\n"
    << "param imageSku string = " << q(m.image.sku) << "\n"
    << "param imageVersion string = " << q(m.image.version) << "\n\n";
  if (m.lustre) {
    const ManagedLustre& l = *m.lustre;
    b << comment("", "zones", m) << "param zone string = " << q(l.zone) << "\n\n"
      << comment("", "maintenanceWindow", m)
      << "@allowed([\n  'Monday'\n  'Tuesday'\n  'Wednesday'\n  'Thursday'\n  'Friday'\n"
         "  'Saturday'\n  'Sunday'\n])\n"
      << "param maintenanceDay string = " << q(l.maintenance_day) << "\n"
      << "@description('Start of the weekly 30-minute maintenance window (HH:MM, UTC)')\n"
      << "param maintenanceTimeUtc string = " << q(l.maintenance_time_utc) << "\n\n"
      << comment("", "roleAssignments", m)
      << "@minLength(36)\n@maxLength(36)\nparam hpcCacheResourceProviderObjectId string\n\n";
  }
  b << comment("", "customData", m);
  // A multi-line string: taken verbatim (no escapes, no interpolation); the newline after the
  // opening quotes is not part of it.
  b << "var cloudInit = '''\n" << m.cloud_init << "'''\n\n";

  b << "resource vnet 'Microsoft.Network/virtualNetworks@2023-11-01' = {\n"
    << "  name: '${namePrefix}-vnet'\n"
    << "  location: location\n"
    << "  properties: {\n"
    << comment("    ", "addressSpace", m) << "    addressSpace: {\n"
    << "      addressPrefixes: [\n        " << q(m.vnet_prefix) << "\n      ]\n"
    << "    }\n"
    << "    subnets: [\n      {\n        name: 'compute'\n        properties: {\n"
    << "          addressPrefix: " << q(m.subnet_prefix) << "\n        }\n      }\n";
  if (m.lustre) {
    b << comment("      ", "filesystemSubnet", m) << "      {\n        name: 'amlfs'\n"
      << "        properties: {\n          addressPrefix: " << q(m.lustre->subnet_prefix)
      << "\n        }\n      }\n";
  }
  b << "    ]\n  }\n}\n\n";
  if (m.lustre) b << lustre_bicep(m);

  b << "resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2024-03-01' = {\n"
    << "  name: '${namePrefix}-vmss'\n"
    << "  location: location\n";
  if (m.lustre) {
    b << comment("  ", "zones", m) << "  zones: [\n    zone\n  ]\n";
  }
  b << comment("  ", "vmSize", m) << comment("  ", "capacity", m) << "  sku: {\n"
    << "    name: " << q(m.vm_size) << "\n    tier: 'Standard'\n"
    << "    capacity: " << m.vms << "\n  }\n"
    << "  properties: {\n"
    << comment("    ", "orchestrationMode", m) << "    orchestrationMode: " << q(m.orchestration)
    << "\n"
    << comment("    ", "singlePlacementGroup", m)
    << "    singlePlacementGroup: " << (m.single_placement_group ? "true" : "false") << "\n"
    << comment("    ", "platformFaultDomainCount", m)
    << "    platformFaultDomainCount: " << m.platform_fault_domain_count << "\n"
    << comment("    ", "overprovision", m)
    << "    overprovision: " << (m.overprovision ? "true" : "false") << "\n"
    << "    upgradePolicy: {\n      mode: 'Manual'\n    }\n"
    << "    virtualMachineProfile: {\n";
  if (m.lustre) {
    b << comment("      ", "userData", m)
      << "      userData: base64(amlfs.properties.clientInfo.mgsAddress)\n";
  }
  b << "      storageProfile: {\n"
    << "        imageReference: {\n"
    << "          publisher: imagePublisher\n          offer: imageOffer\n"
    << "          sku: imageSku\n          version: imageVersion\n        }\n"
    << "        osDisk: {\n          createOption: 'FromImage'\n          caching: 'ReadWrite'\n"
    << "          managedDisk: {\n            storageAccountType: 'Premium_LRS'\n          }\n"
    << "        }\n      }\n"
    << "      osProfile: {\n"
    << "        computerNamePrefix: namePrefix\n"
    << "        adminUsername: adminUsername\n"
    << "        customData: base64(cloudInit)\n"
    << "        linuxConfiguration: {\n"
    << "          disablePasswordAuthentication: true\n"
    << "          ssh: {\n            publicKeys: [\n              {\n"
    << "                path: '/home/${adminUsername}/.ssh/authorized_keys'\n"
    << "                keyData: sshPublicKey\n              }\n            ]\n          }\n"
    << "        }\n      }\n"
    << "      networkProfile: {\n        networkInterfaceConfigurations: [\n          {\n"
    << "            name: 'nic'\n            properties: {\n              primary: true\n"
    << "              enableAcceleratedNetworking: true\n"
    << "              ipConfigurations: [\n                {\n"
    << "                  name: 'ipconfig'\n                  properties: {\n"
    << "                    subnet: {\n                      id: vnet.properties.subnets[0].id\n"
    << "                    }\n                  }\n                }\n              ]\n"
    << "            }\n          }\n        ]\n      }\n"
    << "    }\n  }\n}\n\n"
    << "output vmssName string = vmss.name\n";
  if (m.lustre) {
    b << "output lustreMgsAddress string = amlfs.properties.clientInfo.mgsAddress\n"
      << "output lustreMount string = " << q(m.lustre->mount) << "\n";
  }
  return b.str();
}

}  // namespace trainready
