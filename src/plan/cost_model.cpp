#include "plan/cost_model.h"

#include "core/text.h"

namespace trainready {

std::optional<PriceChoice> choose_price(const SkuEntry& sku, const std::string& region, bool spot,
                                        const std::optional<double>& user_price,
                                        const std::string& user_origin) {
  if (user_price) return PriceChoice{*user_price, "user", user_origin};
  const std::string kind = spot ? "spot" : "pay-as-you-go";
  for (const SkuPrice& p : sku.prices) {
    if (iequals(p.region, region) && p.kind == kind && (p.os.empty() || p.os == "linux")) {
      // Say plainly when the figure is someone else's quote, not a capture of the source.
      return PriceChoice{p.usd_per_hour, kind,
                         "catalog " + p.source + " " + p.date + ", " + p.region + ", " + p.kind +
                             (p.verified ? "" : " (unverified third-party quote)")};
    }
  }
  return std::nullopt;
}

CostEstimate estimate_cost(const CostInputs& in) {
  CostEstimate c;
  c.per_hour = quantity(in.vms * in.price.usd_per_vm_hour, "USD/h", "VMs × price per VM-hour",
                        in.price.origin);
  c.per_hour.in("vms", in.vms).in("price", in.price.usd_per_vm_hour, "USD/h");
  const double hours = in.run_seconds / 3600;
  c.per_run = quantity(c.per_hour.value * hours, "USD", "cost per hour × run hours");
  c.per_run.in("per_hour", c.per_hour.value, "USD/h").in("hours", hours, "h");
  c.idle = quantity(c.per_run.value * (1 - in.utilization), "USD",
                    "GPU-hours × (1 − utilization) × price per GPU-hour");
  c.idle.in("gpu_hours", hours * in.vms * in.gpus_per_vm, "h").in("utilization", in.utilization);
  c.idle.in("price_per_gpu_hour", in.price.usd_per_vm_hour / in.gpus_per_vm, "USD/h");
  return c;
}

}  // namespace trainready
