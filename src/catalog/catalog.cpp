#include "catalog/catalog.h"

#include <algorithm>
#include <cmath>

#include "core/embedded.h"
#include "core/input_error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "core/units.h"

namespace trainready {
namespace {

using nlohmann::json;

std::string normalise(std::string_view name) {
  std::string n = to_lower(trim(name));
  if (n.rfind("standard_", 0) == 0) n.erase(0, 9);
  return n;
}

std::optional<double> opt_number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw std::invalid_argument(std::string(key) + " must be a number or null");
  return it->get<double>();
}

SkuEntry parse_entry(const json& j) {
  SkuEntry e;
  e.name = j.at("name").get<std::string>();
  e.family = j.value("family", "");
  const json& gpu = j.at("gpu");
  e.gpu_vendor = gpu.at("vendor").get<std::string>();
  e.gpu_model = gpu.at("model").get<std::string>();
  e.gpu_count = gpu.at("count").get<int>();
  e.gpu_memory_gb = gpu.at("memory_gb").get<double>();
  e.gpu_link = j.value("gpu_link", "");
  const json& ib = j.at("infiniband");
  e.ib_ports = ib.at("ports").get<int>();
  e.ib_rate_gbits_per_s = ib.at("rate_gbits_per_s").get<double>();
  e.ib_generation = ib.value("generation", "");
  e.ib_hca = ib.value("hca", "");
  e.gpudirect_rdma = ib.value("gpudirect_rdma", false);
  if (auto it = j.find("nvlink_domain"); it != j.end()) {
    e.nvlink_domain_vms = it->at("vms").get<int>();
    e.nvlink_domain_gpus = it->at("gpus").get<int>();
    e.nvlink_domain_source = it->value("source", "");
    if (e.nvlink_domain_vms < 1 || e.nvlink_domain_gpus < e.gpu_count)
      throw std::invalid_argument("nvlink_domain: vms must be >= 1 and gpus >= gpu.count");
  }
  e.frontend_nic_gbits_per_s = j.at("frontend_nic_gbits_per_s").get<double>();
  if (auto it = j.find("local_nvme"); it != j.end()) {
    e.nvme_disks = it->value("disks", 0);
    e.nvme_total_gib = it->value("total_gib", 0.0);
  }
  if (auto it = j.find("health_floors"); it != j.end()) {
    e.nccl_allreduce_floor_gbytes_per_s = opt_number(*it, "nccl_allreduce_busbw_gbytes_per_s");
    e.nccl_allreduce_message = it->value("nccl_allreduce_message", "");
    e.ib_write_bw_gdr_floor_gbits_per_s = opt_number(*it, "ib_write_bw_gdr_gbits_per_s");
    e.no_floor_reason = it->value("no_floor_reason", "");
  }
  if (auto it = j.find("published_thresholds"); it != j.end()) {
    for (const json& t : *it) {
      PublishedThreshold p;
      p.metric = t.at("metric").get<std::string>();
      p.applies = t.at("applies").get<std::string>();
      p.scope = t.value("scope", "");
      p.message = t.value("message", "");
      p.unit = t.value("unit", "");
      p.expected = t.at("expected").get<double>();
      p.warn_below = t.at("warn_below").get<double>();
      p.ghr_below = t.at("ghr_below").get<double>();
      p.source = t.at("source").get<std::string>();
      if (!(p.ghr_below > 0 && p.ghr_below < p.warn_below && p.warn_below <= p.expected))
        throw std::invalid_argument(
            "published_thresholds: expected >= warn_below > ghr_below > 0 (" + p.metric + ")");
      if (p.applies != "nvlink_domain" && p.applies != "across_domains" && p.applies != "gpu" &&
          p.applies != "vm")
        throw std::invalid_argument(
            "published_thresholds.applies must be vm, nvlink_domain, "
            "across_domains or gpu");
      e.published_thresholds.push_back(std::move(p));
    }
  }
  if (auto it = j.find("nvlink_ring"); it != j.end()) {
    e.nvlink_ring_allreduce_gbytes_per_s = it->at("allreduce_busbw_gbytes_per_s").get<double>();
    e.nvlink_ring_source = it->value("source", "");
    if (*e.nvlink_ring_allreduce_gbytes_per_s <= 0)
      throw std::invalid_argument("nvlink_ring: allreduce_busbw_gbytes_per_s must be > 0");
  }
  e.nccl_topo_file = j.value("nccl_topo_file", "");
  if (auto it = j.find("azure_image"); it != j.end()) {
    if (auto c = it->find("nccl_conf"); c != it->end()) {
      for (const auto& [k, v] : c->items()) e.image_nccl_conf[k] = v.get<std::string>();
    }
    e.fabric_manager = it->value("fabric_manager", false);
    e.image_source = it->value("source", "");
  }
  e.multi_node_alternative = j.value("multi_node_alternative", "");
  if (auto it = j.find("prices"); it != j.end()) {
    for (const json& p : *it) {
      e.prices.push_back({p.at("region").get<std::string>(), p.at("kind").get<std::string>(),
                          p.value("os", ""), p.at("usd_per_hour").get<double>(),
                          p.value("source", ""), p.value("date", ""), p.value("verified", false)});
    }
  }
  e.source = j.at("source").get<std::string>();
  e.date = j.at("date").get<std::string>();
  if (auto it = gpu.find("peak_dense_tflops"); it != gpu.end()) {
    for (const auto& [precision, tflops] : it->items()) {
      if (!tflops.is_number() || tflops.get<double>() <= 0)
        throw std::invalid_argument("gpu.peak_dense_tflops." + precision +
                                    " must be a positive number");
      e.peak_dense_tflops[precision] = tflops.get<double>();
    }
  }
  e.peak_source = gpu.value("peak_source", "");
  e.planner_intra_vm_allreduce_gbytes_per_s =
      opt_number(j, "planner_intra_vm_allreduce_gbytes_per_s");
  e.planner_intra_vm_allreduce_source = j.value("planner_intra_vm_allreduce_source", "");
  if (e.planner_intra_vm_allreduce_gbytes_per_s && e.planner_intra_vm_allreduce_source.empty())
    throw std::invalid_argument(
        "planner_intra_vm_allreduce_gbytes_per_s needs planner_intra_vm_allreduce_source");
  return e;
}

double positive(const json& j, const char* key) {
  const double v = j.at(key).get<double>();
  if (!(v > 0)) throw std::invalid_argument(std::string(key) + " must be positive");
  return v;
}

StorageCatalog parse_storage(const json& j) {
  StorageCatalog s;
  for (const json& t : j.at("amlfs_tiers")) {
    s.amlfs_tiers.push_back({t.at("name").get<std::string>(), positive(t, "mbytes_per_s_per_tib"),
                             positive(t, "min_tib"), positive(t, "max_tib"),
                             positive(t, "increment_tib")});
  }
  s.amlfs_source = j.value("amlfs_source", "");
  const json& blob = j.at("blob");
  s.blob_egress_gbits_per_s = positive(blob, "egress_gbits_per_s");
  s.blob_requests_per_s = positive(blob, "requests_per_s");
  s.blob_source = blob.value("source", "");
  for (const json& l : j.at("anf_levels")) {
    s.anf_levels.push_back({l.at("name").get<std::string>(), positive(l, "mibytes_per_s_per_tib")});
  }
  s.anf_volume_max_mibytes_per_s = positive(j, "anf_large_volume_max_mibytes_per_s");
  s.anf_regular_volume_max_mibytes_per_s = positive(j, "anf_regular_volume_max_mibytes_per_s");
  s.anf_regular_volume_max_tib = positive(j, "anf_regular_volume_max_tib");
  s.anf_large_volume_min_tib = positive(j, "anf_large_volume_min_tib");
  s.anf_source = j.value("anf_source", "");
  s.nvme_read_gbytes_per_s_per_disk = positive(j, "nvme_read_gbytes_per_s_per_disk");
  s.nvme_source = j.value("nvme_source", "");
  s.date = j.value("date", "");
  return s;
}

int line_of_key(std::string_view text, std::string_view quoted_key) {
  const std::size_t pos = text.find(quoted_key);
  if (pos == std::string_view::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  return line;
}

// Best effort: the line where the n-th "name" key of the skus array sits, for error messages.
int line_of_entry(std::string_view text, std::size_t index) {
  std::size_t pos = text.find("\"skus\"");
  std::size_t count = 0;
  while (pos != std::string_view::npos) {
    pos = text.find("\"name\"", pos + 1);
    if (pos == std::string_view::npos) break;
    if (count++ == index) {
      int line = 1;
      for (std::size_t i = 0; i < pos; ++i) line += text[i] == '\n';
      return line;
    }
  }
  return 0;
}

}  // namespace

Catalog Catalog::parse(std::string_view json_text, const std::string& origin) {
  json doc = parse_json_or_throw(json_text, origin);
  Catalog c;
  c.origin_ = origin;
  if (!doc.is_object() || !doc.contains("skus") || !doc["skus"].is_array()) {
    throw InputError(origin, 1, "expected a JSON object with a \"skus\" array");
  }
  std::size_t i = 0;
  for (const json& j : doc["skus"]) {
    try {
      c.skus_.push_back(parse_entry(j));
    } catch (const std::exception& e) {
      throw InputError(origin, line_of_entry(json_text, i),
                       "catalog entry " + std::to_string(i) +
                           ": expected name, gpu{vendor,model,count,memory_gb}, "
                           "infiniband{ports,rate_gbits_per_s}, frontend_nic_gbits_per_s, "
                           "source and date (" +
                           e.what() + ")");
    }
    ++i;
  }
  if (auto it = doc.find("storage"); it != doc.end()) {
    try {
      c.storage_ = parse_storage(*it);
    } catch (const std::exception& e) {
      throw InputError(
          origin, line_of_key(json_text, "\"storage\""),
          std::string("catalog storage: expected amlfs_tiers[{name, "
                      "mbytes_per_s_per_tib, min_tib, max_tib, increment_tib}], "
                      "blob{egress_gbits_per_s, requests_per_s}, anf_levels, "
                      "anf_large_volume_max_mibytes_per_s, anf_regular_volume_max_mibytes_per_s, "
                      "anf_regular_volume_max_tib, anf_large_volume_min_tib and "
                      "nvme_read_gbytes_per_s_per_disk (") +
              e.what() + ")");
    }
  }
  if (auto it = doc.find("sources"); it != doc.end() && it->is_object()) {
    for (const auto& [key, text] : it->items()) {
      if (text.is_string()) c.sources_[key] = text.get<std::string>();
    }
  }
  return c;
}

std::string Catalog::source_text(const std::string& key) const {
  auto it = sources_.find(key);
  return it == sources_.end() ? key : it->second;
}

const Catalog& Catalog::builtin() {
  static const Catalog c = parse(embedded_catalog(), "builtin:data/catalog.json");
  return c;
}

const SkuEntry* Catalog::find(std::string_view vm_size) const {
  const std::string key = normalise(vm_size);
  // normalise(e.name) == key without a copy per entry: the rules ask for every resource, and
  // most entries differ from the key in length or in their last letters.
  constexpr std::string_view kPrefix = "standard_";
  // std::isspace in the C locale, inline: this runs for every entry on every lookup.
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  auto prefixed = [&](std::string_view n) {
    return n.size() >= kPrefix.size() && iequals(n.substr(0, kPrefix.size()), kPrefix);
  };
  for (const SkuEntry& e : skus_) {
    std::string_view n = e.name;
    if (n.size() < key.size()) continue;  // trimming and the prefix only shorten it
    if (!n.empty() && (space(n.front()) || space(n.back()))) n = trim(n);
    if (n.size() == key.size() + kPrefix.size()) {
      if (iequals(n.substr(kPrefix.size()), key) && prefixed(n)) return &e;
    } else if (n.size() == key.size()) {
      if (iequals(n, key) && !prefixed(n)) return &e;
    }
  }
  return nullptr;
}

double AmlfsTier::round_capacity_tib(double tib) const {
  const double steps = std::ceil(std::max(0.0, tib - min_tib) / increment_tib - 1e-9);
  return min_tib + steps * increment_tib;
}

std::string AmlfsTier::capacity_problem(double tib) const {
  if (tib < min_tib) return "below the minimum of " + format_tib(min_tib) + " TiB";
  const double steps = (tib - min_tib) / increment_tib;
  if (std::fabs(steps - std::round(steps)) > 1e-9)
    return "not " + format_tib(min_tib) + " TiB plus whole steps of " + format_tib(increment_tib) +
           " TiB";
  if (tib > max_tib)
    return "above the listed maximum of " + format_tib(max_tib) +
           " TiB (needs an approved support request)";
  return {};
}

}  // namespace trainready
