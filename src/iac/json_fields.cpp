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
  if (d && !d->empty() && is_printable_text(*d)) return *d;
  return s;
}

const json* JsonFields::at(const std::string& ptr) const {
  json::json_pointer p(ptr);
  if (!value_.contains(p)) return nullptr;
  return &value_.at(p);
}

Provenance JsonFields::where(const std::string& ptr) const {
  return Provenance{file_, doc_.line_of(base_ + ptr)};
}

Setting<std::string> JsonFields::text(const std::string& ptr) const {
  const json* v = nullptr;
  try {
    v = at(ptr);
  } catch (const json::exception&) {
    v = nullptr;
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
  if (t.is_known()) t.value = resource_id_name(t.value);
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
