#pragma once
// The typed IR of a deployment definition (ARM / Bicep-compiled ARM, Terraform plan) or of a
// deployed state (az CLI JSON, IMDS documents): the compute resources and the few properties
// the InfiniBand and placement traps depend on. Readers in src/iac/ fill it; deploy rules read it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fact.h"

namespace trainready {

// A property of a resource as written: unset (the platform default applies), known, or unknown
// (an expression that could not be resolved, kept raw so a rule can quote it).
// Laid out small (issue 35: eight of them in each of a large template's tens of thousands of
// resources): the state sits in the provenance's tail padding, a bool value beside it, and the
// text as written is shared text (8 bytes, not a string's 32), since resources repeat the same
// expressions. Setting<std::string> is 56 bytes, Setting<long long> 32, Setting<bool> 24.
template <class T>
struct Setting {
  enum class State : std::uint8_t { kUnset, kKnown, kUnknown };
  SourceText raw;  // the expression or text as written
  [[no_unique_address]] Provenance where;
  State state = State::kUnset;
  T value{};

  static Setting known(T v, const std::string& raw_text, const Provenance& p) {
    Setting s;
    s.state = State::kKnown;
    s.value = std::move(v);
    s.raw = raw_text;
    s.where = p;
    return s;
  }
  static Setting unknown(const std::string& raw_text, const Provenance& p) {
    Setting s;
    s.state = State::kUnknown;
    s.raw = raw_text;
    s.where = p;
    return s;
  }
  bool is_known() const { return state == State::kKnown; }
  bool is_unset() const { return state == State::kUnset; }
  bool is_unknown() const { return state == State::kUnknown; }
};

enum class ResourceKind {
  kVirtualMachine,   // one definition; `count` VMs (copy loop / Terraform count)
  kScaleSet,         // `count` = capacity
  kAvailabilitySet,  // members are VMs whose availability_set names it
  kAksNodePool,      // AKS creates the scale set (singlePlacementGroup false)
  kVirtualNetwork,
  kSubnet,         // a subnet declared as a resource of its own (its prefixes: subnet_prefixes)
  kManagedLustre,  // Azure Managed Lustre file system (Microsoft.StorageCache/amlFilesystems)
};

const char* resource_kind_name(ResourceKind k);

// Text fields below that repeat across resources (a type, an extension's publisher, a boot
// script every VM shares) are SourceText: shared, 8 bytes instead of 32 (issue 35).
struct VmExtension {
  SourceText publisher;
  SourceText type;
  Provenance where;
};

// customData / userData / custom_data, decoded when it was base64.
struct BootScript {
  SourceText field;  // "osProfile.customData", "custom_data", ...
  SourceText text;   // decoded text, "" when unknown
  Setting<std::string> raw;
};

struct AddressPrefix {
  std::string cidr;
  Provenance where;
};

// Fields most resources leave unset, kept out of line and allocated when first written: a large
// template holds tens of thousands of resources, and an unset Setting still costs ~100 bytes
// (issue 35). Reads through a const resource never allocate (an empty group is shared); a
// copy of the resource copies the group.
template <class T>
class OutOfLine {
 public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  OutOfLine& operator=(const OutOfLine& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(OutOfLine&&) noexcept = default;
  ~OutOfLine() = default;

  const T& get() const {
    static const T kEmpty{};
    return p_ ? *p_ : kEmpty;
  }
  T& set() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  const T* operator->() const { return &get(); }
  T* operator->() { return &set(); }
  bool allocated() const { return p_ != nullptr; }

 private:
  std::unique_ptr<T> p_;
};

// A scale set's placement (singlePlacementGroup and what its default depends on).
struct ScaleSetPlacement {
  Setting<bool> single_placement_group;
  Setting<std::string> orchestration_mode;  // Uniform, Flexible
  Setting<long long> platform_fault_domain_count;
  // Where the platform default for single_placement_group is false when unset (Terraform's
  // orchestrated scale set, AKS); a note for the rule's message.
  std::string spg_default_false_because;
};

// Azure Managed Lustre: the SKU, the capacity in TiB and the subnet it is placed in.
struct LustreSettings {
  Setting<std::string> lustre_sku;
  Setting<long long> lustre_capacity_tib;
  Setting<std::string> lustre_subnet;
};

// Deployed state (IMDS / az).
struct DeployedPlacement {
  Setting<std::string> placement_group_id;
  Setting<std::string> vm_scale_set_name;
};

struct NetworkPrefixes {
  std::vector<AddressPrefix> address_prefixes;  // virtual networks
  // Subnets: a virtual network's inline subnets, or a subnet resource's own prefixes.
  std::vector<AddressPrefix> subnet_prefixes;
};

struct DeploymentResource {
  ResourceKind kind = ResourceKind::kVirtualMachine;
  std::string name;          // resolved name, or the raw expression
  std::string address;       // what the user searches for: ARM symbolic name / TF address / id
  SourceText type;           // "Microsoft.Compute/virtualMachineScaleSets", "azurerm_..."
  SourceText format;         // arm, terraform-plan, az, imds
  Provenance where;          // the resource itself
  bool deployed = false;     // from az / IMDS: a live object, not a definition
  bool conditional = false;  // an ARM condition that could not be resolved

