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
                     const std::optional<std::string>& default_value,
                     const std::string& condition = "", const std::string& error = "") {
  std::string v = "variable \"" + name +
                  "\" {\n  type        = string\n  description = " + q(description) + "\n";
  if (default_value) v += "  default     = " + q(*default_value) + "\n";
  if (!condition.empty())
    v += "\n  validation {\n    condition     = " + condition +
         "\n    error_message = " + q(error) + "\n  }\n";
  return v + "}\n\n";
}

// The storage account, containers and role assignments the Blob import needs, the file
// system's subnet, then the file system (azurerm_managed_lustre_file_system, azurerm 4.x).
std::string lustre_terraform(const DeploymentModel& m) {
  const ManagedLustre& l = *m.lustre;
  std::ostringstream t;
  t << comment("", "filesystemSubnet", m) << "resource \"azurerm_subnet\" \"amlfs\" {\n"
    << "  name                 = \"amlfs\"\n"
    << "  resource_group_name  = azurerm_resource_group.train.name\n"
    << "  virtual_network_name = azurerm_virtual_network.train.name\n"
    << "  address_prefixes     = [" << q(l.subnet_prefix) << "]\n}\n\n"
    << "# A storage account name: 3-24 lowercase letters and digits, unique in Azure.\n"
    << "locals {\n  storage_prefix = substr(lower(replace(var.name_prefix, \"-\", \"\")), 0, "
       "11)\n}\n\n"
    << comment("", "hsm", m) << "resource \"azurerm_storage_account\" \"hsm\" {\n"
    << "  name                            = "
       "\"${local.storage_prefix}${substr(sha1(azurerm_resource_group.train.id), 0, 13)}\"\n"
    << "  resource_group_name             = azurerm_resource_group.train.name\n"
    << "  location                        = azurerm_resource_group.train.location\n"
    << "  account_kind                    = \"StorageV2\"\n"
    << "  account_tier                    = \"Standard\"\n"
    << "  account_replication_type        = \"LRS\"\n"
    << "  shared_access_key_enabled       = true\n"
    << "  min_tls_version                 = \"TLS1_2\"\n"
    << "  allow_nested_items_to_be_public = false\n}\n\n";
  for (const char* c : {"data", "logs"}) {
    t << "resource \"azurerm_storage_container\" \"" << c << "\" {\n"
      << "  name                  = \"" << c << "\"\n"
      << "  storage_account_id    = azurerm_storage_account.hsm.id\n"
      << "  container_access_type = \"private\"\n}\n\n";
  }
  t << comment("", "roleAssignments", m);
  for (const auto& [name, role] : {std::pair{"hsm_account", "Storage Account Contributor"},
                                   std::pair{"hsm_blob_data", "Storage Blob Data Contributor"}}) {
    t << "resource \"azurerm_role_assignment\" \"" << name << "\" {\n"
      << "  scope                = azurerm_storage_account.hsm.id\n"
      << "  role_definition_name = \"" << role << "\"\n"
      << "  principal_id         = var.hpc_cache_resource_provider_object_id\n"
      << "  principal_type       = \"ServicePrincipal\"\n}\n\n";
  }
  t << "resource \"azurerm_managed_lustre_file_system\" \"train\" {\n"
    << "  name                   = \"${var.name_prefix}-amlfs\"\n"
    << "  resource_group_name    = azurerm_resource_group.train.name\n"
    << "  location               = azurerm_resource_group.train.location\n"
    << comment("  ", "amlfsSku", m) << "  sku_name               = " << q(l.tier.name) << "\n"
    << comment("  ", "storageCapacityTiB", m) << "  storage_capacity_in_tb = " << l.capacity_tib
    << "\n"
    << "  subnet_id              = azurerm_subnet.amlfs.id\n"
    << comment("  ", "zones", m) << "  zones                  = [var.zone]\n\n"
    << comment("  ", "maintenanceWindow", m) << "  maintenance_window {\n"
    << "    day_of_week        = var.maintenance_day\n"
    << "    time_of_day_in_utc = var.maintenance_time_utc\n  }\n\n"
    << comment("  ", "hsm", m) << "  hsm_setting {\n"
    << "    container_id         = azurerm_storage_container.data.resource_manager_id\n"
    << "    logging_container_id = azurerm_storage_container.logs.resource_manager_id\n"
    << "    import_prefix        = " << q(l.import_prefix) << "\n  }\n\n"
    << "  depends_on = [\n    azurerm_role_assignment.hsm_account,\n"
    << "    azurerm_role_assignment.hsm_blob_data,\n  ]\n}\n\n";
  return t.str();
}

}  // namespace

