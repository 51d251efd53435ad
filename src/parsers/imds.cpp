#include "parsers/imds.h"

#include "core/input_error.h"
#include "core/json_util.h"

namespace trainready {
namespace {

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  return "";
}

}  // namespace

ImdsInfo parse_imds(std::string_view json_text, const std::string& source) {
  nlohmann::json doc = parse_json_or_throw(json_text, source);
  if (!doc.is_object()) throw InputError(source, 1, "expected an IMDS JSON object");
  const nlohmann::json* c = &doc;
  if (auto it = doc.find("compute"); it != doc.end() && it->is_object()) c = &*it;
  if (!c->contains("vmSize") && !c->contains("vmId")) {
    throw InputError(source, 1, "expected IMDS instance metadata with compute.vmSize");
  }
  ImdsInfo info;
  info.vm_size = str(*c, "vmSize");
  info.vmss_name = str(*c, "vmScaleSetName");
  info.placement_group_id = str(*c, "placementGroupId");
  info.platform_fault_domain = str(*c, "platformFaultDomain");
  info.location = str(*c, "location");
  info.name = str(*c, "name");
  info.vm_id = str(*c, "vmId");
  info.zone = str(*c, "zone");
  info.image_publisher = str(*c, "publisher");
  info.image_offer = str(*c, "offer");
  info.image_sku = str(*c, "sku");
  info.image_version = str(*c, "version");
  if (auto sp = c->find("storageProfile"); sp != c->end() && sp->is_object()) {
    if (auto ir = sp->find("imageReference"); ir != sp->end() && ir->is_object()) {
      if (!str(*ir, "publisher").empty()) info.image_publisher = str(*ir, "publisher");
      if (!str(*ir, "offer").empty()) info.image_offer = str(*ir, "offer");
      if (!str(*ir, "sku").empty()) info.image_sku = str(*ir, "sku");
      if (!str(*ir, "version").empty()) info.image_version = str(*ir, "version");
      info.image_id = str(*ir, "id");
    }
  }
  return info;
}

}  // namespace trainready