  Setting<std::string> vm_size;
  Setting<long long> count;  // VMs / instances; unset = 1 for a VM
  // Scale sets only.
  OutOfLine<ScaleSetPlacement> placement;
  Setting<std::string> availability_set;  // name of the set a VM belongs to
  Setting<std::string> scale_set;         // name of the scale set a VM belongs to (Flexible)
  Setting<std::string> image_publisher;
  Setting<std::string> image_offer;
  Setting<std::string> image_sku;
  Setting<std::string> image_id;  // gallery / custom image id
  std::vector<VmExtension> extensions;
  std::vector<BootScript> boot_scripts;
  OutOfLine<NetworkPrefixes> network;  // virtual networks and subnets
  OutOfLine<LustreSettings> lustre;
  OutOfLine<DeployedPlacement> live;  // IMDS / az: the object as deployed

  // Inline suppressions found on the resource: rule id → justification.
  std::vector<std::pair<std::string, std::string>> suppressions;
  Provenance suppressions_where;
};

// An input that could not be read (a directory run goes on without it; lint then exits 2).
struct InputProblem {
  std::string file;
  int line = 0;         // 0: the whole file
  std::string message;  // "file:line: what was expected"
};

// A value supplied for an ARM template parameter (parameters file or -p) that ARM or az would
// refuse (type, allowedValues, minValue/maxValue, minLength/maxLength, not declared, a -p text
// that does not convert), or that was left to fill (GEN-*, <...>, REPLACE_ME, an empty required
// string). The rest of the template is evaluated with the value unknown.
struct ParameterProblem {
  std::string name;          // as the template declares it
  bool refused = true;       // false: accepted as written, but a value left to fill
  bool placeholder = false;  // the value is a placeholder (its message says so)
  std::string message;       // what is wrong; never the value of a secure parameter
  std::string declaration;   // "type int, minValue 1", for evidence
  Provenance where;          // the value: file:line, or "-p name"
  Provenance declared;       // the parameter's declaration in the template
};

struct DeploymentFacts {
  std::vector<std::string> files;  // inputs read, in order
  std::vector<DeploymentResource> resources;
  // What a reader could not resolve or chose to skip, worded for the user (file:line: what).
  std::vector<std::string> notes;
  // Gallery / custom image ids (or parts of them) the user vouches for as HPC images (--hpc-image).
  std::vector<std::string> hpc_images;
  std::vector<InputProblem> input_errors;
  std::vector<ParameterProblem> parameter_problems;
  // Parts of the deployment that were not read at all (a linked template not found), worded as
  // notes are: a rule that finds nothing cannot say the deployment is clean.
  std::vector<std::string> unread;
};

}  // namespace trainready
