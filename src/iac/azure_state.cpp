#include "iac/azure_state.h"

#include "core/text.h"
#include "iac/inline_suppressions.h"
#include "iac/json_fields.h"

namespace trainready {
namespace {

using json = nlohmann::json;

std::string type_of(const json& o) {
  if (!o.is_object()) return "";
  auto t = o.find("type");
  return t != o.end() && t->is_string() ? to_lower(t->get<std::string>()) : "";
}

bool is_az_object(const json& o) {
  std::string t = type_of(o);
  return t == "microsoft.compute/virtualmachines" ||
         t == "microsoft.compute/virtualmachinescalesets" ||
         t == "microsoft.compute/virtualmachinescalesets/virtualmachines";
}

// "/subscriptions/.../virtualMachineScaleSets/<name>/virtualMachines/3" → "<name>".
std::string scale_set_of_instance_id(const std::string& id) {
  std::string l = to_lower(id);
  auto p = l.find("/virtualmachinescalesets/");
  if (p == std::string::npos) return "";
  p += 25;
  return l.substr(p, l.find('/', p) - p);
}

void tags(const json& o, const std::string& ptr, const LocatedJson& doc, const std::string& file,
          DeploymentResource* d) {
  auto t = o.find("tags");
  if (t == o.end() || !t->is_object()) return;
  for (auto it = t->begin(); it != t->end(); ++it) {
    if (iequals(it.key(), kSuppressionTag) && it.value().is_string())
      add_suppression_list(
          it.value().get<std::string>(),
          Provenance{file, doc.line_of(ptr + "/tags/" + json_pointer_token(it.key()))}, d);
  }
}

void az_object(const json& o, const std::string& ptr, const LocatedJson& doc,
               const std::string& file, DeploymentFacts* out) {
  std::string t = type_of(o);
  // Resource Graph and REST keep the "properties" wrapper; az removes it.
  bool wrapped = o.contains("properties") && o["properties"].is_object() &&
                 !o.contains("hardwareProfile") && !o.contains("virtualMachineProfile");
  const std::string p = wrapped ? "/properties" : "";
  JsonFields f(o, doc, ptr, file);
  DeploymentResource d;
  d.format = "az";
  d.deployed = true;
  d.type = o.value("type", "");
  Setting<std::string> nm = f.text("/name");
  Setting<std::string> id = f.text("/id");
  d.name = nm.is_known() ? nm.value : (id.is_known() ? id.value : "(unnamed)");
  d.address = id.is_known() ? id.value : d.name;
  d.where = Provenance{file, doc.line_of(ptr)};
  tags(o, ptr, doc, file, &d);
  auto image = [&](const std::string& base) {
    d.image_publisher = f.text(base + "/publisher");
    d.image_offer = f.text(base + "/offer");
    d.image_sku = f.text(base + "/sku");
    d.image_id = f.text(base + "/id");
  };
  if (t == "microsoft.compute/virtualmachinescalesets") {
    d.kind = ResourceKind::kScaleSet;
    d.vm_size = f.text("/sku/name");
    d.count = f.integer("/sku/capacity");
    d.placement->single_placement_group = f.boolean(p + "/singlePlacementGroup");
    d.placement->orchestration_mode = f.text(p + "/orchestrationMode");
    d.placement->platform_fault_domain_count = f.integer(p + "/platformFaultDomainCount");
    image(p + "/virtualMachineProfile/storageProfile/imageReference");
    const std::string ep = p + "/virtualMachineProfile/extensionProfile/extensions";
    if (const json* ex = f.at(ep); ex && ex->is_array()) {
      for (std::size_t i = 0; i < ex->size(); ++i) {
        std::string e = ep + "/" + std::to_string(i);
        // az flattens extension properties too; REST keeps them under "properties".
        std::string q = f.at(e + "/properties") ? e + "/properties" : e;
        d.extensions.push_back(
            VmExtension{f.text(q + "/publisher").value, f.text(q + "/type").value, f.where(e)});
      }
    }
    d.live->vm_scale_set_name = nm;
  } else {
    d.kind = ResourceKind::kVirtualMachine;
    d.count = Setting<long long>::known(1, "1", d.where);
    if (t == "microsoft.compute/virtualmachinescalesets/virtualmachines") {
      d.vm_size = f.text("/sku/name");
      if (d.vm_size.is_unset()) d.vm_size = f.text(p + "/hardwareProfile/vmSize");
      if (id.is_known()) {
        std::string ss = scale_set_of_instance_id(id.value);
        d.scale_set = Setting<std::string>::known(ss, id.value, id.where);
        d.live->vm_scale_set_name = d.scale_set;
      }
    } else {
      d.vm_size = f.text(p + "/hardwareProfile/vmSize");
      d.availability_set = f.id_name(p + "/availabilitySet/id");
      d.scale_set = f.id_name(p + "/virtualMachineScaleSet/id");
      if (d.scale_set.is_known()) d.live->vm_scale_set_name = d.scale_set;
    }
    image(p + "/storageProfile/imageReference");
    // az vm show lists installed extensions under "resources".
    if (const json* ex = f.at("/resources"); ex && ex->is_array()) {
      for (std::size_t i = 0; i < ex->size(); ++i) {
        std::string e = "/resources/" + std::to_string(i);
        std::string q = f.at(e + "/properties") ? e + "/properties" : e;
        Setting<std::string> pub = f.text(q + "/publisher");
        Setting<std::string> typ = f.text(q + "/typePropertiesType");
        if (typ.is_unset()) typ = f.text(q + "/type");
        if (pub.is_known()) d.extensions.push_back(VmExtension{pub.value, typ.value, f.where(e)});
      }
    }
  }
  out->resources.push_back(std::move(d));
}

}  // namespace

bool looks_like_imds(const json& doc) {
  if (!doc.is_object()) return false;
  const json* c = &doc;
  if (auto it = doc.find("compute"); it != doc.end() && it->is_object()) c = &*it;
  return c->contains("vmSize") || (c->contains("placementGroupId") && c->contains("vmId")) ||
         (c->contains("azEnvironment") && c->contains("vmScaleSetName"));
}

bool looks_like_az_state(const json& doc) {
  if (doc.is_array()) {
    if (doc.empty()) return false;
    for (const auto& e : doc) {
      if (!is_az_object(e)) return false;
    }
    return true;
  }
  return is_az_object(doc);
}

void read_imds_document(const LocatedJson& doc, const std::string& file, DeploymentFacts* out) {
  const json& v = doc.value;
  bool nested = v.contains("compute") && v["compute"].is_object();
  const std::string base = nested ? "/compute" : "";
  const json& c = nested ? v["compute"] : v;
  JsonFields f(c, doc, base, file);
  DeploymentResource d;
  d.kind = ResourceKind::kVirtualMachine;
  d.format = "imds";
  d.deployed = true;
  d.type = "IMDS instance";
  Setting<std::string> nm = f.text("/name");
  d.name = nm.is_known() && !nm.value.empty() ? nm.value : file;
  Setting<std::string> rid = f.text("/resourceId");
  d.address = rid.is_known() && !rid.value.empty() ? rid.value : d.name;
  d.where = Provenance{file, doc.line_of(base)};
  d.count = Setting<long long>::known(1, "1", d.where);
  auto non_empty = [&](const std::string& ptr) {
    Setting<std::string> s = f.text(ptr);
    if (s.is_known() && s.value.empty()) return Setting<std::string>{};  // IMDS: "" = absent
    return s;
  };
  d.vm_size = non_empty("/vmSize");
  d.live->placement_group_id = f.text("/placementGroupId");
  d.live->vm_scale_set_name = f.text("/vmScaleSetName");
  if (d.live->vm_scale_set_name.is_known() && !d.live->vm_scale_set_name.value.empty())
    d.scale_set = d.live->vm_scale_set_name;
  d.image_publisher = non_empty("/storageProfile/imageReference/publisher");
  if (d.image_publisher.is_unset()) d.image_publisher = non_empty("/publisher");
  d.image_offer = non_empty("/storageProfile/imageReference/offer");
  if (d.image_offer.is_unset()) d.image_offer = non_empty("/offer");
  d.image_sku = non_empty("/storageProfile/imageReference/sku");
  if (d.image_sku.is_unset()) d.image_sku = non_empty("/sku");
  d.image_id = non_empty("/storageProfile/imageReference/id");
  if (const json* tl = f.at("/tagsList"); tl && tl->is_array()) {
    for (std::size_t i = 0; i < tl->size(); ++i) {
      const json& t = (*tl)[i];
      if (t.is_object() && t.value("name", "") == kSuppressionTag && t.contains("value") &&
          t["value"].is_string())
        add_suppression_list(t["value"].get<std::string>(),
                             f.where("/tagsList/" + std::to_string(i)), &d);
    }
  }
  out->resources.push_back(std::move(d));
}

void read_az_state(const LocatedJson& doc, const std::string& file, DeploymentFacts* out) {
  if (doc.value.is_array()) {
    for (std::size_t i = 0; i < doc.value.size(); ++i)
      az_object(doc.value[i], "/" + std::to_string(i), doc, file, out);
  } else {
    az_object(doc.value, "", doc, file, out);
  }
}

}  // namespace trainready
