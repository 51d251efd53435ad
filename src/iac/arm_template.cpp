#include "iac/arm_template.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>
#include <system_error>
#include <vector>

#include "core/input_error.h"
#include "core/root.h"
#include "core/text.h"
#include "iac/arm_expression.h"
#include "iac/inline_suppressions.h"
#include "iac/json_fields.h"

namespace trainready {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

const json* find_ci(const json& obj, const std::string& key) { return arm_find_ci(obj, key); }

ArmValue value_of(const json& v, ArmScope& scope) {
  if (v.is_string() && is_arm_expression(v.get_ref<const std::string&>()))
    return evaluate_arm_expression(v.get_ref<const std::string&>(), scope);
  return ArmValue::of(evaluate_arm_json(v, scope));
}

// The parameters, variables and copy loops one template's expressions see.
class TemplateScope : public ArmScope {
 public:
  TemplateScope(const json& tpl, std::map<std::string, ArmValue> given)
      : params_(find_ci(tpl, "parameters")),
        vars_(find_ci(tpl, "variables")),
        functions_(find_ci(tpl, "functions")),
        given_(std::move(given)) {}

  ArmValue user_function(const std::string& name, const std::vector<json>& args) override;

  // The template's own location, for deployment().properties.templateLink.uri.
  void set_self_uri(std::string uri) { self_uri_ = std::move(uri); }
  ArmValue deployment() override {
    if (self_uri_.empty()) return ArmScope::deployment();
    // Only the location is known; deployment().name and the rest stay unknown.
    return ArmValue::of(json{{"properties", {{"templateLink", {{"uri", self_uri_}}}}}});
  }

