// The OFED version without running anything: a captured `ofed_info -s`, else the literal the
// ofed_info script echoes, else mlx5_core's own version (MLNX_OFED builds declare one; inbox
// kernel drivers do not).
#include <vector>

#include "core/input_error.h"
#include "parsers/ofed_info.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

Fact<std::string> probe_ofed(const Root& root, const Fact<ModuleFacts>& modules) {
  std::vector<std::string> paths;
  if (!root.is_live()) {
    paths.emplace_back(kSnapCommands);  // appended: GCC 12 warns falsely on `std::string(p) + ""`
    paths.back() += "/ofed_info-s.txt";
  }
  paths.emplace_back("/usr/bin/ofed_info");
  for (const std::string& path : paths) {
    Fact<std::string> text = read_text(root, path, kLargeFileLimit);
    if (!text.ok()) continue;
    try {
      return Fact<std::string>::present(parse_ofed_info(text.value, text.where.source), text.where);
    } catch (const InputError&) {
      continue;
    }
  }
  if (!modules.ok()) return Fact<std::string>::missing("kernel modules " + modules.describe());
  if (!modules->loaded("mlx5_core") && !modules->loaded("mlx4_core")) {
    return Fact<std::string>::missing("no Mellanox driver loaded");
  }
  const auto it = modules->modules.find("mlx5_core");
  if (it != modules->modules.end() && !it->second.version.empty()) {
    return Fact<std::string>::present("mlx5_core " + it->second.version,
                                      {root.display("/sys/module/mlx5_core/version"), 0});
  }
  return Fact<std::string>::present("inbox (kernel rdma drivers, no MLNX_OFED)",
                                    {root.display("/proc/modules"), 0});
}

}  // namespace trainready
