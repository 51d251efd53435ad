#include "iac/arm_template.h"

#include <set>
#include <vector>

#include "core/input_error.h"
#include "core/text.h"
#include "iac/arm_expression.h"
#include "iac/inline_suppressions.h"
#include "iac/json_fields.h"

namespace trainready {
namespace {

using json = nlohmann::json;

const json* find_ci(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  if (auto it = obj.find(key); it != obj.end()) return &*it;
  std::string k = to_lower(key);
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (to_lower(it.key()) == k) return &it.value();
  }
  return nullptr;
}

ArmValue value_of(const json& v, ArmScope& scope) {
  if (v.is_string() && is_arm_expression(v.get_ref<const std::string&>()))
    return evaluate_arm_expression(v.get_ref<const std::string&>(), scope);
  return ArmValue::of(evaluate_arm_json(v, scope));
}

// Coerces a supplied value to the parameter's declared type (-p count=4 arrives as a string).
json coerce(const json& declared, json v) {
  const json* type = find_ci(declared, "type");
  if (type == nullptr || !type->is_string() || !v.is_string()) return v;
  std::string t = to_lower(type->get<std::string>());
  const auto& s = v.get_ref<const std::string&>();
  if (t == "int") {
    if (auto i = parse_int(s)) return *i;
  } else if (t == "bool") {
    if (iequals(s, "true")) return true;
    if (iequals(s, "false")) return false;
  } else if (t == "object" || t == "array") {
    if (auto j = parse_embedded_json(s)) return *j;
  }
  return v;
}

// The parameters, variables and copy loops one template's expressions see.
class TemplateScope : public ArmScope {
 public:
  TemplateScope(const json& tpl, std::map<std::string, ArmValue> given)
      : params_(find_ci(tpl, "parameters")),
        vars_(find_ci(tpl, "variables")),
        given_(std::move(given)) {}

  ArmValue parameter(const std::string& name) override {
    std::string key = to_lower(name);
    if (auto it = param_cache_.find(key); it != param_cache_.end()) return it->second;
    const json* decl = params_ != nullptr ? find_ci(*params_, name) : nullptr;
    ArmValue r;
    if (auto g = given_.find(key); g != given_.end()) {
      r = g->second;
      if (r.known && decl != nullptr) r.value = coerce(*decl, std::move(r.value));
    } else if (decl == nullptr) {
      r = ArmValue::unknown("parameter '" + name + "' is not declared");
    } else if (const json* def = find_ci(*decl, "defaultValue")) {
      if (!enter("p:" + key)) return ArmValue::unknown("parameter '" + name + "' refers to itself");
      r = value_of(*def, *this);
      leave("p:" + key);
    } else {
      r = ArmValue::unknown("parameter '" + name + "' has no value (pass a parameters file or -p " +
                            name + "=...)");
    }
    param_cache_[key] = r;
    return r;
  }

  ArmValue variable(const std::string& name) override {
    std::string key = to_lower(name);
    if (auto it = var_cache_.find(key); it != var_cache_.end()) return it->second;
    if (vars_ == nullptr) return ArmValue::unknown("variable '" + name + "' is not declared");
    ArmValue r;
    if (const json* def = find_ci(*vars_, name)) {
      if (!enter("v:" + key)) return ArmValue::unknown("variable '" + name + "' refers to itself");
      r = value_of(*def, *this);
      leave("v:" + key);
    } else if (const json* loops = find_ci(*vars_, "copy"); loops != nullptr && loops->is_array()) {
      r = variable_copy(*loops, name);
    } else {
      r = ArmValue::unknown("variable '" + name + "' is not declared");
    }
    var_cache_[key] = r;
    return r;
  }

  std::optional<long long> copy_index(const std::string& loop) const override {
    for (auto it = copies_.rbegin(); it != copies_.rend(); ++it) {
      if (loop.empty() || iequals(it->first, loop)) return it->second;
    }
    return std::nullopt;
  }

  // Parameters and variables cannot use copyIndex() (variable copy loops have their own
  // index), so their caches stay valid across resource loops.
  void push_copy(std::string name, long long index) {
    copies_.emplace_back(std::move(name), index);
  }
  void pop_copy() { copies_.pop_back(); }

 private:
  bool enter(const std::string& k) { return active_.insert(k).second; }
  void leave(const std::string& k) { active_.erase(k); }