  ArmValue parameter(const std::string& name) override {
    std::string key = to_lower(name);
    if (auto it = param_cache_.find(key); it != param_cache_.end()) return it->second;
    const json* decl = params_ != nullptr ? find_ci(*params_, name) : nullptr;
    ArmValue r;
    if (auto g = given_.find(key); g != given_.end()) {
      r = g->second;  // converted and checked by check_arm_parameters
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
  const json* functions_;
  std::string self_uri_;
  int function_depth_ = 0;
  std::map<std::string, ArmValue> given_;
  std::map<std::string, ArmValue> param_cache_;
  std::map<std::string, ArmValue> var_cache_;
  std::set<std::string> active_;
  std::vector<std::pair<std::string, long long>> copies_;
};

// The body of a user-defined function: its parameters are the call's arguments; variables
// (Bicep-imported ones, "_1.x") and other functions are the template's.
class FunctionScope : public ArmScope {
 public:
  FunctionScope(TemplateScope& outer, std::map<std::string, json> args)
      : outer_(outer), args_(std::move(args)) {}
  ArmValue parameter(const std::string& name) override {
    if (auto it = args_.find(to_lower(name)); it != args_.end()) return ArmValue::of(it->second);
    return ArmValue::unknown("function parameter '" + name + "' is not declared");
  }
  ArmValue variable(const std::string& name) override { return outer_.variable(name); }
  std::optional<long long> copy_index(const std::string& /*loop*/) const override {
    return std::nullopt;
  }
  ArmValue user_function(const std::string& name, const std::vector<json>& args) override {
    return outer_.user_function(name, args);
  }
  ArmValue deployment() override { return outer_.deployment(); }

 private:
  TemplateScope& outer_;
  std::map<std::string, json> args_;
};

ArmValue TemplateScope::user_function(const std::string& name, const std::vector<json>& args) {
  auto dot = name.find('.');
  const std::string ns = name.substr(0, dot);
  const std::string member = name.substr(dot + 1);
  const json* def = nullptr;
  if (functions_ != nullptr && functions_->is_array()) {
    for (const auto& f : *functions_) {
      const json* n = find_ci(f, "namespace");
      if (n == nullptr || !n->is_string() || !iequals(n->get<std::string>(), ns)) continue;
      if (const json* members = find_ci(f, "members")) def = find_ci(*members, member);
      if (def != nullptr) break;
    }
  }
  if (def == nullptr) return ArmValue::unknown("user-defined function " + name + "() not declared");
  const json* output = find_ci(*def, "output");
  const json* body = output != nullptr ? find_ci(*output, "value") : nullptr;
  if (body == nullptr) return ArmValue::unknown(name + "() has no output value");
  std::map<std::string, json> bound;
  if (const json* ps = find_ci(*def, "parameters"); ps != nullptr && ps->is_array()) {
    if (ps->size() != args.size())
      return ArmValue::unknown(name + "() takes " + std::to_string(ps->size()) + " arguments");
    for (std::size_t i = 0; i < ps->size(); ++i) {
      const json* pn = find_ci((*ps)[i], "name");
      if (pn != nullptr && pn->is_string()) bound[to_lower(pn->get<std::string>())] = args[i];
    }
  }
  if (function_depth_ >= 32) return ArmValue::unknown(name + "() nested too deep");
  ++function_depth_;
  FunctionScope fs(*this, std::move(bound));
  ArmValue r = value_of(*body, fs);
  --function_depth_;
  return r;
}

struct PendingExtension {
  std::string parent;  // lower-case VM / scale set name, "" when unknown
  VmExtension ext;
};

// What every walker of one lint run shares: the linked templates read so far (their DOMs must
// outlive the walk), the URI map, and the extensions waiting for their VM.
struct WalkShared {
  const ArmLinkOptions* links = nullptr;
  std::deque<std::pair<std::string, LocatedJson>> docs;  // path → parsed linked template
  std::vector<PendingExtension> extensions;
};

constexpr std::size_t kMaxLinkedBytes = kMaxDeploymentBytes;

std::string file_uri(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return "file://" + (ec ? path : abs.lexically_normal().string());
}

class TemplateWalker {
 public:
  TemplateWalker(const LocatedJson& doc, std::string file, DeploymentFacts* out, WalkShared* shared,
                 const DeploymentJson* lazy = nullptr)
      : doc_(&doc), file_(std::move(file)), out_(out), shared_(shared), lazy_(lazy) {}

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
      // The file's own resources may still be text: each is parsed, read and dropped.
      const bool own = lazy_ != nullptr && &tpl == &lazy_->json.value;
      // Room for one record per resource up front: grown by doubling, the records were moved
      // into a buffer twice their size while the old one was still held (77,000 resources: a
      // transient 30 MiB on top of the walk's peak). Pages never written are never resident.
      // Reserved exactly only for the first file: later files of the same deployment grow it by
      // doubling (an exact reserve per file would move every record read so far each time).
      if (own) {
        auto& rs = out_->resources;
        const std::size_t need = rs.size() + resources->size();
        if (need > rs.capacity()) rs.reserve(rs.empty() ? need : std::max(need, 2 * rs.capacity()));
      }
      for (std::size_t i = 0; i < resources->size(); ++i) {
        if (own && lazy_->deferred(i)) {
          const LocatedJson piece = lazy_->resource(i);
          const LocatedJson* whole = doc_;
          doc_ = &piece;
          each(piece.value, base + "/resources/" + std::to_string(i), "");
          doc_ = whole;
          continue;
        }
        each((*resources)[i], base + "/resources/" + std::to_string(i), "");
      }
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
    for (auto& p : shared_->extensions) {
      if (auto it = by_name.find(p.parent); !p.parent.empty() && it != by_name.end()) {
        out_->resources[it->second].extensions.push_back(p.ext);
      } else if (owners.size() == 1) {
        out_->resources[owners.front()].extensions.push_back(p.ext);
      }
    }
  }

 private:
  void note(const std::string& ptr, const std::string& what) {
    out_->notes.push_back(file_ + ":" + std::to_string(doc_->line_of(ptr)) + ": " + what);
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
      // The resource's members are evaluated where extract reads them (JsonFields::evaluate_in).
      std::string name = parent_name;
      if (const json* nm_raw = find_ci(r, "name")) {
        const json nm = evaluate_arm_json(*nm_raw, scope);
        if (nm.is_string())
          name = parent_name.empty() ? nm.get<std::string>()
                                     : parent_name + "/" + nm.get<std::string>();
      }
      extract(type, ltype, r, ptr, symbolic, name, total, total_known, conditional, scope);
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
    if (const json* link = find_ci(*props, "templateLink")) {
      linked(*props, *link, ptr, scope, copies, copies_known, depth);
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
    TemplateScope inner_scope(*tpl, passed_parameters(*props, scope));
    walk(*tpl, inner_ptr, inner_scope, copies, copies_known, depth + 1);
  }

  void extract(const std::string& type, const std::string& ltype, const json& raw,
               const std::string& ptr, const std::string& symbolic, const std::string& name,
               long long copies, bool copies_known, bool conditional, ArmScope& scope) {
    JsonFields f(raw, *doc_, ptr, file_);
    f.evaluate_in(&scope);
    DeploymentResource d;
    d.type = type;
    d.format = "arm";
    d.name = name;
    d.address = symbolic.empty() ? name : symbolic;
    d.where = Provenance{file_, doc_->line_of(ptr)};
    d.conditional = conditional;
    Setting<long long> copies_setting =
        copies_known ? Setting<long long>::known(copies, std::to_string(copies), d.where)
                     : Setting<long long>::unknown("copy count", d.where);
    read_arm_suppressions(raw, *doc_, ptr, file_, &d);

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
      d.placement->single_placement_group = f.boolean("/properties/singlePlacementGroup");
      d.placement->orchestration_mode = f.text("/properties/orchestrationMode");
      d.placement->platform_fault_domain_count = f.integer("/properties/platformFaultDomainCount");
      if (d.placement->orchestration_mode.is_known() &&
          iequals(d.placement->orchestration_mode.value, "Flexible") &&
          d.placement->platform_fault_domain_count.is_known() &&
          d.placement->platform_fault_domain_count.value == 1)
        d.placement->spg_default_false_because =
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
      if (copies_known && copies > 1) {
        // Each copy is its own scale set, so its own InfiniBand partition: three copies of a
        // linked scale-set template are three groups, not one.
        constexpr long long kMaxCopies = 1000;
        const long long k = std::min(copies, kMaxCopies);
        for (long long i = 0; i < k; ++i) {
          DeploymentResource c = d;
          c.name =
              d.name + " (copy " + std::to_string(i + 1) + " of " + std::to_string(copies) + ")";
          c.address = c.name;
          out_->resources.push_back(std::move(c));
        }
        if (copies > k)
          note(ptr, "scale set defined " + std::to_string(copies) +
                        " times by copy loops; the first " + std::to_string(k) + " are linted");
        return;
      }
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
          if (c.is_known()) d.network->address_prefixes.push_back(AddressPrefix{c.value, c.where});
        }
      }
      if (const json* subs = f.at("/properties/subnets"); subs && subs->is_array()) {
        for (std::size_t i = 0; i < subs->size(); ++i)
          subnet_prefixes(f, "/properties/subnets/" + std::to_string(i) + "/properties", &d);
      }
    } else if (ltype == "microsoft.network/virtualnetworks/subnets") {
      d.kind = ResourceKind::kSubnet;
      subnet_prefixes(f, "/properties", &d);
    } else if (ltype == "microsoft.storagecache/amlfilesystems") {
      d.kind = ResourceKind::kManagedLustre;
      d.lustre->lustre_sku = f.text("/sku/name");
      d.lustre->lustre_capacity_tib = f.integer("/properties/storageCapacityTiB");
      d.lustre->lustre_subnet = f.text("/properties/filesystemSubnet");
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
      shared_->extensions.push_back(PendingExtension{
          slash == std::string::npos ? std::string() : to_lower(name.substr(0, slash)),
          VmExtension{pub.value, typ.value, f.where("/properties/type")}});
      return;
    } else {
      return;
    }
    out_->resources.push_back(std::move(d));
  }

