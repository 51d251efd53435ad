// plan --emit with Azure Managed Lustre: the file system is sized to what its SKU provides (or
// refused), its subnet to the AMLFS docs' table, and every emitted ARM template that carries it
// is linted clean by the real `trainready lint`; Bicep and Terraform carry the same settings; a
// subnet moved into the RDMA range makes deploy-vnet-rdma-overlap fire; `plan --emit` of a job
// whose data needs a shared file system writes it.
#include <gtest/gtest.h>

#include "emit/emit_support.h"

namespace trainready::test {
namespace {

const AmlfsTier& tier_named(const std::string& name) {
  for (const AmlfsTier& t : Catalog::builtin().storage().amlfs_tiers) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no tier " + name + " in the catalog");
}

const nlohmann::json& resource_of(const nlohmann::json& t, const std::string& type) {
  for (const auto& r : t["resources"]) {
    if (r["type"] == type) return r;
  }
  throw std::runtime_error("no " + type + " in the template");
}

int count_of(const nlohmann::json& t, const std::string& type) {
  int n = 0;
  for (const auto& r : t["resources"]) n += r["type"] == type ? 1 : 0;
  return n;
}

}  // namespace

// create-file-system-resource-manager: minimum, maximum and increment per SKU.
TEST(EmitLustre, CapacityIsRoundedToTheSkusGranularityOrRefused) {
  const AmlfsTier& p250 = tier_named("AMLFS-Durable-Premium-250");  // 8..128 TiB, steps of 8
  EXPECT_EQ(plan_managed_lustre(p250, 0.5).capacity_tib, 8);
  EXPECT_EQ(plan_managed_lustre(p250, 8).capacity_tib, 8);
  EXPECT_EQ(plan_managed_lustre(p250, 8.01).capacity_tib, 16);
  EXPECT_EQ(plan_managed_lustre(p250, 128).capacity_tib, 128);
  EXPECT_EQ(plan_managed_lustre(p250, 16).throughput_mbytes_per_s, 4000);
  const AmlfsTier& p40 = tier_named("AMLFS-Durable-Premium-40");  // 48..768 TiB, steps of 48
  EXPECT_EQ(plan_managed_lustre(p40, 1).capacity_tib, 48);
  EXPECT_EQ(plan_managed_lustre(p40, 49).capacity_tib, 96);
  EXPECT_EQ(plan_managed_lustre(p40, 768).capacity_tib, 768);
  const AmlfsTier& p500 = tier_named("AMLFS-Durable-Premium-500");  // 4..128 TiB, steps of 4
  EXPECT_EQ(plan_managed_lustre(p500, 5).capacity_tib, 8);
  try {
    plan_managed_lustre(p500, 129);
    FAIL() << "129 TiB of Premium-500 was not refused";
  } catch (const EmitRefused& e) {
    EXPECT_NE(std::string(e.what()).find("4 to 128 TiB in steps of 4 TiB"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(plan_managed_lustre(p40, 769), EmitRefused);
  EXPECT_THROW(plan_managed_lustre(p250, 0), EmitRefused);
  EXPECT_THROW(plan_managed_lustre(AmlfsTier{"broken", 250, 8, 128, 0}, 8), EmitRefused);
}

// amlfs-prerequisites' table, never smaller than the /24 the API's filesystemSubnet asks for.
TEST(EmitLustre, SubnetIsSizedPerTheDocsTable) {
  std::string why;
  EXPECT_EQ(amlfs_subnet_prefix_length(8, &why), 24);
  EXPECT_NE(why.find("/27 or larger up to 16 TiB"), std::string::npos) << why;
  EXPECT_EQ(amlfs_subnet_prefix_length(196, nullptr), 24);
  EXPECT_EQ(amlfs_subnet_prefix_length(200, nullptr), 23);
  EXPECT_EQ(amlfs_subnet_prefix_length(400, nullptr), 23);
  EXPECT_EQ(amlfs_subnet_prefix_length(768, &why), 22);
  EXPECT_NE(why.find("table ends"), std::string::npos) << why;
  EXPECT_EQ(plan_managed_lustre(tier_named("AMLFS-Durable-Premium-40"), 432).subnet_prefix,
            "10.0.16.0/22");
}

TEST(EmitLustre, ModelCarriesTheFileSystemAndItsReasons) {
  const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  DeploymentModel m = build_deployment_for(
      *h100, 16, plan_managed_lustre(tier_named("AMLFS-Durable-Premium-125"), 40));
  ASSERT_TRUE(m.lustre);
  EXPECT_EQ(m.lustre->capacity_tib, 48);
  EXPECT_EQ(m.lustre->subnet_prefix, "10.0.16.0/24");
  for (const char* setting : {"amlfsSku", "storageCapacityTiB", "filesystemSubnet", "zones",
                              "maintenanceWindow", "hsm", "roleAssignments", "userData"}) {
    EXPECT_FALSE(m.why_of(setting).empty()) << setting;
  }
  EXPECT_NE(m.why_of("roleAssignments").find("HPC Cache Resource Provider"), std::string::npos);
  EXPECT_NE(m.why_of("storageCapacityTiB").find("steps of 16 TiB"), std::string::npos);
  // The client mount: the docs' command, at every boot, unmounted before shutdown.
  EXPECT_NE(m.cloud_init.find("mount -t lustre -o noatime,flock \"$MGS@tcp:/lustrefs\""),
            std::string::npos);
  EXPECT_NE(m.cloud_init.find("ExecStop=/bin/umount /mnt/lustre"), std::string::npos);
  EXPECT_NE(m.cloud_init.find("trainready-lustre-mount.service]"), std::string::npos);
  EXPECT_EQ(m.cloud_init.find("NCCL_IB_DISABLE"), std::string::npos);
  // The NVMe scratch stays: the file system adds to it.
  EXPECT_NE(m.cloud_init.find("mdadm --create"), std::string::npos);
}

// Issue 18's acceptance, with the file system: every InfiniBand size at 1, 2, 100, 101 and 300
// VMs, each with a tier of the catalog (in turn), linted by the real binary with no finding.
TEST(EmitLustre, EveryInfinibandSizeAndCountWithAFileSystemLintsClean) {
  const std::string dir = temp_dir("emit-lustre-lint");
  const auto& tiers = Catalog::builtin().storage().amlfs_tiers;
  ASSERT_FALSE(tiers.empty());
  std::size_t turn = 0;
  for (const SkuEntry* s : ib_sizes()) {
    for (int vms : kVmCounts) {
      const AmlfsTier& tier = tiers[turn++ % tiers.size()];
      DeploymentModel m = build_deployment_for(*s, vms, plan_managed_lustre(tier, tier.min_tib));
      const std::string text = write_arm_template(m);
      const auto t = nlohmann::json::parse(text);
      ASSERT_EQ(count_of(t, "Microsoft.StorageCache/amlFilesystems"), 1);
      const std::string path =
          write(dir, s->name + "-" + std::to_string(vms) + "-amlfs.json", text);
      LintRun r = lint_file(path);
      const std::string where = s->name + " x " + std::to_string(vms) + " + " + tier.name;
      EXPECT_EQ(r.code, 0) << where << "\n" << r.raw;
      EXPECT_TRUE(r.rules.empty()) << where << ": " << join(r.rules, ", ");
      EXPECT_EQ(r.suppressed, vms > 100 ? 1 : 0) << where << "\n" << r.raw;
    }
  }
}

TEST(EmitLustre, ArmCarriesTheFileSystemStorageAndRoles) {
  const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  DeploymentModel m = build_deployment_for(
      *h100, 8, plan_managed_lustre(tier_named("AMLFS-Durable-Premium-250"), 20));
  const auto t = nlohmann::json::parse(write_arm_template(m));
  const auto& fs = resource_of(t, "Microsoft.StorageCache/amlFilesystems");
  EXPECT_EQ(fs["apiVersion"], "2025-07-01");
  EXPECT_EQ(fs["sku"]["name"], "AMLFS-Durable-Premium-250");
  EXPECT_EQ(fs["properties"]["storageCapacityTiB"], 24);
  EXPECT_EQ(fs["zones"][0], "[parameters('zone')]");
  EXPECT_EQ(fs["properties"]["maintenanceWindow"]["timeOfDayUTC"],
            "[parameters('maintenanceTimeUtc')]");
  const auto& hsm = fs["properties"]["hsm"]["settings"];
  EXPECT_NE(hsm["container"].get<std::string>().find("variables('dataContainer')"),
            std::string::npos);
  EXPECT_NE(hsm["loggingContainer"].get<std::string>().find("variables('logContainer')"),
            std::string::npos);
  EXPECT_EQ(hsm["importPrefix"], "/");
  EXPECT_NE(fs["comments"].get<std::string>().find("Access roles for blob integration"),
            std::string::npos);
  // The two roles the docs name, for the principal the user passes, before the file system.
  EXPECT_EQ(count_of(t, "Microsoft.Authorization/roleAssignments"), 2);
  std::string roles;
  for (const auto& r : t["resources"]) {
    if (r["type"] == "Microsoft.Authorization/roleAssignments")
      roles += r["properties"]["roleDefinitionId"].get<std::string>();
  }
  EXPECT_NE(roles.find(kStorageAccountContributorRoleId), std::string::npos);
  EXPECT_NE(roles.find(kStorageBlobDataContributorRoleId), std::string::npos);
  EXPECT_EQ(fs["dependsOn"].size(), 5u);
  EXPECT_EQ(count_of(t, "Microsoft.Storage/storageAccounts/blobServices/containers"), 2);
  EXPECT_EQ(
      resource_of(t, "Microsoft.Storage/storageAccounts")["properties"]["allowSharedKeyAccess"],
      true);
  EXPECT_FALSE(t["parameters"]["hpcCacheResourceProviderObjectId"].contains("defaultValue"));
  // Its own subnet in the VNet; the scale set in the same zone, handed the MGS address.
  const auto& vnet = resource_of(t, "Microsoft.Network/virtualNetworks");
  EXPECT_EQ(vnet["properties"]["subnets"][1]["properties"]["addressPrefix"], "10.0.16.0/24");
  const auto& v = vmss_of(t);
  EXPECT_EQ(v["zones"][0], "[parameters('zone')]");
  EXPECT_NE(v["properties"]["virtualMachineProfile"]["userData"].get<std::string>().find(
                "clientInfo.mgsAddress"),
            std::string::npos);
  EXPECT_EQ(t["variables"]["cloudInit"], m.cloud_init);
  // Lint reads the file system and its subnet.
  DeploymentFacts d = read_deployment_text(t.dump(), "t.json");
  int lustre = 0;
  for (const auto& r : d.resources) {
    if (r.kind != ResourceKind::kManagedLustre) continue;
    ++lustre;
    EXPECT_EQ(r.lustre->lustre_sku.value, "AMLFS-Durable-Premium-250");
    EXPECT_EQ(r.lustre->lustre_capacity_tib.value, 24);
  }
  EXPECT_EQ(lustre, 1);
}

// A file system subnet moved into the RDMA range: the existing vnet rule reports it; a capacity
// off the SKU's steps: the capacity rule does.
TEST(EmitLustre, ASubnetInTheRdmaRangeMakesTheVnetRuleFire) {
  const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  const std::string text = write_arm_template(build_deployment_for(
      *h100, 4, plan_managed_lustre(tier_named("AMLFS-Durable-Premium-500"), 4)));
  EXPECT_TRUE(fired(text, "deploy-vnet-rdma-overlap").empty());
  nlohmann::json t = nlohmann::json::parse(text);
  for (auto& r : t["resources"]) {
    if (r["type"] == "Microsoft.Network/virtualNetworks")
      r["properties"]["subnets"][1]["properties"]["addressPrefix"] = "172.16.8.0/24";
  }
  auto ids = fired(t.dump(2), "deploy-vnet-rdma-overlap");
  ASSERT_EQ(ids.size(), 1u);
  // A capacity between the SKU's steps: deploy-amlfs-capacity-invalid.
  EXPECT_TRUE(fired(text, "deploy-amlfs-capacity-invalid").empty());
  t = nlohmann::json::parse(text);
  for (auto& r : t["resources"]) {
    if (r["type"] == "Microsoft.StorageCache/amlFilesystems")
      r["properties"]["storageCapacityTiB"] = 6;
  }
  EXPECT_EQ(fired(t.dump(2), "deploy-amlfs-capacity-invalid").size(), 1u);
  // The cloud-init is still read by lint: an IB switch-off added to it is caught.
  t = nlohmann::json::parse(text);
  t["variables"]["cloudInit"] = t["variables"]["cloudInit"].get<std::string>() +
                                "  - [sh, -c, 'echo NCCL_IB_DISABLE=1 >> /etc/nccl.conf']\n";
  EXPECT_FALSE(fired(t.dump(2), "deploy-nccl-ib-disabled").empty());
}

TEST(EmitLustre, BicepAndTerraformCarryTheSameSettings) {
  for (const AmlfsTier& tier : Catalog::builtin().storage().amlfs_tiers) {
    for (const SkuEntry* s : ib_sizes()) {
      DeploymentModel m =
          build_deployment_for(*s, 101, plan_managed_lustre(tier, tier.min_tib + 1));
      const ManagedLustre& l = *m.lustre;
      const std::string where = s->name + " + " + tier.name;
      const std::string cap = std::to_string(l.capacity_tib);
      const std::string bicep = write_bicep(m);
      for (const std::string& want :
           {std::string("resource amlfs 'Microsoft.StorageCache/amlFilesystems@2025-07-01'"),
            "name: '" + l.tier.name + "'", "storageCapacityTiB: " + cap,
            "addressPrefix: '" + l.subnet_prefix + "'",
            std::string("filesystemSubnet: vnet.properties.subnets[1].id"),
            std::string("container: dataContainer.id"),
            std::string("loggingContainer: logContainer.id"), std::string("importPrefix: '/'"),
            "param zone string = '" + l.zone + "'",
            "param maintenanceDay string = '" + l.maintenance_day + "'",
            "param maintenanceTimeUtc string = '" + l.maintenance_time_utc + "'",
            std::string(kStorageAccountContributorRoleId),
            std::string(kStorageBlobDataContributorRoleId),
            std::string("principalId: hpcCacheResourceProviderObjectId"),
            std::string("allowSharedKeyAccess: true"),
            std::string("userData: base64(amlfs.properties.clientInfo.mgsAddress)"),
            std::string("zones: [\n    zone\n  ]"), "var cloudInit = '''\n" + m.cloud_init + "'''",
            std::string("// storageCapacityTiB: ")}) {
        EXPECT_NE(bicep.find(want), std::string::npos) << where << ": Bicep lacks " << want;
      }
      EXPECT_EQ(bicep_brace_depth(bicep), 0) << where;

      const std::string tf = write_terraform(m);
      for (const std::string& want :
           {std::string("resource \"azurerm_managed_lustre_file_system\" \"train\" {"),
            "sku_name               = \"" + l.tier.name + "\"",
            "storage_capacity_in_tb = " + cap,
            "address_prefixes     = [\"" + l.subnet_prefix + "\"]",
            std::string("subnet_id              = azurerm_subnet.amlfs.id"),
            std::string(
                "container_id         = azurerm_storage_container.data.resource_manager_id"),
            std::string(
                "logging_container_id = azurerm_storage_container.logs.resource_manager_id"),
            std::string("import_prefix        = \"/\""),
            "default     = \"" + l.zone + "\"",
            "default     = \"" + l.maintenance_day + "\"",
            "default     = \"" + l.maintenance_time_utc + "\"",
            std::string("time_of_day_in_utc = var.maintenance_time_utc"),
            std::string("role_definition_name = \"Storage Account Contributor\""),
            std::string("role_definition_name = \"Storage Blob Data Contributor\""),
            std::string("principal_id         = var.hpc_cache_resource_provider_object_id"),
            std::string("shared_access_key_enabled       = true"),
            std::string(
                "user_data           = base64encode(azurerm_managed_lustre_file_system.train."
                "mgs_address)"),
            std::string("zones               = [var.zone]"),
            "cloud_init = <<EOT\n" + m.cloud_init + "EOT\n",
            std::string("# storageCapacityTiB: ")}) {
        EXPECT_NE(tf.find(want), std::string::npos) << where << ": Terraform lacks " << want;
      }
      EXPECT_EQ(hcl_problems(tf), "") << where;
    }
  }
}

// Domain review 3, finding 14: older tenants know the principal as "storagecache Resource
// Provider" (amlfs-prerequisites); the lookup has that fallback, and an empty id is refused by
// every format's parameter instead of failing the deployment half-way.
TEST(EmitLustre, ServicePrincipalLookupHasTheOldNameAndRefusesAnEmptyId) {
  const SkuEntry* s = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  DeploymentModel m =
      build_deployment_for(*s, 2, plan_managed_lustre(tier_named("AMLFS-Durable-Premium-500"), 4));
  const std::string why = m.why_of("roleAssignments");
  EXPECT_NE(why.find("HPC Cache Resource Provider"), std::string::npos);
  EXPECT_NE(why.find("storagecache Resource Provider"), std::string::npos);
  EXPECT_NE(why.find("empty"), std::string::npos);
  const auto arm = nlohmann::json::parse(write_arm_template(m));
  EXPECT_EQ(arm["parameters"]["hpcCacheResourceProviderObjectId"]["minLength"], 36);
  EXPECT_NE(write_bicep(m).find("@minLength(36)\n@maxLength(36)\nparam "
                                "hpcCacheResourceProviderObjectId string"),
            std::string::npos);
  const std::string tf = write_terraform(m);
  EXPECT_NE(tf.find("condition     = length(var.hpc_cache_resource_provider_object_id) == 36"),
            std::string::npos);
  EXPECT_EQ(hcl_problems(tf), "");
}

// Domain review 3, finding 11: azurerm_storage_container.storage_account_id exists from azurerm
// 4.9.0; the provider pin must not admit 4.0-4.8, where terraform plan fails on it.
TEST(EmitLustre, TerraformPinsTheProviderThatKnowsStorageAccountId) {
  const SkuEntry* s = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  DeploymentModel m =
      build_deployment_for(*s, 2, plan_managed_lustre(tier_named("AMLFS-Durable-Premium-500"), 4));
  const std::string tf = write_terraform(m);
  ASSERT_NE(tf.find("storage_account_id    = azurerm_storage_account.hsm.id"), std::string::npos);
  EXPECT_NE(tf.find("version = \">= 4.9\""), std::string::npos);
  EXPECT_EQ(tf.find("version = \">= 4.0\""), std::string::npos);
}

// A job whose dataset outgrows the VMs' local NVMe and whose demand Blob cannot carry: the plan
// chooses Azure Managed Lustre and --emit writes it (the `make demo` job).
TEST(EmitLustre, PlanEmitWritesTheFileSystemThePlanChose) {
  const std::string job = example("jobs/vision-64gpu-amlfs.yaml");
  const std::string dir = temp_dir("plan-emit-lustre");
  auto plan = run_trainready({"plan", "--job", job, "--json"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  auto pj = nlohmann::json::parse(plan.out);
  ASSERT_NE(pj.dump().find("AMLFS-Durable-Premium"), std::string::npos);
  for (const char* fmt : {"arm", "bicep", "terraform"}) {
    auto r = run_trainready({"plan", "--job", job, "--emit", fmt, "-o", dir});
    EXPECT_EQ(r.code, 0) << fmt << "\n" << r.err;
    EXPECT_NE(r.err.find("storage: AMLFS-Durable-Premium"), std::string::npos) << r.err;
  }
  const std::string arm = dir + "/azuredeploy.json";
  auto t = nlohmann::json::parse(slurp(arm));
  EXPECT_EQ(count_of(t, "Microsoft.StorageCache/amlFilesystems"), 1);
  LintRun l = lint_file(arm);
  EXPECT_EQ(l.code, 0) << l.raw;
  EXPECT_TRUE(l.rules.empty()) << join(l.rules, ", ");
  EXPECT_NE(slurp(dir + "/main.bicep").find("Microsoft.StorageCache/amlFilesystems@2025-07-01"),
            std::string::npos);
  EXPECT_NE(slurp(dir + "/main.tf").find("azurerm_managed_lustre_file_system"), std::string::npos);
}

}  // namespace trainready::test
