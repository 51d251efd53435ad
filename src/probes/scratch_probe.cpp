// Local scratch: NVMe namespaces (/sys/block/nvme*), md RAID (/proc/mdstat), mounts.
#include <algorithm>

#include "core/text.h"
#include "parsers/procfs.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

std::string mountpoint_of(const std::vector<MountEntry>& mounts, const std::string& dev) {
  for (const auto& m : mounts) {
    if (m.device == "/dev/" + dev) return m.mountpoint;
  }
  return "";
}

}  // namespace

Fact<ScratchFacts> probe_scratch(const Root& root) {
  Provenance where{root.display("/sys/block"), 0};
  DirList blocks = root.list_dir("/sys/block");
  if (blocks.status == ReadStatus::kMissing)
    return Fact<ScratchFacts>::missing(blocks.error, where);
  if (blocks.status == ReadStatus::kUnreadable)
    return Fact<ScratchFacts>::unreadable(blocks.error, where);
  std::vector<MountEntry> mounts;
  Fact<std::string> mtext = read_text(root, "/proc/mounts", kLargeFileLimit);
  if (mtext.ok()) mounts = parse_proc_mounts(mtext.value);
  ScratchFacts s;
  Fact<std::string> md = read_text(root, "/proc/mdstat", kLargeFileLimit);
  if (md.ok()) {
    for (auto& a : parse_proc_mdstat(md.value)) {
      MdArray arr;
      arr.name = a.name;
      arr.level = a.level;
      arr.state = a.state;
      arr.members = a.members;
      arr.mountpoint = mountpoint_of(mounts, a.name);
      arr.where = {md.where.source, a.line};
      s.arrays.push_back(std::move(arr));
    }
  }
  for (const std::string& name : blocks.entries) {
    if (name.rfind("nvme", 0) != 0 || name.find('n', 4) == std::string::npos) continue;
    const std::string base = "/sys/block/" + name;
    NvmeNamespace ns;
    ns.name = name;
    ns.where = {root.display(base), 0};
    if (auto v = parse_int(read_attr(root, base + "/size").value))
      ns.size_bytes = static_cast<std::uint64_t>(*v) * 512;
    if (auto m = read_attr(root, base + "/device/model"); m.ok()) ns.model = m.value;
    if (auto m = read_attr(root, base + "/device/serial"); m.ok()) ns.serial = m.value;
    // Azure Boost exposes remote managed disks as "MSFT NVMe Accelerator"; those are not scratch.
    ns.local = !icontains(ns.model, "NVMe Accelerator");
    ns.mountpoint = mountpoint_of(mounts, name);
    if (ns.mountpoint.empty()) {
      for (const std::string& part : root.list_dir(base).entries) {
        if (part.rfind(name + "p", 0) != 0) continue;
        ns.mountpoint = mountpoint_of(mounts, part);
        if (!ns.mountpoint.empty()) break;
      }
    }
    for (const auto& a : s.arrays) {
      if (std::find(a.members.begin(), a.members.end(), name) != a.members.end())
        ns.md_array = a.name;
    }
    s.namespaces.push_back(std::move(ns));
  }
  return Fact<ScratchFacts>::present(std::move(s), where);
}

}  // namespace trainready