  // A subnet's addressPrefix, or each of its addressPrefixes.
  static void subnet_prefixes(const JsonFields& f, const std::string& p, DeploymentResource* d) {
    Setting<std::string> one = f.text(p + "/addressPrefix");
    if (one.is_known()) d->network->subnet_prefixes.push_back(AddressPrefix{one.value, one.where});
    if (const json* many = f.at(p + "/addressPrefixes"); many && many->is_array()) {
      for (std::size_t i = 0; i < many->size(); ++i) {
        Setting<std::string> c = f.text(p + "/addressPrefixes/" + std::to_string(i));
        if (c.is_known()) d->network->subnet_prefixes.push_back(AddressPrefix{c.value, c.where});
      }
    }
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

  // The file a templateLink stands for, or "" with `why` set.
  std::string linked_path(const json& link, const std::string& ptr, TemplateScope& scope,
                          std::string* why) const {
    const fs::path dir = fs::path(file_).parent_path();
    if (const json* rel = find_ci(link, "relativePath")) {
      ArmValue v = value_of(*rel, scope);
      if (v.known && v.value.is_string()) return (dir / v.value.get<std::string>()).string();
      *why = "relativePath not resolved";
      return {};
    }
    const json* uri_v = find_ci(link, "uri");
    if (uri_v == nullptr) {
      *why = "templateLink has neither uri nor relativePath (a template spec id is not read)";
      return {};
    }
    ArmValue v = value_of(*uri_v, scope);
    if (!v.known || !v.value.is_string()) {
      *why = "uri " + (uri_v->is_string() ? uri_v->get<std::string>() : std::string("(not text)")) +
             " not resolved (" + (v.known ? "not text" : v.why) +
             "); map it with --template-uri-map";
      return {};
    }
    std::string uri = v.value.get<std::string>();
    if (auto q = uri.find('?'); q != std::string::npos) uri.erase(q);  // SAS token
    for (const auto& [from, to] : shared_->links->uri_map) {
      if (uri == from) return to;
      if (!from.empty() && from.back() == '/' && uri.rfind(from, 0) == 0)
        return (fs::path(to) / uri.substr(from.size())).string();
      if (uri.rfind(from + "/", 0) == 0)
        return (fs::path(to) / uri.substr(from.size() + 1)).string();
    }
    if (uri.rfind("file://", 0) == 0) return uri.substr(7);
    *why = "uri " + uri + " is not on disk; map it with --template-uri-map " + uri + "=PATH";
    (void)ptr;
    return {};
  }

  // Reads a linked template once per run; nullptr with `why` set when it cannot be.
  const LocatedJson* load(const std::string& path, std::string* why) {
    for (const auto& [p, d] : shared_->docs)
      if (p == path) return &d;
    FileRead r = FsRoot("/").read_file(path, kMaxLinkedBytes);
    if (!r.ok()) {
      *why = path + ": " + r.error;
      return nullptr;
    }
    try {
      LocatedJson d = parse_located_json(r.data, path, JsonDialect::kArm);
      if (!looks_like_arm_template(d.value)) {
        *why = path + ": not an ARM template";
        return nullptr;
      }
      shared_->docs.emplace_back(path, std::move(d));
    } catch (const InputError& e) {
      *why = e.what();
      return nullptr;
    }
    return &shared_->docs.back().second;
  }

  // A deployment resource's `parameters` block, evaluated in the scope that deploys it.
  static std::map<std::string, ArmValue> passed_parameters(const json& props,
                                                           TemplateScope& scope) {
    std::map<std::string, ArmValue> given;
    const json* ps = find_ci(props, "parameters");
    if (ps == nullptr || !ps->is_object()) return given;
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
    return given;
  }

  void linked(const json& props, const json& link, const std::string& ptr, TemplateScope& scope,
              long long copies, bool copies_known, int depth) {
    const std::string at = ptr + "/properties/templateLink";
    std::string why = "linked templates are not read from an in-memory document";
    std::string path = shared_->links->read_linked ? linked_path(link, at, scope, &why) : "";
    if (!path.empty()) {
      // Shown as the user would type it: relative to the working directory when under it.
      fs::path p = fs::path(path).lexically_normal();
      std::error_code ec;
      if (p.is_absolute()) {
        fs::path rel = p.lexically_relative(fs::current_path(ec));
        if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) p = rel;
      }
      path = p.string();
    }
    const LocatedJson* child = path.empty() ? nullptr : load(path, &why);
    if (child == nullptr) {
      out_->unread.push_back(file_ + ":" + std::to_string(doc_->line_of(at)) +
                             ": linked template not read: " + why);
      return;
    }
    if (find_ci(props, "parametersLink") != nullptr)
      note(ptr + "/properties/parametersLink",
           "parametersLink not read; the linked template's parameters take their defaults");
    TemplateScope child_scope(child->value, passed_parameters(props, scope));
    child_scope.set_self_uri(file_uri(path));
    TemplateWalker w(*child, path, out_, shared_);
    w.walk(child->value, "", child_scope, copies, copies_known, depth + 1);
  }

