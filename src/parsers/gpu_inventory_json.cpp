#include "parsers/gpu_inventory_json.h"

#include "core/input_error.h"
#include "core/json_util.h"

namespace trainready {
namespace {

template <class T>
std::optional<T> opt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

GpuFacts parse_gpu_inventory_json(std::string_view text, const std::string& source) {
  nlohmann::json doc = parse_json_or_throw(text, source);
  try {
    GpuFacts g;
    g.driver_loaded = doc.at("driver_loaded").get<bool>();
    g.no_driver_reason = doc.value("no_driver_reason", "");
    g.driver_version = doc.value("driver_version", "");
    g.nvml_version = doc.value("nvml_version", "");
    for (const auto& x : doc.at("gpus")) {
      Gpu gpu;
      gpu.index = x.at("index").get<int>();
      gpu.name = x.value("name", "");
      gpu.uuid = x.value("uuid", "");
      gpu.serial = x.value("serial", "");
      gpu.memory_total_bytes = x.value("memory_total_bytes", std::uint64_t{0});
      gpu.pci_bus_id = x.value("pci_bus_id", "");
      gpu.ecc_enabled = opt<bool>(x, "ecc_enabled");
      gpu.ecc_uncorrected_volatile = opt<std::uint64_t>(x, "ecc_uncorrected_volatile");
      gpu.remap_pending = opt<bool>(x, "remap_pending");
      gpu.remap_failure = opt<bool>(x, "remap_failure");
      gpu.nvlink_links = opt<int>(x, "nvlink_links");
      gpu.nvlink_active = opt<int>(x, "nvlink_active");
      gpu.nvlink_recovery_errors = opt<std::uint64_t>(x, "nvlink_recovery_errors");
      gpu.nvlink_crc_errors = opt<std::uint64_t>(x, "nvlink_crc_errors");
      gpu.fabric_state = opt<std::string>(x, "fabric_state");
      gpu.fabric_status = opt<int>(x, "fabric_status");
      gpu.fabric_cluster_uuid = opt<std::string>(x, "fabric_cluster_uuid");
      gpu.fabric_clique_id = opt<std::uint32_t>(x, "fabric_clique_id");
      gpu.clocks_event_reasons = opt<std::uint64_t>(x, "clocks_event_reasons");
      g.gpus.push_back(std::move(gpu));
    }
    return g;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, 1,
                     std::string("expected a trainready GPU inventory {driver_loaded, gpus[]} (") +
                         e.what() + ")");
  }
}

}  // namespace trainready
