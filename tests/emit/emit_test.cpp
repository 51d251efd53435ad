// plan --emit: the deployment model and its three writers. Every emitted ARM template is linted
// by the real `trainready lint` (zero findings); Bicep and Terraform carry the same settings;
// a changed setting makes the matching lint rule fire; the ARM JSON validates against the
// deployment-template schema's top level; refusals and file handling end to end.
#include <gtest/gtest.h>

#include "emit/emit_support.h"

namespace trainready::test {

TEST(EmitModel, PlacementIsTheOneGroupTheRulesAccept) {
  for (const SkuEntry* s : ib_sizes()) {
    DeploymentModel m = build_deployment_for(*s, 64);
    EXPECT_EQ(judge_scale_set_ib_group(m.orchestration, m.single_placement_group,
                                       m.platform_fault_domain_count)
                  .group,
              IbGroup::kOne)
        << s->name;
    EXPECT_EQ(m.vnet_prefix, "10.0.0.0/16");
    EXPECT_EQ(m.image.publisher, "microsoft-dsvm");
    EXPECT_NE(m.image.offer.find("hpc"), std::string::npos);
    EXPECT_EQ(m.nvme_disks, s->nvme_disks);
    if (!s->nccl_topo_file.empty()) {
      EXPECT_EQ(m.nccl_env.at("NCCL_TOPO_FILE"), s->nccl_topo_file) << s->name;
    }
    for (const auto& [k, v] : s->image_nccl_conf) EXPECT_EQ(m.nccl_env.at(k), v);
    EXPECT_EQ(m.cloud_init.find("NCCL_IB_DISABLE"), std::string::npos);
    EXPECT_EQ(m.cloud_init.find("NCCL_NET="), std::string::npos);
    if (s->nvme_disks > 0) {
      EXPECT_NE(m.cloud_init.find("mdadm --create"), std::string::npos);
      EXPECT_NE(m.cloud_init.find("mount -o noatime"), std::string::npos);
    }
    for (const char* setting :
         {"vmSize", "capacity", "orchestrationMode", "singlePlacementGroup",
          "platformFaultDomainCount", "image", "addressSpace", "customData"}) {
      EXPECT_FALSE(m.why_of(setting).empty()) << setting;
    }
    EXPECT_NE(m.why_of("singlePlacementGroup").find("deploy-ib-spg-off"), std::string::npos);
    EXPECT_NE(m.why_of("image").find("deploy-ib-image-no-driver"), std::string::npos);
    EXPECT_NE(m.why_of("addressSpace").find("deploy-vnet-rdma-overlap"), std::string::npos);
  }
}

// Domain review 3, finding 15: Azure's HPC image writes three lines to /etc/nccl.conf on these
// sizes (azhpc-images ndv4.sh / ndv5.sh); the emitted cloud-init carried two.
TEST(EmitModel, NcclConfHasTheImagesThreeLines) {
  for (const char* name : {"Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4",
                           "Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5"}) {
    DeploymentModel m = build_deployment_for(*Catalog::builtin().find(name), 2);
    EXPECT_EQ(m.nccl_env.at("NCCL_IGNORE_CPU_AFFINITY"), "1") << name;
    EXPECT_EQ(m.nccl_env.at("NCCL_IB_PCI_RELAXED_ORDERING"), "1") << name;
    EXPECT_NE(m.cloud_init.find("NCCL_IGNORE_CPU_AFFINITY=1"), std::string::npos) << name;
  }
}

TEST(EmitModel, RefusesWhatOneScaleSetCannotHold) {
  const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  ASSERT_NE(h100, nullptr);
  EXPECT_NO_THROW(build_deployment_for(*h100, 300));
  try {
    build_deployment_for(*h100, 301);
    FAIL() << "301 VMs were not refused";
  } catch (const EmitRefused& e) {
    EXPECT_NE(std::string(e.what()).find("more than one InfiniBand placement group"),
              std::string::npos)
        << e.what();
  }
  const SkuEntry* nc = Catalog::builtin().find("Standard_NC96ads_A100_v4");
  ASSERT_NE(nc, nullptr);
  EXPECT_NO_THROW(build_deployment_for(*nc, 1));
  EXPECT_THROW(build_deployment_for(*nc, 2), EmitRefused);
  DeploymentModel small = build_deployment_for(*h100, 100);
  DeploymentModel big = build_deployment_for(*h100, 101);
  EXPECT_FALSE(small.support_request);
  EXPECT_TRUE(big.support_request);
  EXPECT_NE(big.notes.front().find("support request"), std::string::npos);
}

// The acceptance test of issue 18: every InfiniBand size, 1 / 2 / 100 / 101 / 300 VMs, linted
// by the real binary with zero findings. Above 100 VMs the template carries the inline
// suppression of deploy-placement-limit (the support request), which lint counts as suppressed.
TEST(EmitArm, EveryInfinibandSizeAndCountLintsClean) {
  const std::string dir = temp_dir("emit-arm-lint");
  for (const SkuEntry* s : ib_sizes()) {
    for (int vms : kVmCounts) {
      DeploymentModel m = build_deployment_for(*s, vms);
      const std::string path =
          write(dir, s->name + "-" + std::to_string(vms) + ".json", write_arm_template(m));
      LintRun r = lint_file(path);
      EXPECT_EQ(r.code, 0) << s->name << " x " << vms << "\n" << r.raw;
      EXPECT_TRUE(r.rules.empty()) << s->name << " x " << vms << ": " << join(r.rules, ", ");
      EXPECT_EQ(r.suppressed, vms > 100 ? 1 : 0) << s->name << " x " << vms << "\n" << r.raw;
    }
  }
}

TEST(EmitArm, OneVmOfASizeWithoutInfinibandLintsClean) {
  const std::string dir = temp_dir("emit-arm-lint-noib");
  for (const SkuEntry& s : Catalog::builtin().skus()) {
    if (s.has_infiniband()) continue;
    const std::string path =
        write(dir, s.name + ".json", write_arm_template(build_deployment_for(s, 1)));
    LintRun r = lint_file(path);
    EXPECT_EQ(r.code, 0) << s.name << "\n" << r.raw;
    EXPECT_TRUE(r.rules.empty()) << s.name << ": " << join(r.rules, ", ");
  }
}

TEST(EmitArm, CarriesTheModelsSettings) {
  const SkuEntry* s = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  DeploymentModel m = build_deployment_for(*s, 8);
  m.location = "eastus";
  auto t = nlohmann::json::parse(write_arm_template(m));
  const auto& v = vmss_of(t);
  EXPECT_EQ(v["sku"]["name"], "Standard_ND96isr_H100_v5");
  EXPECT_EQ(v["sku"]["capacity"], 8);
  EXPECT_EQ(v["properties"]["orchestrationMode"], "Uniform");
  EXPECT_EQ(v["properties"]["singlePlacementGroup"], true);
  EXPECT_EQ(v["properties"]["platformFaultDomainCount"], 1);
  EXPECT_EQ(v["properties"]["overprovision"], false);
  EXPECT_EQ(t["parameters"]["location"]["defaultValue"], "eastus");
  EXPECT_EQ(t["parameters"]["imageOffer"]["defaultValue"], "ubuntu-hpc");
  EXPECT_EQ(t["variables"]["cloudInit"], m.cloud_init);
  EXPECT_FALSE(t["parameters"]["sshPublicKey"].contains("defaultValue"));
  EXPECT_NE(v["comments"].get<std::string>().find("deploy-ib-spg-off"), std::string::npos);
  // The boot script lint reads is the cloud-init text: NCCL settings, no IB switch-off.
  DeploymentFacts d = read_deployment_text(t.dump(), "t.json");
  ASSERT_EQ(d.resources.size(), 2u);
}

// One setting changed in an emitted template, and the rule that guards it fires.
TEST(EmitArm, ChangingOneSettingMakesItsRuleFire) {
  const SkuEntry* s = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  const std::string text = write_arm_template(build_deployment_for(*s, 16));
  const auto base = nlohmann::json::parse(text);
  for (const char* rule :
       {"deploy-ib-spg-off", "deploy-gpu-size-without-ib", "deploy-ib-image-no-driver",
        "deploy-vnet-rdma-overlap", "deploy-nccl-ib-disabled", "deploy-ib-vms-ungrouped"}) {
    EXPECT_TRUE(fired(text, rule).empty()) << rule << " fires on the emitted template";
  }
  auto mutate = [&](auto change) {
    nlohmann::json t = base;
    for (auto& r : t["resources"]) change(t, r);
    return t.dump(2);
  };
  auto spg_off = mutate([](nlohmann::json&, nlohmann::json& r) {
    if (r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
      r["properties"]["singlePlacementGroup"] = false;
  });
  EXPECT_EQ(fired(spg_off, "deploy-ib-spg-off").size(), 1u);
  auto no_ib_size = mutate([](nlohmann::json&, nlohmann::json& r) {
    if (r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
      r["sku"]["name"] = "Standard_NC96ads_A100_v4";
  });
  EXPECT_EQ(fired(no_ib_size, "deploy-gpu-size-without-ib").size(), 1u);
  auto plain_image = mutate([](nlohmann::json& t, nlohmann::json&) {
    t["parameters"]["imagePublisher"]["defaultValue"] = "Canonical";
    t["parameters"]["imageOffer"]["defaultValue"] = "0001-com-ubuntu-server-jammy";
    t["parameters"]["imageSku"]["defaultValue"] = "22_04-lts-gen2";
  });
  EXPECT_EQ(fired(plain_image, "deploy-ib-image-no-driver").size(), 1u);
  auto overlap = mutate([](nlohmann::json&, nlohmann::json& r) {
    if (r["type"] == "Microsoft.Network/virtualNetworks")
      r["properties"]["addressSpace"]["addressPrefixes"][0] = "172.16.0.0/12";
  });
  EXPECT_EQ(fired(overlap, "deploy-vnet-rdma-overlap").size(), 1u);
  auto ib_off = mutate([](nlohmann::json& t, nlohmann::json&) {
    t["variables"]["cloudInit"] = t["variables"]["cloudInit"].get<std::string>() +
                                  "  - [sh, -c, 'echo NCCL_IB_DISABLE=1 >> /etc/nccl.conf']\n";
  });
  EXPECT_FALSE(fired(ib_off, "deploy-nccl-ib-disabled").empty());
}

TEST(EmitArm, ValidatesAgainstTheDeploymentTemplateSchemaTopLevel) {
  const std::string py = python_with_jsonschema();
  // scripts/setup-deps.sh installs python3-jsonschema: without it this fails, never skips.
  ASSERT_FALSE(py.empty()) << "python3-jsonschema is not installed (run scripts/setup-deps.sh)";
  const std::string dir = temp_dir("emit-arm-schema");
  std::vector<std::string> files;
  for (const SkuEntry* s : ib_sizes()) {
    for (int vms : {1, 101}) {
      files.push_back(write(dir, s->name + std::to_string(vms) + ".json",
                            write_arm_template(build_deployment_for(*s, vms))));
    }
  }
  // With an Azure Managed Lustre file system of every catalog tier: the storage account,
  // containers, role assignments (an extension resource with "scope") and the file system
  // are checked against the same top level and resource base.
  for (const AmlfsTier& tier : Catalog::builtin().storage().amlfs_tiers) {
    const SkuEntry* h100 = Catalog::builtin().find("Standard_ND96isr_H100_v5");
    files.push_back(write(dir, tier.name + ".json",
                          write_arm_template(build_deployment_for(
                              *h100, 8, plan_managed_lustre(tier, tier.min_tib)))));
  }
  // Every $ref in the kept schema is local (#/definitions/...): nothing is fetched.
  const std::string script = write(dir, "validate.py", R"(import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
def refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref": yield v
            else: yield from refs(v)
    elif isinstance(node, list):
        for v in node: yield from refs(v)
assert all(r.startswith("#/") for r in refs(schema)), "a remote $ref"
v = jsonschema.Draft4Validator(schema)
bad = 0
for path in sys.argv[2:]:
    for e in v.iter_errors(json.load(open(path))):
        print(path, list(e.path), e.message); bad += 1
sys.exit(1 if bad else 0)
)");
  std::string cmd = py + " " + script + " " + std::string(TR_TEST_DATA) +
                    "/arm-schema/deploymentTemplate-2019-04-01-toplevel.json";
  for (const auto& f : files) cmd += " " + f;
  cmd += " > " + dir + "/out.txt 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << slurp(dir + "/out.txt");
}

TEST(EmitBicepAndTerraform, CarryTheSameSettings) {
  for (const SkuEntry* s : ib_sizes()) {
    for (int vms : kVmCounts) {
      DeploymentModel m = build_deployment_for(*s, vms);
      m.location = "eastus";
      const std::string where = s->name + " x " + std::to_string(vms);
      const std::string bicep = write_bicep(m);
      for (const std::string& want :
           {"name: '" + m.vm_size + "'", "capacity: " + std::to_string(vms),
            std::string("orchestrationMode: 'Uniform'"), std::string("singlePlacementGroup: true"),
            std::string("platformFaultDomainCount: 1"), std::string("overprovision: false"),
            "param imagePublisher string = '" + m.image.publisher + "'",
            "param imageOffer string = '" + m.image.offer + "'",
            "param imageSku string = '" + m.image.sku + "'", "'" + m.vnet_prefix + "'",
            "var cloudInit = '''\n" + m.cloud_init + "'''",
            std::string("customData: base64(cloudInit)"),
            std::string("param location string = 'eastus'"),
            std::string("// singlePlacementGroup: true: ")}) {
        EXPECT_NE(bicep.find(want), std::string::npos) << where << ": Bicep lacks " << want;
      }
      EXPECT_EQ(bicep.find("'172.16."), std::string::npos);
      // Bicep braces and brackets balance (its strings here never contain them unescaped).
      EXPECT_EQ(bicep_brace_depth(bicep), 0) << where;

      const std::string tf = write_terraform(m);
      for (const std::string& want :
           {"sku                 = \"" + m.vm_size + "\"",
            "instances           = " + std::to_string(vms),
            std::string("resource \"azurerm_linux_virtual_machine_scale_set\" \"train\" {"),
            std::string("single_placement_group = true"),
            std::string("platform_fault_domain_count = 1"),
            std::string("overprovision       = false"),
            "default     = \"" + m.image.publisher + "\"",
            "default     = \"" + m.image.offer + "\"", "default     = \"" + m.image.sku + "\"",
            "address_space       = [\"" + m.vnet_prefix + "\"]",
            "cloud_init = <<EOT\n" + m.cloud_init + "EOT\n",
            std::string("custom_data         = base64encode(local.cloud_init)"),
            std::string("# singlePlacementGroup: true: ")}) {
        EXPECT_NE(tf.find(want), std::string::npos) << where << ": Terraform lacks " << want;
      }
      EXPECT_EQ(tf.find("\"172.16."), std::string::npos);
      EXPECT_EQ(hcl_problems(tf), "") << where;
      EXPECT_EQ(tf.find("trainready:skip=deploy-placement-limit") != std::string::npos, vms > 100)
          << where;
    }
  }
}

TEST(EmitBicepAndTerraform, HclCheckCatchesBrokenText) {
  EXPECT_NE(hcl_problems("resource \"a\" \"b\" {\n  x = 1\n"), "");
  EXPECT_NE(hcl_problems("resource \"a\" \"b\" {\n  x = \"open\n}\n"), "");
  EXPECT_NE(hcl_problems("resource a b {\n}\n"), "");
  EXPECT_EQ(hcl_problems("resource \"a\" \"b\" {\n  x = \"}\"\n}\n"), "");
}

TEST(PlanEmitCli, WritesEachFormatAndRefusesToOverwrite) {
  const std::string kJob = example("jobs/llama3-70b-64gpu.yaml");
  const std::string dir = temp_dir("plan-emit") + "/infra";
  for (const char* fmt : {"arm", "bicep", "terraform"}) {
    auto r = run_trainready({"plan", "--job", kJob, "--emit", fmt, "-o", dir});
    EXPECT_EQ(r.code, 0) << fmt << "\n" << r.err;
    EXPECT_NE(r.err.find("wrote " + dir + "/" + *emit_file_name(fmt)), std::string::npos) << r.err;
    EXPECT_FALSE(r.out.empty());  // the plan report still goes to stdout
  }
  const std::string arm = dir + "/azuredeploy.json";
  LintRun l = lint_file(arm);
  EXPECT_EQ(l.code, 0) << l.raw;
  EXPECT_TRUE(l.rules.empty()) << join(l.rules, ", ");

  const std::string before = slurp(arm);
  auto again = run_trainready({"plan", "--job", kJob, "--emit", "arm", "-o", dir});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("already exists; pass --force"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(arm), before);
  auto forced = run_trainready(
      {"plan", "--job", kJob, "--gpus", "128", "--emit", "arm", "-o", dir, "--force"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(slurp(arm), before);

  auto no_dir = run_trainready({"plan", "--job", kJob, "--emit", "arm"});
  EXPECT_EQ(no_dir.code, 2);
  EXPECT_NE(no_dir.err.find("-o DIR is required"), std::string::npos) << no_dir.err;
}

TEST(PlanEmitCli, RefusesAboveOnePlacementGroupAndWhenNothingFits) {
  const std::string dir = temp_dir("plan-emit-refused");
  auto big = run_trainready({"plan", "--model", "llama3-8b", "--gpus", "2408", "--sku",
                             "Standard_ND96isr_H100_v5", "--emit", "arm", "-o", dir});
  EXPECT_EQ(big.code, 2) << big.out;
  EXPECT_NE(big.err.find("refused"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("placement group"), std::string::npos) << big.err;
  auto none = run_trainready({"plan", "--model", "llama3-70b", "--gpus", "1", "--sku",
                              "Standard_NC24ads_A100_v4", "--emit", "bicep", "-o", dir});
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_NE(none.err.find("found no VM size that fits"), std::string::npos) << none.err;
  std::ifstream arm(dir + "/azuredeploy.json"), bicep(dir + "/main.bicep");
  EXPECT_FALSE(arm.good());
  EXPECT_FALSE(bicep.good());
}

}  // namespace trainready::test

namespace trainready::test {

// The plan's storage choice reaches the deployment: the staging command for local NVMe, and
// for Azure Managed Lustre the file system itself.
TEST(EmitModel, StorageChoiceBecomesANote) {
  Plan plan;
  plan.recommended = true;
  plan.job.model = "llama3-8b";
  Candidate c;
  c.sku = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  c.vms = 2;
  c.gpus = 16;
  StorageOption nvme;
  nvme.kind = "nvme";
  nvme.name = "local NVMe (staged)";
  StorageOption amlfs;
  amlfs.kind = "amlfs";
  amlfs.name = "AMLFS-Durable-Premium-250, 16 TiB";
  c.data.options = {nvme, amlfs};
  c.data.chosen = 0;
  plan.candidates.push_back(c);
  DeploymentModel m = build_deployment(plan);
  EXPECT_EQ(m.location, plan.job.region);
  EXPECT_NE(m.plan_summary.find("llama3-8b on 2 x Standard_ND96isr_H100_v5 (16 GPUs)"),
            std::string::npos);
  EXPECT_NE(m.notes.back().find("stage the dataset to /mnt/nvme"), std::string::npos);
  EXPECT_NE(m.notes.back().find("azcopy copy"), std::string::npos) << m.notes.back();
  EXPECT_FALSE(m.lustre);
  // Azure Managed Lustre: the file system is part of the deployment, sized from the tier the
  // plan used (12.3 TiB of Premium-250 rounds up to 16: 8 TiB minimum, 8 TiB steps).
  plan.candidates[0].data.options[1].amlfs_tier =
      AmlfsTier{"AMLFS-Durable-Premium-250", 250, 8, 128, 8};
  plan.candidates[0].data.options[1].size_tib = 12.3;
  plan.candidates[0].data.chosen = 1;
  m = build_deployment(plan);
  ASSERT_TRUE(m.lustre);
  EXPECT_EQ(m.lustre->tier.name, "AMLFS-Durable-Premium-250");
  EXPECT_EQ(m.lustre->capacity_tib, 16);
  EXPECT_EQ(m.lustre->throughput_mbytes_per_s, 4000);
  EXPECT_NE(m.notes.back().find("AMLFS-Durable-Premium-250, 16 TiB"), std::string::npos);
  EXPECT_NE(m.cloud_init.find("mount -t lustre -o noatime,flock"), std::string::npos);
  // A planned option without its tier is refused rather than guessed.
  plan.candidates[0].data.options[1].amlfs_tier.reset();
  EXPECT_THROW(build_deployment(plan), EmitRefused);
  plan.recommended = false;
  EXPECT_THROW(build_deployment(plan), EmitRefused);
}

}  // namespace trainready::test
