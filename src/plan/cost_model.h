#pragma once
// Cost of a run from a dated price snapshot (the catalog) or the user's own price: per hour, per
// run, and the part paid for GPUs that wait.
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "plan/quantity.h"

namespace trainready {

struct PriceChoice {
  double usd_per_vm_hour = 0;
  std::string kind;    // pay-as-you-go, spot, --price
  std::string origin;  // "catalog price-quote-third-party 2026-09-16, eastus, ... (unverified ...)"
                       // or "--price"
};

// The user's price for the size, else the catalog's for the region and kind; nullopt if neither.
std::optional<PriceChoice> choose_price(const SkuEntry& sku, const std::string& region, bool spot,
                                        const std::optional<double>& user_price,
                                        const std::string& user_origin);

struct CostInputs {
  PriceChoice price;
  int vms = 1;
  int gpus_per_vm = 1;
  double run_seconds = 0;
  double utilization = 1;  // share of GPU time spent computing
};

struct CostEstimate {
  Quantity per_hour;
  Quantity per_run;
  Quantity idle;  // cost of the GPU time spent waiting
};

CostEstimate estimate_cost(const CostInputs& in);

}  // namespace trainready
