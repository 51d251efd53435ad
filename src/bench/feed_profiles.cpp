#include "bench/feed_profiles.h"

#include "core/text.h"

namespace trainready {

const std::vector<FeedProfile>& feed_profiles() {
  static const std::vector<FeedProfile> profiles = {
      {"unet3d-h100", "unet3d", "H100", 146600628, 7, 0.323, 0.90, 4,
       "mlcommons/storage configs/dlio/workload/unet3d_h100.yaml"},
      {"unet3d-a100", "unet3d", "A100", 146600628, 7, 0.636, 0.90, 4,
       "mlcommons/storage configs/dlio/workload/unet3d_a100.yaml"},
      {"resnet50-h100", "resnet50", "H100", 114660, 400, 0.224, 0.90, 8,
       "mlcommons/storage configs/dlio/workload/resnet50_h100.yaml"},
      {"resnet50-a100", "resnet50", "A100", 114660, 400, 0.435, 0.90, 8,
       "mlcommons/storage configs/dlio/workload/resnet50_a100.yaml"},
      {"cosmoflow-h100", "cosmoflow", "H100", 2828486, 1, 0.00350, 0.70, 4,
       "mlcommons/storage configs/dlio/workload/cosmoflow_h100.yaml"},
      {"cosmoflow-a100", "cosmoflow", "A100", 2828486, 1, 0.00551, 0.70, 4,
       "mlcommons/storage configs/dlio/workload/cosmoflow_a100.yaml"},
  };
  return profiles;
}

const FeedProfile* find_feed_profile(std::string_view name) {
  for (const FeedProfile& p : feed_profiles()) {
    if (iequals(p.name, name)) return &p;
  }
  return nullptr;
}

double demand_per_accelerator(const FeedProfile& p) {
  return p.compute_seconds > 0 ? p.batch * p.record_bytes / p.compute_seconds : 0;
}

}  // namespace trainready
