// The deployment model as Terraform HCL for the azurerm provider (4.x):
// azurerm_linux_virtual_machine_scale_set is a Uniform scale set (Flexible is
// azurerm_orchestrated_virtual_machine_scale_set), with a `#` comment above each setting.
#include <sstream>

#include "emit/deployment_model.h"

namespace trainready {
namespace {

// An HCL quoted string.
std::string q(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if ((c == '$' || c == '%') && i + 1 < s.size() && s[i + 1] == '{') {
      out += c;
      out += c;  // $${ and %%{ are the literal ${ and %{
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A heredoc's body: template sequences escaped, the text otherwise verbatim.
std::string heredoc_body(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if ((s[i] == '$' || s[i] == '%') && i + 1 < s.size() && s[i + 1] == '{') out += s[i];
  }
  return out;
}

std::string comment(const std::string& pad, const std::string& setting, const DeploymentModel& m) {
  return pad + "# " + setting + ": " + m.why_of(setting) + "\n";
}

std::string variable(const std::string& name, const std::string& description,
                     const std::optional<std::string>& default_value) {
  std::string v = "variable \"" + name +
                  "\" {\n  type        = string\n  description = " + q(description) + "\n";
  if (default_value) v += "  default     = " + q(*default_value) + "\n";
  return v + "}\n\n";
}

}  // namespace

std::string write_terraform(const DeploymentModel& m) {
  std::ostringstream t;
  t << "# Written by `trainready plan --emit terraform`: " << m.plan_summary << ".\n"
    << "# Lint the plan: terraform plan -out tfplan && terraform show -json tfplan > plan.json "
       "&& trainready lint plan.json\n";
  for (const std::string& n : m.notes) t << "# NOTE " << n << "\n";
  t << "\nterraform {\n  required_providers {\n    azurerm = {\n"
    << "      source  = \"hashicorp/azurerm\"\n      version = \">= 4.0\"\n    }\n  }\n}\n\n"
    << "provider \"azurerm\" {\n  features {}\n}\n\n";
  t << variable("location", "Azure region of every resource (the plan priced this one)",
                m.location.empty() ? std::nullopt : std::optional<std::string>(m.location))
    << variable("resource_group_name", "Resource group to create", std::string("train-rg"))
    << variable("name_prefix", "Prefix of the resource names and the VMs' host names",
                std::string("train"))
    << variable("admin_username", "Administrator user on every VM", std::string("azureuser"))
    << variable("ssh_public_key",
                "SSH public key for the administrator; password logins are disabled", std::nullopt)
    << comment("", "image", m)
    << variable("image_publisher", "Publisher of the HPC image", m.image.publisher)
    << variable("image_offer", "Offer of the HPC image", m.image.offer)
    << variable("image_sku", "SKU of the HPC image", m.image.sku)
    << variable("image_version", "Version of the HPC image", m.image.version);

  t << comment("", "customData", m) << "locals {\n  cloud_init = <<EOT\n"
    << heredoc_body(m.cloud_init) << "EOT\n}\n\n";

  t << "resource \"azurerm_resource_group\" \"train\" {\n"
    << "  name     = var.resource_group_name\n  location = var.location\n}\n\n";

  t << "resource \"azurerm_virtual_network\" \"train\" {\n"
    << "  name                = \"${var.name_prefix}-vnet\"\n"
    << "  location            = azurerm_resource_group.train.location\n"
    << "  resource_group_name = azurerm_resource_group.train.name\n"
    << comment("  ", "addressSpace", m) << "  address_space       = [" << q(m.vnet_prefix)
    << "]\n}\n\n";

  t << "resource \"azurerm_subnet\" \"compute\" {\n"
    << "  name                 = \"compute\"\n"
    << "  resource_group_name  = azurerm_resource_group.train.name\n"
    << "  virtual_network_name = azurerm_virtual_network.train.name\n"
    << "  address_prefixes     = [" << q(m.subnet_prefix) << "]\n}\n\n";

  t << "resource \"azurerm_linux_virtual_machine_scale_set\" \"train\" {\n";
  if (m.support_request) {
    t << "  # trainready:skip=deploy-placement-limit:" << m.vms
      << " VMs in one placement group, planned so; open the support request that raises the "
         "single-placement-group limit to 300 before deploying\n";
  }
  t << "  name                = \"${var.name_prefix}-vmss\"\n"
    << "  location            = azurerm_resource_group.train.location\n"
    << "  resource_group_name = azurerm_resource_group.train.name\n"
    << comment("  ", "vmSize", m) << "  sku                 = " << q(m.vm_size) << "\n"
    << comment("  ", "capacity", m) << "  instances           = " << m.vms << "\n"
    << comment("  ", "orchestrationMode", m) << comment("  ", "singlePlacementGroup", m)
    << "  single_placement_group = " << (m.single_placement_group ? "true" : "false") << "\n"
    << comment("  ", "platformFaultDomainCount", m)
    << "  platform_fault_domain_count = " << m.platform_fault_domain_count << "\n"
    << comment("  ", "overprovision", m)
    << "  overprovision       = " << (m.overprovision ? "true" : "false") << "\n"
    << "  upgrade_mode        = \"Manual\"\n"
    << "  computer_name_prefix = var.name_prefix\n"
    << "  admin_username      = var.admin_username\n"
    << "  disable_password_authentication = true\n"
    << "  custom_data         = base64encode(local.cloud_init)\n\n"
    << "  admin_ssh_key {\n    username   = var.admin_username\n"
    << "    public_key = var.ssh_public_key\n  }\n\n"
    << "  source_image_reference {\n    publisher = var.image_publisher\n"
    << "    offer     = var.image_offer\n    sku       = var.image_sku\n"
    << "    version   = var.image_version\n  }\n\n"
    << "  os_disk {\n    caching              = \"ReadWrite\"\n"
    << "    storage_account_type = \"Premium_LRS\"\n  }\n\n"
    << "  network_interface {\n    name    = \"nic\"\n    primary = true\n"
    << "    accelerated_networking_enabled = true\n\n"
    << "    ip_configuration {\n      name      = \"ipconfig\"\n      primary   = true\n"
    << "      subnet_id = azurerm_subnet.compute.id\n    }\n  }\n}\n\n"
    << "output \"vmss_name\" {\n  value = azurerm_linux_virtual_machine_scale_set.train.name\n}\n";
  return t.str();
}

}  // namespace trainready
