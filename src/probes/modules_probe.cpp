// Kernel modules: /proc/modules for what is loaded, /sys/module/<m>/version for the modules that
// declare a version (the NVIDIA driver, MLNX_OFED's mlx5_core); /proc/driver/nvidia/version for
// the NVIDIA module's flavor (open or proprietary).
#include "parsers/procfs.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

constexpr const char* kWatched[] = {"mlx5_core", "mlx5_ib",    "ib_core",        "ib_uverbs",
                                    "rdma_ucm",  "ib_ipoib",   "mlx4_core",      "mlx4_ib",
                                    "nvidia",    "nvidia_uvm", "nvidia_peermem", "nv_peer_mem",
                                    "amdgpu",    "nvme",       "md_mod",         "raid0"};

}  // namespace

Fact<ModuleFacts> probe_modules(const Root& root) {
  Fact<std::string> text = read_text(root, "/proc/modules", kLargeFileLimit);
  if (!text.ok()) {
    return text.status == FactStatus::kMissing
               ? Fact<ModuleFacts>::missing(text.reason, text.where)
               : Fact<ModuleFacts>::unreadable(text.reason, text.where);
  }
  ModuleFacts m;
  for (const auto& [name, line] : parse_proc_modules(text.value)) {
    m.modules[name] = ModuleInfo{true, "", {text.where.source, line}};
  }
  for (const char* name : kWatched) {
    const std::string base = std::string("/sys/module/") + name;
    ModuleInfo& info = m.modules[name];
    // Built-in modules have a /sys/module entry but no /proc/modules line.
    if (!info.loaded && root.list_dir(base).ok()) {
      info.loaded = true;
      info.where = {root.display(base), 0};
    }
    if (!info.loaded) continue;
    if (auto v = read_attr(root, base + "/version"); v.ok()) info.version = v.value;
  }
  if (m.loaded("nvidia")) {
    Fact<std::string> v = read_text(root, "/proc/driver/nvidia/version", kLargeFileLimit);
    if (!v.ok()) {
      m.nvidia_flavor = v.status == FactStatus::kMissing
                            ? Fact<std::string>::missing(v.reason, v.where)
                            : Fact<std::string>::unreadable(v.reason, v.where);
    } else if (auto f = parse_nvidia_module_flavor(v.value)) {
      m.nvidia_flavor = Fact<std::string>::present(*f, v.where);
    } else {
      m.nvidia_flavor = Fact<std::string>::unreadable("no NVRM version line", v.where);
    }
  } else {
    m.nvidia_flavor = Fact<std::string>::missing("the nvidia module is not loaded");
  }
  return Fact<ModuleFacts>::present(std::move(m), text.where);
}

}  // namespace trainready
