#include "iac/terraform_plan.h"

#include <map>

#include "core/input_error.h"
#include "core/text.h"
#include "iac/json_fields.h"

namespace trainready {
namespace {

using json = nlohmann::json;

const json& empty_object() {
  static const json empty = json::object();
  return empty;
}

// after_unknown mirrors values: true where the value is known only after apply.
bool unknown_at(const json& after_unknown, const std::string& ptr) {
  try {
    json::json_pointer p(ptr);
    if (!after_unknown.contains(p)) return false;
    const json& v = after_unknown.at(p);
    return v.is_boolean() && v.get<bool>();
  } catch (const json::exception&) {
    return false;
  }
}

struct ConfigResource {
  const json* expressions = nullptr;
  std::string module_prefix;  // "module.a." for references inside module a
};

class PlanReader {
 public:
  PlanReader(const LocatedJson& doc, std::string file, const TerraformSourceIndex& src,
             DeploymentFacts* out)
      : doc_(doc), file_(std::move(file)), src_(src), out_(out) {}

  void read() {
    const json& v = doc_.value;
    if (auto rc = v.find("resource_changes"); rc != v.end() && rc->is_array()) {
      for (const auto& c : *rc) {
        if (!c.is_object() || !c.contains("address") || !c["address"].is_string()) continue;
        auto ch = c.find("change");
        if (ch == c.end() || !ch->is_object()) continue;
        if (auto au = ch->find("after_unknown"); au != ch->end())
          after_unknown_[c["address"].get<std::string>()] = &*au;
      }
    }
    if (auto cfg = v.find("configuration"); cfg != v.end() && cfg->is_object()) {
      if (auto rm = cfg->find("root_module"); rm != cfg->end()) index_config(*rm, "", 0);
    }
    auto pv = v.find("planned_values");
    if (pv == v.end() || !pv->is_object()) {
      out_->notes.push_back(file_ +
                            ":1: no planned_values (a plan of no changes?): nothing to lint");
      return;
    }
    if (auto rm = pv->find("root_module"); rm != pv->end() && rm->is_object())
      module(*rm, "/planned_values/root_module", 0);
    attach_extensions();
  }

 private:
  void index_config(const json& m, const std::string& prefix, int depth) {
    if (!m.is_object() || depth > 32) return;
    if (auto rs = m.find("resources"); rs != m.end() && rs->is_array()) {
      for (const auto& r : *rs) {
        if (!r.is_object() || !r.contains("address") || !r["address"].is_string()) continue;
        auto ex = r.find("expressions");
        if (ex == r.end()) continue;
        config_[prefix + r["address"].get<std::string>()] = ConfigResource{&*ex, prefix};
      }
    }
    if (auto calls = m.find("module_calls"); calls != m.end() && calls->is_object()) {
      for (auto it = calls->begin(); it != calls->end(); ++it) {
        if (auto mod = it.value().find("module"); mod != it.value().end())
          index_config(*mod, prefix + "module." + it.key() + ".", depth + 1);
      }
    }
  }

  // The resource an attribute refers to in the configuration ("azurerm_availability_set.a").
  std::string reference(const std::string& address, const std::string& attr) const {
    std::string a = address;
    if (auto br = a.rfind('['); br != std::string::npos && a.back() == ']') a.resize(br);
    // Strip module instance keys: module.x[0].y → module.x.y
    std::string clean;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == '[') {
        auto close = a.find(']', i);
        if (close == std::string::npos) break;
        i = close;
        continue;
      }
      clean += a[i];
    }
    auto it = config_.find(clean);
    if (it == config_.end() || it->second.expressions == nullptr) return "";
    const json& ex = *it->second.expressions;
    auto e = ex.find(attr);
    if (e == ex.end() || !e->is_object()) return "";
    auto refs = e->find("references");
    if (refs == e->end() || !refs->is_array()) return "";
    for (const auto& r : *refs) {
      if (!r.is_string()) continue;
      std::string s = r.get<std::string>();
      if (s.size() > 3 && s.compare(s.size() - 3, 3, ".id") == 0) s.resize(s.size() - 3);
      if (auto br = s.find('['); br != std::string::npos) s.resize(br);
      if (s.rfind("var.", 0) == 0 || s.rfind("local.", 0) == 0) continue;
      return it->second.module_prefix + s;
    }
    return "";
  }

