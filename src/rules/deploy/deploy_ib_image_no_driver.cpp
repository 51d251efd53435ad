// deploy-ib-image-no-driver: an InfiniBand size booted from an image that is not an HPC image
// (no OFED / libibverbs / nvidia-peermem) and without the InfiniBand driver extension.
#include <cstdio>

#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// InfiniBand sizes without SR-IOV (retired): they use the Network Direct RDMA drivers that the
// older CentOS-HPC (7.1-7.3) and SLES-HPC images carry, not Mellanox OFED.
bool legacy_rdma_size(const std::string& vm_size) {
  std::string s = to_lower(vm_size);
  if (s.rfind("standard_", 0) == 0) s.erase(0, 9);
  for (const char* l : {"a8", "a9", "h16r", "h16mr", "nc24r", "nc24rs_v2", "nc24rs_v3", "nd24rs"})
    if (s == l) return true;
  return false;
}

// "7.3", "7_4-gen2", "7.9" → 73, 74, 79; 0 when there is no version.
int centos_version(const std::string& sku) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(sku.c_str(), "%d%*1[._]%d", &major, &minor) < 1) return 0;
  return major * 10 + minor;
}

bool windows_image(const DeploymentResource& r) {
  return icontains(r.image_publisher.value, "MicrosoftWindows") ||
         icontains(r.image_offer.value, "Windows");
}

// What the image carries for this size: "" when it has the InfiniBand stack, otherwise why not.
std::string marketplace_gap(const DeploymentResource& r) {
  const std::string pub = to_lower(r.image_publisher.value);
  const std::string offer = to_lower(r.image_offer.value);
  const bool legacy = legacy_rdma_size(r.vm_size.value);
  const bool hpc_offer = offer.find("hpc") != std::string::npos;
  if (pub == "microsoft-dsvm" && hpc_offer) return {};
  if (pub == "almalinux" && hpc_offer) return {};
  if (pub == "openlogic" && hpc_offer) {
    const int v = centos_version(r.image_sku.value);
    if (legacy || v == 0 || v >= 74) return {};
    return "CentOS-HPC " + r.image_sku.value +
           " carries the Network Direct RDMA drivers of the non-SR-IOV sizes (A8/A9, H16r), not "
           "the Mellanox OFED that SR-IOV InfiniBand sizes (HB, HC, ND v2 and later) need";
  }
  if (pub == "suse" && hpc_offer && legacy) return {};  // SLES-HPC + RDMA drivers, H16r class
  return "not an HPC image";
}

bool has_ib_driver_extension(const DeploymentResource& r) {
  for (const auto& e : r.extensions) {
    if (iequals(e.publisher.str(), "Microsoft.HpcCompute") &&
        icontains(e.type.str(), "InfiniBandDriver"))
      return true;
  }
  return false;
}

class DeployIbImageNoDriver final : public Rule {
 public:
  std::string_view id() const override { return "deploy-ib-image-no-driver"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "InfiniBand size without an HPC image or the InfiniBand driver extension";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const auto& r : ctx.deployment->resources) {
      if (r.kind != ResourceKind::kVirtualMachine && r.kind != ResourceKind::kScaleSet) continue;
      if (r.format == "imds" || !has_infiniband(r, *ctx.catalog)) continue;
      if (has_ib_driver_extension(r)) continue;
      if (r.image_publisher.is_unknown() || r.image_offer.is_unknown() || r.image_id.is_unknown()) {
        const auto& s = r.image_id.is_unknown()          ? r.image_id
                        : r.image_publisher.is_unknown() ? r.image_publisher
                                                         : r.image_offer;
        out.notes.push_back(label(r) + ": image " + s.raw + " not resolved (" + s.where.str() +
                            ")");
        continue;
      }
      bool gallery = r.image_id.is_known() && !r.image_id.value.empty();
      if (!gallery && !r.image_publisher.is_known()) continue;  // no image written at all
      if (gallery) {
        // A custom or gallery image may well carry OFED: unknown, not "no driver".
        if (!allow_listed(r.image_id.value, ctx))
          out.notes.push_back(label(r) + ": " + r.vm_size.value + " boots the custom image " +
                              r.image_id.value + " (" + r.image_id.where.str() +
                              "); whether it has the InfiniBand stack is not known here: check "
                              "`ofed_info -s` and `ibv_devinfo` (and nvidia-peermem for GPUs) on "
                              "a VM from it, then pass --hpc-image, or add the InfiniBand driver "
                              "extension");
        continue;
      }
      const std::string gap = marketplace_gap(r);
      if (gap.empty()) continue;
      const bool windows = windows_image(r);
      std::string image =
          r.image_publisher.value + ":" + r.image_offer.value + ":" + r.image_sku.value;
      Finding f = finding(label(r) + ": " + r.vm_size.value + " boots " + image + ", which is " +
                          (gap == "not an HPC image" ? gap : "not right for this size") +
                          ", and has no InfiniBand driver extension");
      f.evidence.push_back(setting_evidence("image publisher", r.image_publisher));
      f.evidence.push_back(setting_evidence("image offer", r.image_offer));
      f.evidence.push_back(setting_evidence("image sku", r.image_sku));
      f.evidence.push_back(setting_evidence("VM size", r.vm_size));
      f.cause =
          windows
              ? "Windows images carry no InfiniBand driver: without the Mellanox WinOF-2 driver "
                "the HCAs have no network direct provider and MPI falls back to TCP."
              : (gap == "not an HPC image" ? std::string() : gap + ". ") +
                    "Without OFED / rdma-core the InfiniBand HCAs have no driver stack: NCCL logs "
                    "\"Failed to open libibverbs.so\" or \"NET/IB : No device found\" and falls "
                    "back to NET/Socket; without nvidia-peermem there is no GPUDirect RDMA.";
      f.fix = windows ? std::string(
                            "Add the extension Microsoft.HpcCompute/InfiniBandDriverWindows "
                            "to the VM or scale set (it installs the WinOF-2 driver).")
                      : std::string(
                            "Use an Azure HPC image (microsoft-dsvm:ubuntu-hpc or "
                            "almalinux:almalinux-hpc), or add the extension "
                            "Microsoft.HpcCompute/InfiniBandDriverLinux.");
      const Provenance& where = r.image_publisher.where;
      out.findings.push_back(deployment_finding(std::move(f), r, where));
    }
    return out;
  }

 private:
  static bool allow_listed(const std::string& id, const RuleContext& ctx) {
    for (const auto& p : ctx.deployment->hpc_images) {
      if (!p.empty() && icontains(id, p)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_ib_image_no_driver() {
  return std::make_unique<DeployIbImageNoDriver>();
}

}  // namespace trainready
