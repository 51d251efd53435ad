// nvme-scratch-not-mounted: local NVMe disks exist but are neither mounted nor part of a mounted
// md array, so the fastest storage on the VM sits idle.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class NvmeScratchNotMounted final : public Rule {
 public:
  std::string_view id() const override { return "nvme-scratch-not-mounted"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "Local NVMe disks not assembled and mounted as scratch";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.scratch.ok()) return RuleOutcome::skip("local disks " + n.scratch.describe());
    RuleOutcome out;
    const ScratchFacts& s = *n.scratch;
    std::vector<const NvmeNamespace*> idle;
    std::uint64_t idle_bytes = 0;
    int local = 0;
    for (const auto& ns : s.namespaces) {
      if (!ns.local) continue;
      ++local;
      bool used = !ns.mountpoint.empty();
      for (const auto& a : s.arrays) {
        if (a.name == ns.md_array && !a.mountpoint.empty()) used = true;
      }
      if (!used) {
        idle.push_back(&ns);
        idle_bytes += ns.size_bytes;
      }
    }
    if (idle.empty()) return out;
    std::string names;
    for (const auto* ns : idle) names += (names.empty() ? "" : " ") + ns->name;
    char size[32];
    std::snprintf(size, sizeof(size), "%.1f TiB",
                  static_cast<double>(idle_bytes) / (1024.0 * 1024 * 1024 * 1024));
    Finding f = finding(std::to_string(idle.size()) + " of " + std::to_string(local) +
                        " local NVMe disks (" + size + ") are not mounted");
    f.evidence.push_back({"unmounted: " + names +
                              (idle.front()->model.empty() ? "" : " (" + idle.front()->model + ")"),
                          idle.front()->where});
    for (const auto& a : s.arrays) {
      if (a.mountpoint.empty())
        f.evidence.push_back({a.name + " (" + a.level + ") assembled but not mounted", a.where});
    }
    f.cause =
        "The VM's local NVMe disks are the fastest place to stage a dataset or write checkpoints "
        "(tens of GB/s "
        "together, against about 10 GB/s for anything reached over the front-end NIC). Unmounted, "
        "jobs read "
        "from network storage instead and the GPUs wait on data. They are ephemeral: they come up "
        "empty after "
        "deallocation, so they must be assembled at every boot.";
    std::string devs;
    for (const auto* ns : idle) devs += " /dev/" + ns->name;
    f.fix =
        "Assemble and mount them at boot, e.g. mdadm --create /dev/md0 --level=0 --raid-devices=" +
        std::to_string(idle.size()) + devs +
        " && mkfs.xfs /dev/md0 && mount /dev/md0 /mnt/nvme (Azure HPC images "
        "do this with a boot service; cloud-init can too).";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nvme_scratch_not_mounted() {
  return std::make_unique<NvmeScratchNotMounted>();
}

}  // namespace trainready