  bool configured(const std::string& address, const std::string& attr) const {
    std::string a = terraform_type_name(address);
    std::string prefix = address.substr(0, address.find(a));
    std::string clean;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      if (prefix[i] == '[') {
        auto close = prefix.find(']', i);
        if (close == std::string::npos) break;
        i = close;
        continue;
      }
      clean += prefix[i];
    }
    auto it = config_.find(clean + a);
    if (it == config_.end()) return true;  // no configuration section: cannot tell, assume set
    return it->second.expressions->contains(attr);
  }

  void module(const json& m, const std::string& ptr, int depth) {
    if (depth > 32) return;
    if (auto rs = m.find("resources"); rs != m.end() && rs->is_array()) {
      for (std::size_t i = 0; i < rs->size(); ++i)
        resource((*rs)[i], ptr + "/resources/" + std::to_string(i));
    }
    if (auto cm = m.find("child_modules"); cm != m.end() && cm->is_array()) {
      for (std::size_t i = 0; i < cm->size(); ++i) {
        if ((*cm)[i].is_object())
          module((*cm)[i], ptr + "/child_modules/" + std::to_string(i), depth + 1);
      }
    }
  }

  void resource(const json& r, const std::string& ptr) {
    if (!r.is_object()) return;
    auto mode = r.find("mode");
    if (mode != r.end() && mode->is_string() && mode->get<std::string>() != "managed") return;
    auto type_it = r.find("type");
    auto addr_it = r.find("address");
    if (type_it == r.end() || !type_it->is_string() || addr_it == r.end() || !addr_it->is_string())
      return;
    const std::string type = type_it->get<std::string>();
    const std::string address = addr_it->get<std::string>();
    auto values_it = r.find("values");
    const json& values =
        (values_it != r.end() && values_it->is_object()) ? *values_it : empty_object();
    const json* au = after_unknown_.count(address) ? after_unknown_.at(address) : nullptr;

    JsonFields f(values, doc_, ptr + "/values", file_);
    if (au != nullptr)
      f.set_unknown_check([au](const std::string& p) { return unknown_at(*au, p); });

    DeploymentResource d;
    d.type = type;
    d.format = "terraform-plan";
    d.address = address;
    Setting<std::string> nm = f.text("/name");
    d.name = nm.is_known() ? nm.value : address;
    d.where = Provenance{file_, doc_.line_of(ptr)};
    const TerraformBlock* block = src_.find(address);

    auto image = [&](const std::string& p) {
      d.image_publisher = f.text(p + "/publisher");
      d.image_offer = f.text(p + "/offer");
      d.image_sku = f.text(p + "/sku");
    };
    auto extensions = [&](const std::string& p) {
      const json* ex = f.at(p);
      if (ex == nullptr || !ex->is_array()) return;
      for (std::size_t i = 0; i < ex->size(); ++i) {
        std::string e = p + "/" + std::to_string(i);
        d.extensions.push_back(
            VmExtension{f.text(e + "/publisher").value, f.text(e + "/type").value, f.where(e)});
      }
    };
    auto group_ref = [&](const std::string& attr) {
      Setting<std::string> s = f.id_name("/" + attr);
      if (s.is_unknown()) {
        std::string ref = reference(address, attr);
        if (!ref.empty()) s = Setting<std::string>::known(to_lower(ref), ref, s.where);
      }
      return s;
    };

    if (type == "azurerm_linux_virtual_machine_scale_set" ||
        type == "azurerm_windows_virtual_machine_scale_set") {
      d.kind = ResourceKind::kScaleSet;
      d.vm_size = f.text("/sku");
      d.count = f.integer("/instances");
      d.placement->single_placement_group = f.boolean("/single_placement_group");
      d.placement->orchestration_mode = Setting<std::string>::known("Uniform", type, d.where);
      d.placement->platform_fault_domain_count = f.integer("/platform_fault_domain_count");
      image("/source_image_reference/0");
      d.image_id = f.text("/source_image_id");
      f.boot_script("custom_data", "/custom_data", &d.boot_scripts);
      f.boot_script("user_data", "/user_data", &d.boot_scripts);
      extensions("/extension");
    } else if (type == "azurerm_orchestrated_virtual_machine_scale_set") {
      d.kind = ResourceKind::kScaleSet;
      d.vm_size = f.text("/sku_name");
      d.count = f.integer("/instances");
      d.placement->single_placement_group = f.boolean("/single_placement_group");
      d.placement->orchestration_mode = Setting<std::string>::known("Flexible", type, d.where);
      d.placement->platform_fault_domain_count = f.integer("/platform_fault_domain_count");
      if (!configured(address, "single_placement_group"))
        d.placement->spg_default_false_because =
            "azurerm_orchestrated_virtual_machine_scale_set defaults single_placement_group to "
            "false";
      image("/source_image_reference/0");
      d.image_id = f.text("/source_image_id");
      f.boot_script("os_profile.custom_data", "/os_profile/0/custom_data", &d.boot_scripts);
      f.boot_script("user_data_base64", "/user_data_base64", &d.boot_scripts);
      extensions("/extension");
    } else if (type == "azurerm_virtual_machine_scale_set") {
      d.kind = ResourceKind::kScaleSet;
      d.vm_size = f.text("/sku/0/name");
      d.count = f.integer("/sku/0/capacity");
      d.placement->single_placement_group = f.boolean("/single_placement_group");
      image("/storage_profile_image_reference/0");
      f.boot_script("os_profile.custom_data", "/os_profile/0/custom_data", &d.boot_scripts);
      extensions("/extension");
    } else if (type == "azurerm_linux_virtual_machine" ||
               type == "azurerm_windows_virtual_machine" || type == "azurerm_virtual_machine") {
      d.kind = ResourceKind::kVirtualMachine;
      bool legacy = type == "azurerm_virtual_machine";
      d.vm_size = f.text(legacy ? "/vm_size" : "/size");
      d.count = Setting<long long>::known(1, "1", d.where);
      d.availability_set = group_ref("availability_set_id");
      d.scale_set = group_ref("virtual_machine_scale_set_id");
      if (legacy) {
        image("/storage_image_reference/0");
        f.boot_script("os_profile.custom_data", "/os_profile/0/custom_data", &d.boot_scripts);
      } else {
        image("/source_image_reference/0");
        d.image_id = f.text("/source_image_id");
        f.boot_script("custom_data", "/custom_data", &d.boot_scripts);
        f.boot_script("user_data", "/user_data", &d.boot_scripts);
      }
    } else if (type == "azurerm_availability_set") {
      d.kind = ResourceKind::kAvailabilitySet;
      d.address = terraform_type_name(address);
      std::string prefix = address.substr(0, address.find(d.address));
      d.address = prefix + d.address;
    } else if (type == "azurerm_virtual_network") {
      d.kind = ResourceKind::kVirtualNetwork;
      if (const json* as = f.at("/address_space"); as && as->is_array()) {
        for (std::size_t i = 0; i < as->size(); ++i) {
          Setting<std::string> c = f.text("/address_space/" + std::to_string(i));
          if (c.is_known()) d.network->address_prefixes.push_back(AddressPrefix{c.value, c.where});
        }
      }
    } else if (type == "azurerm_subnet") {
      d.kind = ResourceKind::kSubnet;
      if (const json* ps = f.at("/address_prefixes"); ps && ps->is_array()) {
        for (std::size_t i = 0; i < ps->size(); ++i) {
          Setting<std::string> c = f.text("/address_prefixes/" + std::to_string(i));
          if (c.is_known()) d.network->subnet_prefixes.push_back(AddressPrefix{c.value, c.where});
        }
      }
    } else if (type == "azurerm_managed_lustre_file_system") {
      d.kind = ResourceKind::kManagedLustre;
      d.lustre->lustre_sku = f.text("/sku_name");
      d.lustre->lustre_capacity_tib = f.integer("/storage_capacity_in_tb");
      d.lustre->lustre_subnet = f.text("/subnet_id");
    } else if (type == "azurerm_kubernetes_cluster") {
      d.kind = ResourceKind::kAksNodePool;
      d.vm_size = f.text("/default_node_pool/0/vm_size");
      d.count = f.integer("/default_node_pool/0/node_count");
      Setting<std::string> pn = f.text("/default_node_pool/0/name");
      d.name += "/" + (pn.is_known() ? pn.value : std::string("default"));
    } else if (type == "azurerm_kubernetes_cluster_node_pool") {
      d.kind = ResourceKind::kAksNodePool;
      d.vm_size = f.text("/vm_size");
      d.count = f.integer("/node_count");
    } else if (type == "azurerm_virtual_machine_extension" ||
               type == "azurerm_virtual_machine_scale_set_extension") {
      std::string target = reference(address, type == "azurerm_virtual_machine_extension"
                                                  ? "virtual_machine_id"
                                                  : "virtual_machine_scale_set_id");
      pending_.push_back({to_lower(target), VmExtension{f.text("/publisher").value,
                                                        f.text("/type").value, f.where("/type")}});
      return;
    } else {
      return;
    }
    if (block != nullptr) relocate(*block, &d);
    merge_or_add(std::move(d));
  }

  // Findings on a plan point at the .tf source when it was found.
  static void relocate(const TerraformBlock& b, DeploymentResource* d) {
    Provenance block{b.file, b.line};
    auto at = [&](auto* s, const char* attr) {
      auto it = b.attributes.find(attr);
      if (s->state != std::decay_t<decltype(*s)>::State::kUnset || it != b.attributes.end())
        s->where = it != b.attributes.end() ? Provenance{b.file, it->second} : block;
    };
    d->where = block;
    at(&d->vm_size, d->type == "azurerm_orchestrated_virtual_machine_scale_set" ? "sku_name"
                    : d->type.find("kubernetes") != std::string::npos           ? "vm_size"
                    : d->type == "azurerm_virtual_machine"                      ? "vm_size"
                    : d->kind == ResourceKind::kScaleSet                        ? "sku"
                                                                                : "size");
    at(&d->count, d->kind == ResourceKind::kVirtualMachine ? "count"
                  : d->kind == ResourceKind::kAksNodePool  ? "node_count"
                                                           : "instances");
    at(&d->placement->single_placement_group, "single_placement_group");
    at(&d->placement->platform_fault_domain_count, "platform_fault_domain_count");
    at(&d->availability_set, "availability_set_id");
    at(&d->scale_set, "virtual_machine_scale_set_id");
    for (auto* s : {&d->image_publisher, &d->image_offer, &d->image_sku})
      at(s, "source_image_reference");
    at(&d->image_id, "source_image_id");
    for (auto& bs : d->boot_scripts) {
      std::string attr = bs.field.substr(bs.field.rfind('.') + 1);
      at(&bs.raw,
         attr == "custom_data" && b.attributes.count("os_profile") ? "os_profile" : attr.c_str());
    }
    for (const auto& [rule, why] : b.skips) d->suppressions.emplace_back(rule, why);
    if (!b.skips.empty()) d->suppressions_where = Provenance{b.file, b.skips_line};
  }

  // count = N gives N instances with one configuration: lint them as one resource of N VMs.
  void merge_or_add(DeploymentResource d) {
    std::string base = d.address;
    if (auto br = base.rfind('['); br != std::string::npos && base.back() == ']') base.resize(br);
    if (d.kind == ResourceKind::kVirtualMachine) {
      auto key =
          base + "|" + d.vm_size.value + "|" + d.availability_set.value + "|" + d.scale_set.value;
      if (auto it = merged_.find(key); it != merged_.end()) {
        DeploymentResource& m = out_->resources[it->second];
        m.count.value += 1;
        m.count.raw = std::to_string(m.count.value);
        return;
      }
      merged_[key] = out_->resources.size();
      d.address = base;
    }
    out_->resources.push_back(std::move(d));
  }

  void attach_extensions() {
    for (auto& [target, ext] : pending_) {
      DeploymentResource* owner = nullptr;
      int candidates = 0;
      for (auto& r : out_->resources) {
        if (r.format != "terraform-plan" ||
            (r.kind != ResourceKind::kVirtualMachine && r.kind != ResourceKind::kScaleSet))
          continue;
        ++candidates;
        if (!target.empty() && to_lower(r.address) == target) owner = &r;
      }
      if (owner == nullptr && candidates == 1) {
        for (auto& r : out_->resources) {
          if (r.format == "terraform-plan" &&
              (r.kind == ResourceKind::kVirtualMachine || r.kind == ResourceKind::kScaleSet))
            owner = &r;
        }
      }
      if (owner != nullptr) owner->extensions.push_back(ext);
    }
  }

  const LocatedJson& doc_;
  std::string file_;
  const TerraformSourceIndex& src_;
  DeploymentFacts* out_;
  std::map<std::string, const json*> after_unknown_;
  std::map<std::string, ConfigResource> config_;
  std::map<std::string, std::size_t> merged_;
  std::vector<std::pair<std::string, VmExtension>> pending_;
};

}  // namespace

bool looks_like_terraform_plan(const json& doc) {
  return doc.is_object() && doc.contains("format_version") &&
         (doc.contains("planned_values") || doc.contains("resource_changes") ||
          doc.contains("terraform_version"));
}

void read_terraform_plan(const LocatedJson& doc, const std::string& file,
                         const TerraformSourceIndex& sources, DeploymentFacts* out) {
  const json& fv = doc.value.at("format_version");
  std::string v = fv.is_string() ? fv.get<std::string>() : "";
  if (v.rfind("1.", 0) != 0 && v != "1")
    throw InputError(file, doc.line_of("/format_version"),
                     "expected a Terraform plan with format_version 1.x, found \"" + v + "\"");
  PlanReader reader(doc, file, sources, out);
  reader.read();
}

}  // namespace trainready
