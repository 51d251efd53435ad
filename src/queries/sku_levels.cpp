#include "queries/sku_levels.h"

#include <cstdio>

namespace trainready {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

SkuLevel from_published(const PublishedThreshold& p) {
  SkuLevel l;
  l.metric = p.metric;
  l.applies = p.applies;
  l.unit = p.unit;
  l.scope = p.scope;
  l.message = p.message;
  l.expected = p.expected;
  l.warn_below = p.warn_below;
  l.repair_below = p.ghr_below;
  l.source = p.source;
  l.origin = "published";
  return l;
}

// AzNHC's pass lines (health_floors), one level each.
std::vector<SkuLevel> aznhc_levels(const SkuEntry& sku) {
  std::vector<SkuLevel> out;
  if (sku.ib_write_bw_gdr_floor_gbits_per_s) {
    SkuLevel l;
    l.metric = std::string(kMetricIbWriteBwGdr);
    l.applies = "vm";
    l.unit = "Gb/s";
    l.scope = "ib_write_bw from GPU memory, one HCA, 8 MiB messages, BW average (check_ib_bw_gdr)";
    l.repair_below = *sku.ib_write_bw_gdr_floor_gbits_per_s;
    l.source = "aznhc-one-level";
    l.origin = "aznhc";
    out.push_back(std::move(l));
  }
  if (sku.nccl_allreduce_floor_gbytes_per_s) {
    SkuLevel l;
    l.metric = std::string(kMetricAllreduceBusbw);
    l.applies = "vm";
    l.unit = "GB/s";
    l.scope = "all_reduce inside one VM (check_nccl_allreduce)";
    l.message = sku.nccl_allreduce_message;
    l.repair_below = *sku.nccl_allreduce_floor_gbytes_per_s;
    l.source = "aznhc-one-level";
    l.origin = "aznhc";
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

std::vector<SkuLevel> sku_levels(const SkuEntry& sku) {
  std::vector<SkuLevel> out;
  for (const PublishedThreshold& p : sku.published_thresholds) out.push_back(from_published(p));
  for (SkuLevel& a : aznhc_levels(sku)) {
    bool shadowed = false;
    for (const SkuLevel& l : out) shadowed |= l.metric == a.metric && l.applies == a.applies;
    if (!shadowed) out.push_back(std::move(a));
  }
  return out;
}

std::optional<SkuLevel> sku_level(const SkuEntry& sku, std::string_view metric,
                                  std::string_view applies) {
  for (SkuLevel& l : sku_levels(sku))
    if (l.metric == metric && l.applies == applies) return std::move(l);
  return std::nullopt;
}

LevelVerdict judge_level(const SkuLevel& level, double value) {
  if (value < level.repair_below) return LevelVerdict::kRepair;
  if (level.warn_below && value < *level.warn_below) return LevelVerdict::kWarn;
  return LevelVerdict::kOk;
}

const char* verdict_name(LevelVerdict v) {
  switch (v) {
    case LevelVerdict::kOk:
      return "ok";
    case LevelVerdict::kWarn:
      return "warn";
    case LevelVerdict::kRepair:
      return "repair";
  }
  return "ok";
}

std::string describe_level(const SkuLevel& l, const Catalog& catalog) {
  std::string s;
  if (l.expected) s += "expected ~" + fmt(*l.expected) + " " + l.unit + ", ";
  if (l.warn_below)
    s += "Warn below " + fmt(*l.warn_below) + " " + l.unit + ", ";
  else
    s += "no Warn level published, ";
  s += "repair (GHR) below " + fmt(l.repair_below) + " " + l.unit;
  if (!l.message.empty()) s += " at " + l.message;
  s += " (" + catalog.source_text(l.source) + ")";
  return s;
}

}  // namespace trainready
