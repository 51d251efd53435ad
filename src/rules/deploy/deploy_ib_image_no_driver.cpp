// deploy-ib-image-no-driver: an InfiniBand size booted from an image that is not an HPC image
// (no OFED / libibverbs / nvidia-peermem) and without the InfiniBand driver extension.
#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

bool hpc_marketplace_image(const DeploymentResource& r) {
  const std::string pub = to_lower(r.image_publisher.value);
  const std::string offer = to_lower(r.image_offer.value);
  if (pub == "microsoft-dsvm" && offer.find("hpc") != std::string::npos) return true;
  if (pub == "almalinux" && offer.find("hpc") != std::string::npos) return true;
  if (pub == "openlogic" && offer.find("hpc") != std::string::npos) return true;
  return false;
}

bool has_ib_driver_extension(const DeploymentResource& r) {
  for (const auto& e : r.extensions) {
    if (iequals(e.publisher, "Microsoft.HpcCompute") && icontains(e.type, "InfiniBandDriver"))
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
      if (!gallery && hpc_marketplace_image(r)) continue;
      if (gallery && allow_listed(r.image_id.value, ctx)) continue;
      std::string image =
          gallery ? r.image_id.value
                  : r.image_publisher.value + ":" + r.image_offer.value + ":" + r.image_sku.value;
      Finding f = finding(label(r) + ": " + r.vm_size.value + " boots " + image +
                          ", which is not an HPC image, and has no InfiniBand driver extension");
      if (gallery) {
        f.evidence.push_back(setting_evidence("image id", r.image_id));
      } else {
        f.evidence.push_back(setting_evidence("image publisher", r.image_publisher));
        f.evidence.push_back(setting_evidence("image offer", r.image_offer));
      }
      f.evidence.push_back(setting_evidence("VM size", r.vm_size));
      f.cause =
          "Without OFED / rdma-core the InfiniBand HCAs have no driver stack: NCCL logs "
          "\"Failed to open libibverbs.so\" or \"NET/IB : No device found\" and falls back "
          "to NET/Socket; without nvidia-peermem there is no GPUDirect RDMA.";
      f.fix =
          "Use an Azure HPC image (microsoft-dsvm:ubuntu-hpc or almalinux:almalinux-hpc), or "
          "add the extension Microsoft.HpcCompute/InfiniBandDriverLinux" +
          std::string(gallery ? ", or allow-list this image with --hpc-image if it carries "
                                "OFED and nvidia-peermem"
                              : "") +
          ".";
      const Provenance& where = gallery ? r.image_id.where : r.image_publisher.where;
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
