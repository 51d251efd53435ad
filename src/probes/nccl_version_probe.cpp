// The NCCL library version, asked of libnccl itself (ncclGetVersion) when the node has GPUs.
#include <dlfcn.h>

#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

Fact<std::string> read_nccl_library_version(const std::string& library) {
  Provenance where{"dlopen:" + library, 0};
  void* h = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr)
    return Fact<std::string>::missing(library + " not found by the dynamic loader", where);
  auto get = reinterpret_cast<int (*)(int*)>(::dlsym(h, "ncclGetVersion"));
  int code = 0;
  const bool ok = get != nullptr && get(&code) == 0 && code > 0;
  ::dlclose(h);
  if (!ok) return Fact<std::string>::unreadable("ncclGetVersion failed", where);
  // NCCL_VERSION_CODE: X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  int patch = code % 100;
  return Fact<std::string>::present(
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch), where);
}

Fact<std::string> probe_nccl_version(const Root& root, const Fact<GpuFacts>& gpus,
                                     const ProbeOptions& opt) {
  if (!root.is_live()) {
    Fact<std::string> v = read_attr(root, kSnapNcclVersion);
    if (v.status == FactStatus::kMissing)
      return Fact<std::string>::missing("the snapshot records no NCCL version", v.where);
    return v;
  }
  // Loading libnccl costs tens of milliseconds; a node without GPUs has no use for it.
  if (!gpus.ok() || !gpus->driver_loaded)
    return Fact<std::string>::missing("no NVIDIA driver, NCCL not looked up");
  return read_nccl_library_version(opt.nccl_library);
}

}  // namespace trainready