  ArmValue variable_copy(const json& loops, const std::string& name) {
    for (const auto& loop : loops) {
      const json* n = find_ci(loop, "name");
      if (n == nullptr || !n->is_string() || !iequals(n->get<std::string>(), name)) continue;
      const json* count = find_ci(loop, "count");
      const json* input = find_ci(loop, "input");
      if (count == nullptr || input == nullptr) return ArmValue::unknown("copy loop without count");
      ArmValue c = value_of(*count, *this);
      if (!c.known || !c.value.is_number_integer()) return ArmValue::unknown("copy count unknown");
      auto k = c.value.get<long long>();
      if (k < 0 || k > 10000) return ArmValue::unknown("copy count out of range");
      json arr = json::array();
      for (long long i = 0; i < k; ++i) {
        copies_.emplace_back(name, i);
        arr.push_back(evaluate_arm_json(*input, *this));
        copies_.pop_back();
      }
      return ArmValue::of(std::move(arr));
    }
    return ArmValue::unknown("variable '" + name + "' is not declared");
  }

  const json* params_;
  const json* vars_;
  std::map<std::string, ArmValue> given_;
  std::map<std::string, ArmValue> param_cache_;
  std::map<std::string, ArmValue> var_cache_;
  std::set<std::string> active_;
  std::vector<std::pair<std::string, long long>> copies_;
};

struct PendingExtension {
  std::string parent;  // lower-case VM / scale set name, "" when unknown
  VmExtension ext;
};

class TemplateWalker {
 public:
  TemplateWalker(const LocatedJson& doc, std::string file, DeploymentFacts* out)
      : doc_(doc), file_(std::move(file)), out_(out) {}

  void walk(const json& tpl, const std::string& base, TemplateScope& scope, long long copies,
            bool copies_known, int depth) {
    const json* resources = find_ci(tpl, "resources");
    if (resources == nullptr) return;
    if (depth > 16) {
      note(base, "nested deployments deeper than 16 levels not followed");
      return;
    }
    auto each = [&](const json& r, const std::string& ptr, const std::string& symbolic) {
      if (r.is_object()) resource(r, ptr, symbolic, scope, copies, copies_known, depth, "");
    };
    if (resources->is_array()) {
      for (std::size_t i = 0; i < resources->size(); ++i)
        each((*resources)[i], base + "/resources/" + std::to_string(i), "");
    } else if (resources->is_object()) {
      for (auto it = resources->begin(); it != resources->end(); ++it)
        each(it.value(), base + "/resources/" + json_pointer_token(it.key()), it.key());
    }
  }

  void finish() {
    // Extensions attach to their VM or scale set by name (one index, not a scan per extension).
    std::map<std::string, std::size_t> by_name;
    std::vector<std::size_t> owners;
    for (std::size_t i = 0; i < out_->resources.size(); ++i) {
      const auto& r = out_->resources[i];
      if (r.format != "arm" ||
          (r.kind != ResourceKind::kVirtualMachine && r.kind != ResourceKind::kScaleSet))
        continue;
      owners.push_back(i);
      by_name.emplace(to_lower(r.name), i);
    }
    for (auto& p : extensions_) {
      if (auto it = by_name.find(p.parent); !p.parent.empty() && it != by_name.end()) {
        out_->resources[it->second].extensions.push_back(p.ext);
      } else if (owners.size() == 1) {
        out_->resources[owners.front()].extensions.push_back(p.ext);
      }
    }
  }

 private:
  void note(const std::string& ptr, const std::string& what) {
    out_->notes.push_back(file_ + ":" + std::to_string(doc_.line_of(ptr)) + ": " + what);
  }