std::string write_terraform(const DeploymentModel& m) {
  std::ostringstream t;
  t << "# Written by `trainready plan --emit terraform`: " << m.plan_summary << ".\n"
    << "# Lint the plan: terraform plan -out tfplan && terraform show -json tfplan > plan.json "
       "&& trainready lint plan.json\n";
  for (const std::string& n : m.notes) t << "# NOTE " << n << "\n";
  // >= 4.9: azurerm_storage_container takes storage_account_id only from 4.9.0 (the storage
  // resources below use it); 4.0-4.8 fail terraform plan on an unknown argument.
  t << "\nterraform {\n  required_providers {\n    azurerm = {\n"
    << "      source  = \"hashicorp/azurerm\"\n      version = \">= 4.9\"\n    }\n  }\n}\n\n"
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
  if (m.lustre) {
    const ManagedLustre& l = *m.lustre;
    t << comment("", "zones", m)
      << variable("zone", "Availability zone of the file system and the VMs", l.zone)
      << comment("", "maintenanceWindow", m)
      << variable("maintenance_day", "Day of the weekly 30-minute maintenance window",
                  l.maintenance_day)
      << variable("maintenance_time_utc",
                  "Start of the weekly 30-minute maintenance window (HH:MM, UTC)",
                  l.maintenance_time_utc)
      << comment("", "roleAssignments", m)
      << variable("hpc_cache_resource_provider_object_id",
                  "Object id of the HPC Cache Resource Provider (formerly storagecache Resource "
                  "Provider) service principal in this tenant",
                  std::nullopt, "length(var.hpc_cache_resource_provider_object_id) == 36",
                  "An object id (a GUID, 36 characters): az ad sp list --display-name 'HPC "
                  "Cache Resource Provider' (or 'storagecache Resource Provider') printed "
                  "nothing?");
  }

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
  if (m.lustre) t << lustre_terraform(m);

  t << "resource \"azurerm_linux_virtual_machine_scale_set\" \"train\" {\n";
  if (m.support_request) {
    t << "  # trainready:skip=deploy-placement-limit:" << m.vms
      << " VMs in one placement group, planned so; open the support request that raises the "
         "single-placement-group limit to 300 before deploying\n";
  }
  t << "  name                = \"${var.name_prefix}-vmss\"\n"
    << "  location            = azurerm_resource_group.train.location\n"
    << "  resource_group_name = azurerm_resource_group.train.name\n"
    << comment("  ", "vmSize", m) << "  sku                 = " << q(m.vm_size) << "\n";
  if (m.lustre) {
    t << comment("  ", "zones", m) << "  zones               = [var.zone]\n"
      << comment("  ", "userData", m)
      << "  user_data           = "
         "base64encode(azurerm_managed_lustre_file_system.train.mgs_address)\n";
  }
  t << "" << comment("  ", "capacity", m) << "  instances           = " << m.vms << "\n"
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
  if (m.lustre) {
    t << "\noutput \"lustre_mgs_address\" {\n"
      << "  value = azurerm_managed_lustre_file_system.train.mgs_address\n}\n\n"
      << "output \"lustre_mount\" {\n  value = " << q(m.lustre->mount) << "\n}\n";
  }
  return t.str();
}

}  // namespace trainready
