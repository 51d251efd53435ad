// Multi-node NVLink prerequisites on GB200/GB300 VMs (NVIDIA IMEX, the Internode Memory
// Exchange service): NCCL uses MNNVL between the VMs of one NVLink domain only when the IMEX
// service runs and CUDA can open an IMEX channel (NCCL troubleshooting guide, "MNNVL"). Azure's
// image installs nvidia-imex, loads the driver with NVreg_CreateImexChannel0=1 and enables
// nvidia-imex.service (Azure/azhpc-images components/install_nvidiagpudriver.sh); its tests check
// /dev/nvidia-caps-imex-channels/channel0 (tests/test-definitions.sh).
#include <cctype>

#include "core/text.h"
#include "probes/probes.h"

namespace trainready {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

Fact<bool> probe_imex_daemon(const Root& root, const Fact<GpuFacts>& gpus) {
  // Only where a GPU reports an NVLink fabric: a scan of every process is not worth it on a VM
  // that has no use for IMEX (and a snapshot would carry every process name).
  bool fabric = false;
  if (gpus.ok())
    for (const Gpu& g : gpus->gpus)
      fabric = fabric || (g.fabric_state && *g.fabric_state != "not-supported");
  if (!fabric) return Fact<bool>::missing("not looked for: no GPU reports an NVLink fabric state");
  const DirList procs = root.list_dir("/proc");
  const Provenance where{root.display("/proc") + "/*/comm", 0};
  if (!procs.ok()) return Fact<bool>::unreadable(procs.error, where);
  int seen = 0;
  for (const std::string& pid : procs.entries) {
    if (!all_digits(pid)) continue;
    const std::string path = "/proc/" + pid + "/comm";
    const FileRead r = root.read_file(path);
    if (!r.ok()) continue;  // the process ended, or a snapshot kept only some
    ++seen;
    // The daemon nvidia-imex.service runs is /usr/bin/nvidia-imex.
    if (trim(r.data) == "nvidia-imex") return Fact<bool>::present(true, {root.display(path), 0});
  }
  if (seen == 0)
    return Fact<bool>::missing(root.is_live() ? "no process names readable in /proc"
                                              : "the snapshot records no process names",
                               where);
  return Fact<bool>::present(false, where);
}

Fact<std::vector<std::string>> probe_imex_channels(const Root& root) {
  if (!root.is_live()) {
    const Provenance where{root.display(kSnapImexChannels), 0};
    const FileRead r = root.read_file(kSnapImexChannels);
    if (r.status == ReadStatus::kMissing)
      return Fact<std::vector<std::string>>::missing(
          "the snapshot does not list /dev/nvidia-caps-imex-channels (device nodes are not "
          "copied; collect it with this trainready)",
          where);
    if (!r.ok()) return Fact<std::vector<std::string>>::unreadable(r.error, where);
    std::vector<std::string> names;
    for (std::string_view line : split_lines(r.data))
      if (!trim(line).empty()) names.emplace_back(trim(line));
    return Fact<std::vector<std::string>>::present(std::move(names), where);
  }
  const Provenance where{root.display(kImexChannelDir), 0};
  const DirList d = root.list_dir(kImexChannelDir);
  if (d.status == ReadStatus::kMissing)  // no directory: no channel
    return Fact<std::vector<std::string>>::present({}, where);
  if (!d.ok()) return Fact<std::vector<std::string>>::unreadable(d.error, where);
  return Fact<std::vector<std::string>>::present(d.entries, where);
}

}  // namespace trainready
