#include "iac/json_fields.h"

#include <cmath>
#include <optional>

#include "core/base64.h"
#include "core/text.h"
#include "iac/arm_expression.h"

namespace trainready {

using json = nlohmann::json;

std::string resource_id_name(const std::string& id) {
  std::string s = id;
  while (!s.empty() && s.back() == '/') s.pop_back();
  auto slash = s.rfind('/');
  return to_lower(slash == std::string::npos ? s : s.substr(slash + 1));
}

std::string decode_boot_script(const std::string& s) {
  if (s.find_first_of(" \t#!") != std::string::npos) return s;  // already a script
  auto d = base64_decode(s);
  // Decoded bytes are judged even when they hold an ESC or a NUL (a coloured echo, a stray
  // byte): refusing them as "not text" would hide an NCCL_IB_DISABLE=1 two lines below. Only a
  // gzip-compressed script (cloud-init accepts one) stays encoded.
  const bool gzip = d && d->size() >= 2 && static_cast<unsigned char>((*d)[0]) == 0x1f &&
                    static_cast<unsigned char>((*d)[1]) == 0x8b;
  if (d && !d->empty() && !gzip) return *d;
  return s;
}

const json* JsonFields::evaluated(const std::string& ptr, const json& raw) const {
  auto [it, inserted] = evaluated_.try_emplace(ptr);
  if (!inserted) return &it->second;
  if (!ptr.empty() || !raw.is_object()) {
    it->second = evaluate_arm_json(raw, *scope_);
  } else {
    json r = json::object();
    for (auto m = raw.begin(); m != raw.end(); ++m) {
      if (m.key() == "resources" || m.key() == "copy" || m.key() == "condition") continue;
      r[m.key()] = evaluate_arm_json(m.value(), *scope_);
    }
    it->second = std::move(r);
  }
  return &it->second;
}

const json* JsonFields::at(const std::string& ptr) const { return locate(ptr, true); }

const json* JsonFields::locate(const std::string& ptr, bool whole) const {
  // A direct walk: nlohmann's json_pointer would parse the pointer and walk it twice
  // (contains, then at) for every property of every resource.
  const json* v = &value_;
  // Under an ARM scope, v is the value as written until a string is met: an expression's value
  // is final (evaluate_arm_json does not evaluate what an expression returns), and an object's
  // member as evaluated is its member as written, evaluated.
  bool as_written = scope_ != nullptr;
  std::size_t i = 0;
  while (i < ptr.size()) {
    if (ptr[i] != '/') return nullptr;
    if (as_written && v->is_string()) {
      v = evaluated(ptr.substr(0, i), *v);
      as_written = false;
    }
    std::size_t end = ptr.find('/', i + 1);
    if (end == std::string::npos) end = ptr.size();
    // A view into ptr; a copy only for a token with an escape.
    std::string_view token(ptr.data() + i + 1, end - i - 1);
    std::string t;
    if (token.find('~') != std::string_view::npos) {
      for (std::size_t k = 0; k < token.size(); ++k) {
        if (token[k] == '~' && k + 1 < token.size()) {
          t += token[k + 1] == '1' ? '/' : '~';
          ++k;
        } else {
          t += token[k];
        }
      }
      token = t;
    }
    if (as_written && i == 0 && (token == "resources" || token == "copy" || token == "condition"))
      return nullptr;  // not part of the resource as evaluated
    if (v->is_object()) {
      auto it = v->find(token);
      if (it == v->end()) return nullptr;
      v = &*it;
    } else if (v->is_array()) {
      auto idx = parse_int(token);
      if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= v->size()) return nullptr;
      v = &(*v)[static_cast<std::size_t>(*idx)];
    } else {
      return nullptr;
    }
    i = end;
  }
  // A string that does not start with '[' is its own value (evaluate_arm_json returns it as
  // written): no copy in the cache for each literal field read.
  if (as_written && v->is_string() && !v->get_ref<const std::string&>().starts_with('[')) return v;
  if (as_written && (v->is_string() || (whole && (v->is_object() || v->is_array()))))
    v = evaluated(ptr, *v);
  return v;
}