  void resource(const json& r, const std::string& ptr, const std::string& symbolic,
                TemplateScope& scope, long long copies, bool copies_known, int depth,
                const std::string& parent_name) {
    if (depth > 32) {
      note(ptr, "resources nested deeper than 32 levels not read");
      return;
    }
    if (const json* ex = find_ci(r, "existing");
        ex != nullptr && ex->is_boolean() && ex->get<bool>())
      return;  // declared elsewhere, only referenced here
    const json* type_v = find_ci(r, "type");
    if (type_v == nullptr || !type_v->is_string()) return;
    std::string type = type_v->get<std::string>();
    std::string ltype = to_lower(type);

    bool conditional = false;
    if (const json* cond = find_ci(r, "condition")) {
      ArmValue c = value_of(*cond, scope);
      if (c.known && c.value.is_boolean() && !c.value.get<bool>()) return;
      if (c.known && c.value.is_boolean()) {
        // deployed
      } else {
        conditional = true;
        note(ptr + "/condition",
             "condition not resolved (" + c.why + "); the resource is linted as if deployed");
      }
    }

    std::string loop_name;
    long long n = 1;
    bool n_known = true;
    if (const json* copy = find_ci(r, "copy"); copy != nullptr && copy->is_object()) {
      if (const json* nm = find_ci(*copy, "name"); nm != nullptr && nm->is_string())
        loop_name = nm->get<std::string>();
      if (const json* c = find_ci(*copy, "count")) {
        ArmValue cv = value_of(*c, scope);
        if (cv.known && cv.value.is_number_integer() && cv.value.get<long long>() <= 100000) {
          n = cv.value.get<long long>();
          if (n <= 0) return;
        } else {
          n_known = false;
          note(ptr + "/copy/count",
               "copy count not resolved (" + (cv.known ? "out of range" : cv.why) + ")");
        }
      }
    }
    const bool in_loop = find_ci(r, "copy") != nullptr;
    long long total = 1;
    const bool total_known = copies_known && n_known &&
                             !__builtin_mul_overflow(copies, n, &total) &&
                             total <= 1'000'000'000'000LL;
    if (!total_known) total = 1;
    // One iteration stands for all: what differs between copies is names, not sizes.
    if (in_loop) scope.push_copy(loop_name, 0);

    if (ltype == "microsoft.resources/deployments") {
      nested(r, ptr, scope, total, total_known, depth);
    } else {
      json ev = json::object();
      for (auto it = r.begin(); it != r.end(); ++it) {
        if (it.key() == "resources" || it.key() == "copy" || it.key() == "condition") continue;
        ev[it.key()] = evaluate_arm_json(it.value(), scope);
      }
      std::string name = parent_name;
      if (const json* nm = find_ci(ev, "name"); nm != nullptr && nm->is_string()) {
        name = parent_name.empty() ? nm->get<std::string>()
                                   : parent_name + "/" + nm->get<std::string>();
      }
      extract(type, ltype, ev, r, ptr, symbolic, name, total, total_known, conditional);
      // Child resources declared inside this one (extensions under a VM).
      if (const json* kids = find_ci(r, "resources"); kids != nullptr && kids->is_array()) {
        for (std::size_t i = 0; i < kids->size(); ++i) {
          const json& k = (*kids)[i];
          if (!k.is_object()) continue;
          json kid = k;
          if (const json* kt = find_ci(kid, "type");
              kt != nullptr && kt->is_string() &&
              kt->get<std::string>().find('/') == std::string::npos)
            kid["type"] = type + "/" + kt->get<std::string>();
          resource(kid, ptr + "/resources/" + std::to_string(i), "", scope, total, total_known,
                   depth + 1, name);
        }
      }
    }
    if (in_loop) scope.pop_copy();
  }

  void nested(const json& r, const std::string& ptr, TemplateScope& scope, long long copies,
              bool copies_known, int depth) {
    const json* props = find_ci(r, "properties");
    if (props == nullptr) return;
    if (find_ci(*props, "templateLink") != nullptr) {
      note(ptr + "/properties/templateLink",
           "linked template not read; lint it separately with its parameters");
      return;
    }
    const json* tpl = find_ci(*props, "template");
    if (tpl == nullptr || !tpl->is_object()) return;
    std::string inner_ptr = ptr + "/properties/template";
    bool inner = false;
    if (const json* opts = find_ci(*props, "expressionEvaluationOptions")) {
      if (const json* sc = find_ci(*opts, "scope"); sc != nullptr && sc->is_string())
        inner = iequals(sc->get<std::string>(), "inner");
    }
    if (!inner) {
      walk(*tpl, inner_ptr, scope, copies, copies_known, depth + 1);
      return;
    }
    std::map<std::string, ArmValue> given;
    if (const json* ps = find_ci(*props, "parameters"); ps != nullptr && ps->is_object()) {
      for (auto it = ps->begin(); it != ps->end(); ++it) {
        ArmValue entry = value_of(it.value(), scope);
        ArmValue v;
        if (!entry.known) {
          v = entry;
        } else if (const json* val = find_ci(entry.value, "value")) {
          v = val->is_string() && is_arm_expression(val->get_ref<const std::string&>())
                  ? ArmValue::unknown("outer value " + val->get<std::string>() + " not resolved")
                  : ArmValue::of(*val);
        } else {
          v = ArmValue::unknown("parameter '" + it.key() + "' is a Key Vault reference");
        }
        given[to_lower(it.key())] = v;
      }
    }
    TemplateScope inner_scope(*tpl, std::move(given));
    walk(*tpl, inner_ptr, inner_scope, copies, copies_known, depth + 1);
  }

