// The public ARM corpus (tests/data/fixtures/deploy-templates, provenance in SOURCES.md): every
// template is read, and its findings are those an Azure HPC engineer would sign (issue 22).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/engine.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"

namespace trainready::test {

namespace {

const std::string kCorpus = "deploy-templates/";
const std::string kHpcPack2019 = "deploy-templates/hpcpack2019/";
// The HPC Pack 2019 templates link their children from GitHub; the children are in the corpus.
const std::string kSharedUri =
    "https://raw.githubusercontent.com/Azure/hpcpack-template/master/HPCPack2019/shared-resources";

std::string data(const std::string& rel) { return std::string(TR_TEST_DATA) + "/" + rel; }

DeploymentInputOptions with(std::vector<std::string> params, bool map_links = true) {
  DeploymentInputOptions o;
  o.parameters = std::move(params);
  if (map_links)
    o.template_uri_map = {kSharedUri + "=" + fixture(kHpcPack2019 + "shared-resources")};
  return o;
}

struct Judged {
  DeploymentFacts facts;
  Evaluation ev;
  std::vector<std::string> rules() const {
    std::vector<std::string> ids;
    for (const auto& f : ev.findings) ids.push_back(f.rule_id);
    return ids;
  }
  const Finding* find(const std::string& id) const {
    for (const auto& f : ev.findings)
      if (f.rule_id == id) return &f;
    return nullptr;
  }
};

Judged judge(const std::vector<std::string>& paths, const DeploymentInputOptions& o = {}) {
  Judged j;
  j.facts = read_deployment_inputs(paths, o);
  j.ev = evaluate_deployment_rules(j.facts, Catalog::builtin());
  return j;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The same template in ARM's dialect, every line where it was: a `//` comment after each line
// that ends a member, a `/* */` comment before each key, and a trailing comma after the last
// member or element of every multi-line object and array.
std::string arm_dialect_variant(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  auto trimmed = [](const std::string& s) {
    auto b = s.find_first_not_of(" \t\r");
    auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    const std::string t = trimmed(l);
    const std::string next = i + 1 < lines.size() ? trimmed(lines[i + 1]) : "";
    const bool closes_next = !next.empty() && (next[0] == '}' || next[0] == ']');
    if (!t.empty() && closes_next && t.back() != '{' && t.back() != '[' && t.back() != ',')
      l += ",";
    if (!t.empty() && t[0] == '"') l.insert(l.find('"'), "/* k */ ");
    if (!l.empty() && l.back() == ',') l += " // c, with a comma";
    out += l + "\n";
  }
  return out;
}

}  // namespace

// Every template of the corpus is read (no input error); the linked children alone, whose
// required parameters have no value, are incomplete rather than clean.
TEST(ArmCorpus, EveryTemplateIsRead) {
  for (const char* f :
       {"hpcpack2019/newcluster-templates/single-hn-lnxcn.json",
        "hpcpack2019/newcluster-templates/single-hn-wincn-noad.json",
        "hpcpack2019/newcluster-templates/two-hns-lnxcn.json",
        "hpcpack2019/addnodes-templates/add-linux-nodes.json",
        "hpcpack2019/addnodes-templates/add-windows-nodes.json",
        "hpcpack2019/shared-resources/computenode.json",
        "hpcpack2019/shared-resources/computevmss.json",
        "hpcpack2019/shared-resources/windowsvm-dsc.json",
        "hpcpack2019/shared-resources/dsc-extension.json",
        "hpcpack-generated/new-1hn-lnxcn-no-ad.json",
        "hpcpack-generated/add-win-compute-nodes.json", "hpcpack-generated/new-2hn-wincn-ad.json",
        "azhop/ubuntu_azurecli_vm_template.json", "hpcpack-add-lnx-compute-nodes.arm.json"}) {
    SCOPED_TRACE(f);
    Judged j = judge({fixture(kCorpus + f)}, with({}));
    EXPECT_TRUE(j.facts.input_errors.empty());
    EXPECT_TRUE(j.ev.findings.empty());  // defaults: D-series compute, no InfiniBand
  }
  Judged child = judge({fixture(kHpcPack2019 + "shared-resources/computenode.json")});
  ASSERT_FALSE(child.ev.skipped.empty());
  EXPECT_NE(child.ev.skipped[0].reason.find("VM size [parameters('vmSize')] not resolved"),
            std::string::npos)
      << child.ev.skipped[0].reason;
  Judged azhop = judge({fixture(kCorpus + "azhop")});
  EXPECT_EQ(azhop.facts.files.size(), 2u);
  EXPECT_TRUE(azhop.ev.findings.empty());
  EXPECT_TRUE(azhop.ev.skipped.empty());
}

// A linked template on GitHub that is not mapped is not read, and the deployment is
// incomplete, never clean.
TEST(ArmCorpus, AnUnreadLinkedTemplateMakesTheDeploymentIncomplete) {
  Judged j = judge({fixture(kHpcPack2019 + "newcluster-templates/single-hn-lnxcn.json")},
                   with({"computeNodeVMSize=Standard_HB120rs_v3"}, false));
  EXPECT_TRUE(j.ev.findings.empty());
  ASSERT_EQ(j.ev.skipped.size(), 10u);  // every deploy rule
  EXPECT_NE(
      j.ev.skipped[0].reason.find("single-hn-lnxcn.json:1158: linked template not read: uri " +
                                  kSharedUri + "/computenode.json is not on disk"),
      std::string::npos)
      << j.ev.skipped[0].reason;
}

// Issue 22 item 2 on a real template: the compute nodes' availability set comes from the
// required clusterName. Without it the set is unknown (not evaluated), never "standalone".
TEST(ArmCorpus, UnresolvedAvailabilitySetIsNotStandalone) {
  const std::vector<std::string> p = {"computeNodeVMSize=Standard_HB120rs_v3",
                                      "computeNodeImage=CentOS_7.9_HPC", "computeNodeNumber=4"};
  const std::string tpl = fixture(kHpcPack2019 + "newcluster-templates/single-hn-lnxcn.json");
  Judged unknown = judge({tpl}, with(p));
  EXPECT_EQ(unknown.find("deploy-ib-vms-ungrouped"), nullptr);
  ASSERT_FALSE(unknown.ev.skipped.empty());
  EXPECT_NE(unknown.ev.skipped[0].reason.find(
                "computenode.json:284: virtual machine 'IaaSLnxCN000' availability set "
                "[if(empty(trim(parameters('availabilitySetName')))"),
            std::string::npos)
      << unknown.ev.skipped[0].reason;

  auto named = p;
  named.push_back("clusterName=hpc1");
  Judged known = judge({tpl}, with(named));
  EXPECT_TRUE(known.ev.findings.empty());  // "Auto": RDMA sizes go in the availability set
  EXPECT_TRUE(known.ev.skipped.empty());
  ASSERT_EQ(known.facts.resources.size(), 4u);  // head node, vnet, availability set, 4 compute
  bool compute = false;
  for (const auto& r : known.facts.resources) {
    if (r.name != "IaaSLnxCN000") continue;
    compute = true;
    EXPECT_EQ(r.count.value, 4);  // the copy loop over the linked deployment
    EXPECT_EQ(r.availability_set.value, "hpc1-avset");
    EXPECT_EQ(r.where.source, fixture(kHpcPack2019 + "shared-resources/computenode.json"));
  }
  EXPECT_TRUE(compute);
}

// availabilitySetOption=None: HB VMs really are standalone (the error), and Ubuntu 18.04 has no
// InfiniBand stack (the warning); both point into the linked child.
TEST(ArmCorpus, HpcPackStandaloneHbNodesOnUbuntu) {
  Judged j = judge(
      {fixture(kHpcPack2019 + "newcluster-templates/single-hn-lnxcn.json")},
      with({"clusterName=hpc1", "computeNodeVMSize=Standard_HB120rs_v3",
            "computeNodeImage=Ubuntu_18.04", "availabilitySetOption=None", "computeNodeNumber=4"}));
  EXPECT_EQ(j.rules(),
            (std::vector<std::string>{"deploy-ib-vms-ungrouped", "deploy-ib-image-no-driver"}));
  EXPECT_EQ(j.ev.findings[0].message,
            "4 InfiniBand VMs are standalone (no scale set, no availability set)");
  EXPECT_EQ(j.ev.findings[0].location.line, 274);
  EXPECT_NE(j.ev.findings[1].message.find("boots Canonical:UbuntuServer:18.04-LTS, which is not "
                                          "an HPC image"),
            std::string::npos);
  EXPECT_NE(j.ev.findings[1].fix.find("InfiniBandDriverLinux"), std::string::npos);
}

// Issue 22 item 5: a head node of an InfiniBand size beside the compute availability set is a
// note, not an "ungrouped cluster" error.
TEST(ArmCorpus, InfiniBandHeadNodeBesideTheComputeSetIsANote) {
  Judged j = judge({fixture(kHpcPack2019 + "newcluster-templates/single-hn-lnxcn.json")},
                   with({"clusterName=hpc1", "headNodeVMSize=Standard_HB120rs_v3",
                         "computeNodeVMSize=Standard_HB120rs_v3", "computeNodeImage=CentOS_7.9_HPC",
                         "availabilitySetOption=ComputeNodes", "computeNodeNumber=4"}));
  ASSERT_EQ(j.rules(), (std::vector<std::string>{"deploy-ib-vms-ungrouped"}));
  EXPECT_EQ(j.ev.findings[0].severity, Severity::kInfo);
  EXPECT_NE(j.ev.findings[0].message.find("virtual machine 'hpc1' (Standard_HB120rs_v3) is outside "
                                          "availability set hpc1-avset"),
            std::string::npos)
      << j.ev.findings[0].message;
}

// A custom image is unknown: a note that says what to check, not "no driver".
TEST(ArmCorpus, CustomImageIsANoteNotAFinding) {
  Judged j = judge({fixture(kHpcPack2019 + "newcluster-templates/single-hn-lnxcn.json")},
                   with({"clusterName=hpc1", "computeNodeVMSize=Standard_HB120rs_v3",
                         "computeNodeImage=CustomImage", "computeNodeNumber=4"}));
  EXPECT_TRUE(j.ev.findings.empty());
  ASSERT_EQ(j.ev.notes.size(), 1u);
  EXPECT_NE(j.ev.notes[0].reason.find("boots the custom image"), std::string::npos);
  EXPECT_NE(j.ev.notes[0].reason.find("ofed_info -s"), std::string::npos);
}

// Windows compute nodes of an RDMA size: the template installs InfiniBandDriverWindows itself.
TEST(ArmCorpus, HpcPackWindowsNodesGetTheWindowsDriverExtension) {
  Judged j = judge(
      {fixture(kHpcPack2019 + "newcluster-templates/single-hn-wincn-noad.json")},
      with({"clusterName=hpc1", "computeNodeVMSize=Standard_HB120rs_v3", "computeNodeNumber=4"}));
  EXPECT_TRUE(j.ev.findings.empty());
  EXPECT_TRUE(j.ev.skipped.empty());
  bool ext = false;
  for (const auto& r : j.facts.resources)
    for (const auto& e : r.extensions) ext = ext || e.type == "InfiniBandDriverWindows";
  EXPECT_TRUE(ext);
}

// The add-nodes templates (hand-written 2019 and Bicep-generated) with an RDMA size: without
// availabilitySetName the new nodes are standalone (a true error), with it they are one group;
// the Windows driver extension is installed by the template, so no image finding either way.
TEST(ArmCorpus, HpcPackAddWindowsNodesNeedAnAvailabilitySet) {
  for (const char* f : {"hpcpack2019/addnodes-templates/add-windows-nodes.json",
                        "hpcpack-generated/add-win-compute-nodes.json"}) {
    SCOPED_TRACE(f);
    const std::vector<std::string> p = {"computeNodeNamePrefix=win",
                                        "computeNodeVMSize=Standard_HB120rs_v3",
                                        "computeNodeNumber=4"};
    Judged bare = judge({fixture(kCorpus + f)}, with(p));
    ASSERT_EQ(bare.rules(), (std::vector<std::string>{"deploy-ib-vms-ungrouped"}));
    EXPECT_EQ(bare.ev.findings[0].message,
              "4 InfiniBand VMs are standalone (no scale set, no availability set)");
    auto in_set = p;
    in_set.push_back("availabilitySetName=ibset");
    Judged set = judge({fixture(kCorpus + f)}, with(in_set));
    EXPECT_TRUE(set.ev.findings.empty());
    EXPECT_TRUE(set.ev.skipped.empty());
  }
}

// Issue 22 item 4: Bicep's __bicep.isRDMACapable decides that RDMA compute nodes get an
// availability set; before user-defined functions were evaluated this was "standalone".
TEST(ArmCorpus, BicepUserDefinedFunctionsAreEvaluated) {
  Judged j = judge(
      {fixture(kCorpus + "hpcpack-generated/new-1hn-lnxcn-no-ad.json")},
      with({"clusterName=hpc1", "computeNodeVMSize=Standard_HB120rs_v3", "computeNodeNumber=4"}));
  // Ubuntu 24.04 (the default) without the InfiniBand driver: the one finding.
  ASSERT_EQ(j.rules(), (std::vector<std::string>{"deploy-ib-image-no-driver"}));
  EXPECT_NE(j.ev.findings[0].message.find("Canonical:ubuntu-24_04-lts:server-gen1"),
            std::string::npos);
  bool in_set = false;
  for (const auto& r : j.facts.resources)
    in_set = in_set || (r.name == "IaaSLnxCN000" && r.availability_set.is_known() &&
                        !r.availability_set.value.empty());
  EXPECT_TRUE(in_set);
}

// Issue 22 item 3: a copy loop over a linked scale-set template is three scale sets, three
// InfiniBand partitions, found by relativePath and by uri(deployment()...templateLink.uri, ..).
TEST(ArmCorpus, CopiesOfALinkedScaleSetAreSeparatePartitions) {
  for (const char* parent : {"deploy/linked/three-ib-scale-sets.json",
                             "deploy/linked/three-ib-scale-sets-relative-path.json"}) {
    SCOPED_TRACE(parent);
    Judged j = judge({data(parent)});
    ASSERT_EQ(j.facts.resources.size(), 3u);
    ASSERT_EQ(j.rules(), (std::vector<std::string>{"deploy-ib-vms-ungrouped"}));
    EXPECT_EQ(j.ev.findings[0].message, "48 InfiniBand VMs are spread over 3 InfiniBand groups");
    EXPECT_NE(j.ev.findings[0].location.source.find("shared-resources/computevmss.json"),
              std::string::npos);
  }
}

// Issue 22 item 1 on real templates: the same template with comments and trailing commas gives
// the same findings on the same lines.
TEST(ArmCorpus, ArmDialectVariantsGiveTheSameFindingsOnTheSameLines) {
  std::string dir = temp_dir("arm-dialect");
  const std::vector<std::string> p = {"clusterName=hpc1", "computeNodeVMSize=Standard_HB120rs_v3",
                                      "computeNodeImage=Ubuntu_18.04", "availabilitySetOption=None",
                                      "computeNodeNumber=4"};
  for (const char* f : {"hpcpack2019/newcluster-templates/single-hn-lnxcn.json",
                        "hpcpack-generated/new-1hn-lnxcn-no-ad.json"}) {
    SCOPED_TRACE(f);
    const std::string original = fixture(kCorpus + f);
    const std::string variant = dir + "/variant.json";
    std::string text = arm_dialect_variant(slurp(original));
    ASSERT_NE(text.find(", // c"), std::string::npos);
    std::ofstream(variant) << text;
    Judged a = judge({original}, with(p));
    Judged b = judge({variant}, with(p));
    EXPECT_TRUE(b.facts.input_errors.empty());
    ASSERT_EQ(a.ev.findings.size(), b.ev.findings.size());
    ASSERT_FALSE(a.ev.findings.empty());
    for (std::size_t i = 0; i < a.ev.findings.size(); ++i) {
      EXPECT_EQ(a.ev.findings[i].rule_id, b.ev.findings[i].rule_id);
      EXPECT_EQ(a.ev.findings[i].message, b.ev.findings[i].message);
      if (a.ev.findings[i].location.source == original) {
        EXPECT_EQ(a.ev.findings[i].location.line, b.ev.findings[i].location.line);
      }
    }
  }
}

// Issue 19 item 12: an ESC or NUL byte in customData does not hide NCCL_IB_DISABLE=1.
TEST(ArmCorpus, ControlBytesInCustomDataAreStillJudged) {
  for (const char* b64 : {"G2V4cG9ydCBOQ0NMX0lCX0RJU0FCTEU9MQo=",  // "\x1bexport ..."
                          "ACMhL2Jpbi9iYXNoCmV4cG9ydCBOQ0NMX0lCX0RJU0FCTEU9MQo="}) {  // "\0#!..."
    SCOPED_TRACE(b64);
    DeploymentFacts d = read_deployment_text(std::string(R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "resources": [{"type": "Microsoft.Compute/virtualMachineScaleSets", "name": "ib",
    "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2},
    "properties": {"singlePlacementGroup": true, "virtualMachineProfile": {
      "storageProfile": {"imageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc", "sku": "2204"}},
      "osProfile": {"customData": ")") + b64 + R"("}}}}]})",
                                             "esc.json");
    Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
    ASSERT_EQ(ev.findings.size(), 1u);
    EXPECT_EQ(ev.findings[0].rule_id, "deploy-nccl-ib-disabled");
  }
}

}  // namespace trainready::test
