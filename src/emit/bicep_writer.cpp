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
    << "param imageVersion string = " << q(m.image.version) << "\n\n"
    << comment("", "customData", m);
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
    << "          addressPrefix: " << q(m.subnet_prefix) << "\n        }\n      }\n    ]\n"
    << "  }\n}\n\n";

  b << "resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2024-03-01' = {\n"
    << "  name: '${namePrefix}-vmss'\n"
    << "  location: location\n"
    << comment("  ", "vmSize", m) << comment("  ", "capacity", m) << "  sku: {\n"
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
    << "    virtualMachineProfile: {\n"
    << "      storageProfile: {\n"
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
  return b.str();
}

}  // namespace trainready