  void extract(const std::string& type, const std::string& ltype, const json& ev, const json& raw,
               const std::string& ptr, const std::string& symbolic, const std::string& name,
               long long copies, bool copies_known, bool conditional) {
    JsonFields f(ev, doc_, ptr, file_);
    DeploymentResource d;
    d.type = type;
    d.format = "arm";
    d.name = name;
    d.address = symbolic.empty() ? name : symbolic;
    d.where = Provenance{file_, doc_.line_of(ptr)};
    d.conditional = conditional;
    Setting<long long> copies_setting =
        copies_known ? Setting<long long>::known(copies, std::to_string(copies), d.where)
                     : Setting<long long>::unknown("copy count", d.where);
    read_arm_suppressions(raw, doc_, ptr, file_, &d);

    if (ltype == "microsoft.compute/virtualmachines") {
      d.kind = ResourceKind::kVirtualMachine;
      d.vm_size = f.text("/properties/hardwareProfile/vmSize");
      d.count = copies_setting;
      d.availability_set = f.id_name("/properties/availabilitySet/id");
      d.scale_set = f.id_name("/properties/virtualMachineScaleSet/id");
      image(f, "/properties/storageProfile/imageReference", &d);
      f.boot_script("osProfile.customData", "/properties/osProfile/customData", &d.boot_scripts);
      f.boot_script("userData", "/properties/userData", &d.boot_scripts);
    } else if (ltype == "microsoft.compute/virtualmachinescalesets") {
      d.kind = ResourceKind::kScaleSet;
      d.vm_size = f.text("/sku/name");
      d.count = f.integer("/sku/capacity");
      d.single_placement_group = f.boolean("/properties/singlePlacementGroup");
      d.orchestration_mode = f.text("/properties/orchestrationMode");
      d.platform_fault_domain_count = f.integer("/properties/platformFaultDomainCount");
      if (d.orchestration_mode.is_known() && iequals(d.orchestration_mode.value, "Flexible") &&
          d.platform_fault_domain_count.is_known() && d.platform_fault_domain_count.value == 1)
        d.spg_default_false_because =
            "a Flexible scale set with platformFaultDomainCount 1 (max spreading) gets "
            "singlePlacementGroup false when it is not set";
      const std::string vp = "/properties/virtualMachineProfile";
      image(f, vp + "/storageProfile/imageReference", &d);
      f.boot_script("virtualMachineProfile.osProfile.customData", vp + "/osProfile/customData",
                    &d.boot_scripts);
      f.boot_script("virtualMachineProfile.userData", vp + "/userData", &d.boot_scripts);
      if (const json* exts = f.at(vp + "/extensionProfile/extensions"); exts && exts->is_array()) {
        for (std::size_t i = 0; i < exts->size(); ++i) {
          std::string e = vp + "/extensionProfile/extensions/" + std::to_string(i) + "/properties";
          Setting<std::string> pub = f.text(e + "/publisher");
          Setting<std::string> typ = f.text(e + "/type");
          d.extensions.push_back(VmExtension{pub.value, typ.value, f.where(e + "/type")});
        }
      }
      if (copies_known && copies > 1)
        note(ptr + "/copy", "scale set defined " + std::to_string(copies) +
                                " times by a copy loop: each copy is its own scale set");
    } else if (ltype == "microsoft.compute/availabilitysets") {
      d.kind = ResourceKind::kAvailabilitySet;
      d.count = copies_setting;
    } else if (ltype == "microsoft.network/virtualnetworks") {
      d.kind = ResourceKind::kVirtualNetwork;
      if (const json* pre = f.at("/properties/addressSpace/addressPrefixes");
          pre && pre->is_array()) {
        for (std::size_t i = 0; i < pre->size(); ++i) {
          std::string p = "/properties/addressSpace/addressPrefixes/" + std::to_string(i);
          Setting<std::string> c = f.text(p);
          if (c.is_known()) d.address_prefixes.push_back(AddressPrefix{c.value, c.where});
        }
      }
    } else if (ltype == "microsoft.containerservice/managedclusters") {
      if (const json* pools = f.at("/properties/agentPoolProfiles"); pools && pools->is_array()) {
        for (std::size_t i = 0; i < pools->size(); ++i) {
          std::string p = "/properties/agentPoolProfiles/" + std::to_string(i);
          DeploymentResource pool = d;
          pool.kind = ResourceKind::kAksNodePool;
          Setting<std::string> pn = f.text(p + "/name");
          pool.name = name + "/" + (pn.is_known() ? pn.value : std::to_string(i));
          pool.address = pool.name;
          pool.where = f.where(p);
          pool.vm_size = f.text(p + "/vmSize");
          pool.count = f.integer(p + "/count");
          out_->resources.push_back(std::move(pool));
        }
      }
      return;
    } else if (ltype == "microsoft.containerservice/managedclusters/agentpools") {
      d.kind = ResourceKind::kAksNodePool;
      d.vm_size = f.text("/properties/vmSize");
      d.count = f.integer("/properties/count");
    } else if (ltype == "microsoft.compute/virtualmachines/extensions" ||
               ltype == "microsoft.compute/virtualmachinescalesets/extensions") {
      Setting<std::string> pub = f.text("/properties/publisher");
      Setting<std::string> typ = f.text("/properties/type");
      auto slash = name.find('/');
      extensions_.push_back(PendingExtension{
          slash == std::string::npos ? std::string() : to_lower(name.substr(0, slash)),
          VmExtension{pub.value, typ.value, f.where("/properties/type")}});
      return;
    } else {
      return;
    }
    out_->resources.push_back(std::move(d));
  }

