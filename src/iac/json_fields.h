#pragma once
// Reads typed Settings out of a JSON resource for the iac readers: a value at a JSON pointer
// becomes known, unset (absent / null) or unknown (an ARM expression left unresolved, or a
// Terraform value known only after apply), with the file and line of the property.
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"

namespace trainready {

class ArmScope;

class JsonFields {
 public:
  // `value`: the resource as evaluated; `doc` + `base`: where it sits in the file as written.
  JsonFields(const nlohmann::json& value, const LocatedJson& doc, std::string base,
             std::string file)
      : value_(value), doc_(doc), base_(std::move(base)), file_(std::move(file)) {}

  // Terraform: tells whether the attribute at a pointer is known only after apply.
  void set_unknown_check(std::function<bool(const std::string&)> f) { after_apply_ = std::move(f); }
  // ARM: `value` is the resource as written, and each value read is what evaluate_arm_json
  // would make of it in `scope` (the resource's members but resources, copy and condition).
  // Only what is read is evaluated: a resource's other properties (location, network
  // profile, ...) cost nothing (issue 35: evaluating whole resources was half of lint's time).
  void evaluate_in(ArmScope* scope) { scope_ = scope; }

  Setting<std::string> text(const std::string& ptr) const;
  Setting<long long> integer(const std::string& ptr) const;
  Setting<bool> boolean(const std::string& ptr) const;
  // A resource id (".../availabilitySets/name") → its last segment, lower-cased.
  Setting<std::string> id_name(const std::string& ptr) const;
  // customData / userData at ptr, base64-decoded when it decodes to text.
  void boot_script(const std::string& field, const std::string& ptr,
                   std::vector<BootScript>* out) const;

  Provenance where(const std::string& ptr) const;
  const nlohmann::json* at(const std::string& ptr) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& value_;
  const LocatedJson& doc_;
  std::string base_;
  std::string file_;
  std::function<bool(const std::string&)> after_apply_;
  ArmScope* scope_ = nullptr;
  // Values evaluated so far, by pointer (node-based: what at() returned stays valid).
  mutable std::map<std::string, nlohmann::json> evaluated_;

  // The value at `ptr` as evaluated; an object or array not yet evaluated is returned as
  // written unless `whole` (its type is the same either way).
  const nlohmann::json* locate(const std::string& ptr, bool whole) const;
  const nlohmann::json* evaluated(const std::string& ptr, const nlohmann::json& raw) const;
};

// The last path segment of a resource id, lower-cased ("" when s has none).
std::string resource_id_name(const std::string& id);
// Decodes base64 text that holds a script; the text unchanged when it is not base64.
std::string decode_boot_script(const std::string& s);

}  // namespace trainready