Provenance JsonFields::where(const std::string& ptr) const {
  return Provenance{file_, doc_.line_of(base_ + ptr)};
}

Setting<std::string> JsonFields::text(const std::string& ptr) const {
  const json* v = at(ptr);
  if (v == nullptr) {
    // Not there because a whole object above it is one unresolved expression
    // ("availabilitySet": "[if(empty(parameters('set')), null(), ...)]"): unknown, not unset.
    for (std::size_t k = ptr.find('/', 1); k != std::string::npos; k = ptr.find('/', k + 1)) {
      const json* a = locate(ptr.substr(0, k), false);
      if (a == nullptr) break;
      if (a->is_string() && is_arm_expression(a->get_ref<const std::string&>()))
        return Setting<std::string>::unknown(a->get<std::string>(), where(ptr.substr(0, k)));
    }
  }
  if (v == nullptr || v->is_null()) {
    if (after_apply_ && after_apply_(ptr))
      return Setting<std::string>::unknown("(known after apply)", where(ptr));
    return {};
  }
  if (v->is_string()) {
    const auto& s = v->get_ref<const std::string&>();
    if (is_arm_expression(s)) return Setting<std::string>::unknown(s, where(ptr));
    return Setting<std::string>::known(s, s, where(ptr));
  }
  if (v->is_number() || v->is_boolean()) {
    std::string s = v->dump();
    return Setting<std::string>::known(s, s, where(ptr));
  }
  return Setting<std::string>::unknown(v->dump(), where(ptr));
}

Setting<long long> JsonFields::integer(const std::string& ptr) const {
  Setting<std::string> t = text(ptr);
  Setting<long long> r;
  r.state = t.state == Setting<std::string>::State::kKnown ? Setting<long long>::State::kKnown
            : t.is_unset()                                 ? Setting<long long>::State::kUnset
                                                           : Setting<long long>::State::kUnknown;
  r.raw = t.raw;
  r.where = t.where;
  if (t.is_known()) {
    // Counts beyond a trillion are no deployment: treated as unknown, which also keeps every sum
    // the rules take far from overflow.
    constexpr long long kMax = 1'000'000'000'000LL;
    std::optional<long long> i;
    if (auto p = parse_int(t.value)) {
      i = *p;
    } else if (auto d = parse_double(t.value);
               d && std::isfinite(*d) && std::fabs(*d) <= kMax && *d == std::floor(*d)) {
      i = static_cast<long long>(*d);
    }
    if (i && *i >= -kMax && *i <= kMax) {
      r.value = *i;
    } else {
      r.state = Setting<long long>::State::kUnknown;
    }
  }
  return r;
}

Setting<bool> JsonFields::boolean(const std::string& ptr) const {
  Setting<std::string> t = text(ptr);
  Setting<bool> r;
  r.raw = t.raw;
  r.where = t.where;
  if (t.is_unset()) return r;
  r.state = Setting<bool>::State::kUnknown;
  if (t.is_known()) {
    if (iequals(t.value, "true")) {
      r.state = Setting<bool>::State::kKnown;
      r.value = true;
    } else if (iequals(t.value, "false")) {
      r.state = Setting<bool>::State::kKnown;
      r.value = false;
    }
  }
  return r;
}

Setting<std::string> JsonFields::id_name(const std::string& ptr) const {
  Setting<std::string> t = text(ptr);
  if (t.is_known()) {
    t.value = resource_id_name(t.value);
    // The short name would otherwise keep the id's buffer (~100 bytes a VM for as long as the
    // facts live).
    t.value.shrink_to_fit();
  }
  return t;
}

void JsonFields::boot_script(const std::string& field, const std::string& ptr,
                             std::vector<BootScript>* out) const {
  Setting<std::string> t = text(ptr);
  if (t.is_unset()) return;
  BootScript b;
  b.field = field;
  b.raw = t;
  if (t.is_known()) b.text = decode_boot_script(t.value);
  out->push_back(std::move(b));
}

}  // namespace trainready