  static void image(const JsonFields& f, const std::string& p, DeploymentResource* d) {
    d->image_publisher = f.text(p + "/publisher");
    d->image_offer = f.text(p + "/offer");
    d->image_sku = f.text(p + "/sku");
    d->image_id = f.text(p + "/id");
    if (d->image_publisher.is_unset() && d->image_id.is_unset()) {
      // The whole reference may be one unresolved expression.
      Setting<std::string> whole = f.text(p);
      if (whole.is_unknown()) d->image_id = whole;
    }
  }

  const LocatedJson& doc_;
  std::string file_;
  DeploymentFacts* out_;
  std::vector<PendingExtension> extensions_;
};

}  // namespace

bool looks_like_arm_parameters(const json& doc) {
  if (!doc.is_object()) return false;
  if (const json* s = find_ci(doc, "$schema"); s != nullptr && s->is_string())
    return icontains(s->get<std::string>(), "deploymentParameters");
  return false;
}

bool looks_like_arm_template(const json& doc) {
  if (!doc.is_object()) return false;
  if (const json* s = find_ci(doc, "$schema"); s != nullptr && s->is_string())
    return icontains(s->get<std::string>(), "deploymentTemplate");
  return find_ci(doc, "resources") != nullptr && find_ci(doc, "contentVersion") != nullptr;
}

void read_arm_parameters(const LocatedJson& doc, const std::string& file, ArmParameterValues* out) {
  const json* ps = find_ci(doc.value, "parameters");
  if (ps == nullptr || !ps->is_object())
    throw InputError(file, 1, "expected an ARM parameters file with a \"parameters\" object");
  for (auto it = ps->begin(); it != ps->end(); ++it) {
    std::string key = to_lower(it.key());
    int line = doc.line_of("/parameters/" + json_pointer_token(it.key()));
    if (!it.value().is_object())
      throw InputError(file, line, "expected {\"value\": ...} for parameter '" + it.key() + "'");
    if (const json* v = find_ci(it.value(), "value")) {
      out->values[key] = *v;
      out->unresolvable.erase(key);
    } else if (find_ci(it.value(), "reference") != nullptr) {
      out->unresolvable[key] = "a Key Vault reference";
      out->values.erase(key);
    } else {
      throw InputError(file, line,
                       "expected \"value\" or \"reference\" in parameter '" + it.key() + "'");
    }
  }
}

void read_arm_template(const LocatedJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out) {
  if (!looks_like_arm_template(doc.value))
    throw InputError(file, 1, "expected an ARM template (\"$schema\" deploymentTemplate.json)");
  std::map<std::string, ArmValue> given;
  for (const auto& [k, v] : params.values) given[k] = ArmValue::of(v);
  for (const auto& [k, why] : params.unresolvable) given[k] = ArmValue::unknown(why);
  TemplateScope scope(doc.value, std::move(given));
  TemplateWalker walker(doc, file, out);
  walker.walk(doc.value, "", scope, 1, true, 0);
  walker.finish();
}

}  // namespace trainready
