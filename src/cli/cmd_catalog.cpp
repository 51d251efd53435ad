// `trainready catalog`: the VM catalog the rules compare against, with units and sources.
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "core/embedded.h"
#include "core/input_error.h"
#include "core/text.h"
#include "queries/sku_levels.h"

namespace trainready {
namespace {

__attribute__((format(printf, 1, 2))) std::string line_of(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

}  // namespace

Runner add_catalog_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto path = std::make_shared<std::string>();
  auto sku = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "catalog", "Print the VM catalog (sizes, GPUs, InfiniBand, floors, sources)");
  c->add_flag("--json", *json, "Print the catalog file itself");
  c->add_option("--catalog", *path, "Catalog JSON to use instead of the built-in one");
  c->add_option("--sku", *sku, "Only this size");
  return [json, path, sku] {
    const Catalog& cat = load_catalog(*path);
    if (*json && path->empty() && sku->empty()) {
      std::string_view text = embedded_catalog();
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    }
    if (!sku->empty() && cat.find(*sku) == nullptr)
      throw InputError("--sku", 0, "'" + *sku + "' is not in " + cat.origin());
    if (*json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& e : cat.skus()) {
        if (!sku->empty() && &e != cat.find(*sku)) continue;
        nlohmann::json j{{"name", e.name},
                         {"gpu_model", e.gpu_model},
                         {"gpu_count", e.gpu_count},
                         {"gpu_memory_gb", e.gpu_memory_gb},
                         {"ib_ports", e.ib_ports},
                         {"ib_rate_gbits_per_s", e.ib_rate_gbits_per_s},
                         {"gpudirect_rdma", e.gpudirect_rdma},
                         {"frontend_nic_gbits_per_s", e.frontend_nic_gbits_per_s},
                         {"nvme_disks", e.nvme_disks},
                         {"source", e.source},
                         {"date", e.date}};
        j["nccl_allreduce_floor_gbytes_per_s"] =
            e.nccl_allreduce_floor_gbytes_per_s
                ? nlohmann::json(*e.nccl_allreduce_floor_gbytes_per_s)
                : nlohmann::json(nullptr);
        j["ib_write_bw_gdr_floor_gbits_per_s"] =
            e.ib_write_bw_gdr_floor_gbits_per_s
                ? nlohmann::json(*e.ib_write_bw_gdr_floor_gbits_per_s)
                : nlohmann::json(nullptr);
        nlohmann::json levels = nlohmann::json::array();
        for (const PublishedThreshold& t : e.published_thresholds)
          levels.push_back({{"metric", t.metric},
                            {"unit", t.unit},
                            {"scope", t.scope},
                            {"message", t.message},
                            {"expected", t.expected},
                            {"warn_below", t.warn_below},
                            {"ghr_below", t.ghr_below},
                            {"source", cat.source_text(t.source)}});
        j["published_thresholds"] = std::move(levels);
        // Both levels as doctor, fleet and health judge them (queries/sku_levels.h): the
        // published two-level entries and AzNHC's one-level pass lines.
        nlohmann::json two = nlohmann::json::array();
        for (const SkuLevel& l : sku_levels(e))
          two.push_back({{"metric", l.metric},
                         {"applies", l.applies},
                         {"unit", l.unit},
                         {"warn_below",
                          l.warn_below ? nlohmann::json(*l.warn_below) : nlohmann::json(nullptr)},
                         {"repair_below", l.repair_below},
                         {"origin", l.origin},
                         {"source", cat.source_text(l.source)}});
        j["levels"] = std::move(two);
        arr.push_back(std::move(j));
      }
      std::printf("%s\n",
                  nlohmann::json{{"schema_version", 1}, {"catalog", cat.origin()}, {"skus", arr}}
                      .dump(2)
                      .c_str());
      return 0;
    }
    // A --catalog file's names and sources are input: every line goes out through terminal_safe.
    std::string listing =
        line_of("%-32s %-16s %4s %6s  %-22s %8s  %-14s %5s  %s\n", "SIZE", "GPU", "GPUS", "GB/GPU",
                "INFINIBAND", "FRONTEND", "NCCL AR FLOOR", "NVME", "SOURCE (DATE)");
    for (const auto& e : cat.skus()) {
      if (!sku->empty() && &e != cat.find(*sku)) continue;
      char ib[64];
      if (e.ib_ports > 0) {
        std::snprintf(ib, sizeof(ib), "%d x %.0f Gb/s %s%s", e.ib_ports, e.ib_rate_gbits_per_s,
                      e.ib_generation.c_str(), e.gpudirect_rdma ? " GDR" : "");
      } else {
        std::snprintf(ib, sizeof(ib), "none");
      }
      char floor[32] = "-";
      if (e.nccl_allreduce_floor_gbytes_per_s) {
        std::snprintf(floor, sizeof(floor), ">= %.0f GB/s", *e.nccl_allreduce_floor_gbytes_per_s);
      }
      listing +=
          line_of("%-32s %-16s %4d %6.0f  %-22s %3.0f Gb/s  %-14s %5d  %s (%s)\n", e.name.c_str(),
                  e.gpu_model.c_str(), e.gpu_count, e.gpu_memory_gb, ib, e.frontend_nic_gbits_per_s,
                  floor, e.nvme_disks, e.source.c_str(), e.date.c_str());
    }
    listing += line_of(
        "\nUnits: Gb/s = 1e9 bits/s (links); GB/s = 1e9 bytes/s (NCCL busbw). Catalog: %s\n",
        cat.origin().c_str());
    std::fputs(terminal_safe(listing).c_str(), stdout);
    return 0;
  };
}

}  // namespace trainready