  const LocatedJson* doc_;  // lines: the whole file's, or the one resource's being read
  std::string file_;
  DeploymentFacts* out_;
  WalkShared* shared_;
  const DeploymentJson* lazy_;  // the file's deferred resources, or nullptr
};

}  // namespace

bool looks_like_arm_template(const json& doc) {
  if (!doc.is_object()) return false;
  if (const json* s = find_ci(doc, "$schema"); s != nullptr && s->is_string())
    return icontains(s->get<std::string>(), "deploymentTemplate");
  return find_ci(doc, "resources") != nullptr && find_ci(doc, "contentVersion") != nullptr;
}

namespace {
void read_template(const LocatedJson& doc, const DeploymentJson* lazy, const std::string& file,
                   const ArmParameterValues& params, DeploymentFacts* out,
                   const ArmLinkOptions& links) {
  if (!looks_like_arm_template(doc.value))
    throw InputError(file, 1, "expected an ARM template (\"$schema\" deploymentTemplate.json)");
  CheckedParameters checked = check_arm_parameters(doc, file, params);
  for (auto& p : checked.problems) out->parameter_problems.push_back(std::move(p));
  for (auto& n : checked.notes) out->notes.push_back(std::move(n));
  TemplateScope scope(doc.value, std::move(checked.given));
  if (file != "<stdin>") scope.set_self_uri(file_uri(file));
  WalkShared shared;
  shared.links = &links;
  TemplateWalker walker(doc, file, out, &shared, lazy);
  walker.walk(doc.value, "", scope, 1, true, 0);
  walker.finish();
}
}  // namespace

void read_arm_template(const LocatedJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out,
                       const ArmLinkOptions& links) {
  read_template(doc, nullptr, file, params, out, links);
}

void read_arm_template(const DeploymentJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out,
                       const ArmLinkOptions& links) {
  read_template(doc.json, doc.resources.empty() ? nullptr : &doc, file, params, out, links);
}

}  // namespace trainready
