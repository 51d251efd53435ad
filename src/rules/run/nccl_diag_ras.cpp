// nccl-diag-ras: NCCL's RAS diagnostics (NCCL_RUN_RAS_DIAGNOSTICS=1 or `ncclras -D`, 2.31+)
// flagged a difference or a fault across the ranks of a communicator: GPU inventory, CUDA
// driver, ECC, NVLink, NCCL_* settings (src/ras/diagnostics_gpu.cc, diagnostics_env.cc), or a
// check of a later release this tool does not know by name (2.32's Xid/SXid scan: nccl-diag-xid).
#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

struct Reading {
  Severity severity;
  int rank;
  std::string cause;
  std::string fix;
};

Reading reading(const NcclDiagResult& x) {
  using C = NcclDiagCheck;
  switch (x.check) {
    case C::kEcc:
      if (x.what == "uncorrected")
        return {Severity::kError, 88,
                "Uncorrected volatile ECC errors since the driver loaded: the GPU's memory "
                "returned data it could not correct, which corrupts results or kills the process "
                "that read it (Xid 48/63/64).",
                "Drain the node that holds those ranks, read `nvidia-smi -q -d ECC,ROW_REMAPPER` "
                "there, reset the GPU (a pending row remap takes effect only then), and report "
                "the node if errors return."};
      return {Severity::kWarning, 60,
              "Corrected volatile ECC errors at or above NCCL_DIAGNOSTICS_ECC_THRESHOLD: the "
              "memory is degrading, though no data was lost yet.",
              "Watch the GPU's counters (`nvidia-smi -q -d ECC,ROW_REMAPPER`) and plan its "
              "reset or replacement if they keep climbing."};
    case C::kNvlink:
      if (x.what == "inconsistent speeds")
        return {Severity::kWarning, 62,
                "The active NVLinks of those ranks' GPUs run at different speeds, or their "
                "fastest links differ from the other ranks' (NCCL 2.32 reads each link's speed "
                "from NVML): a link that trained at a lower rate, or GPUs of different "
                "generations; traffic over NVLink runs at the slowest link's pace.",
                "On the node holding those ranks, `nvidia-smi nvlink --status` lists each link's "
                "speed; reset the GPUs (a retrained link can come back at full rate) or drain and "
                "report the node; run the job on one GPU model."};
      if (x.what == "inactive")
        return {Severity::kError, 82,
                "NVLink links that NVML reports inactive: traffic between those GPUs takes a "
                "slower path, or NCCL's NVLink transports fail.",
                "On the node holding those ranks run `nvidia-smi nvlink --status` (and on an "
                "NVSwitch system check that nvidia-fabricmanager is running); reset the GPUs or "
                "drain the node."};
      return {Severity::kWarning, 62,
              "The ranks' GPUs expose different numbers of NVLinks: mixed GPU models, or links "
              "missing on some GPUs.",
              "Compare `nvidia-smi nvlink --status` on the nodes of the ranks named; schedule the "
              "job on one GPU model."};
    case C::kGpuInventory:
      return {Severity::kWarning, 55,
              "The nodes of this communicator differ in GPU " +
                  std::string(x.what == "model mismatch" ? "model" : "count") +
                  ": NCCL builds its rings and trees for uneven nodes, and the slowest sets the "
                  "pace.",
              "Check the nodes of the ranks named (`nvidia-smi -L`): a GPU that fell off the bus "
              "(Xid 79) shows as a smaller count. Schedule the job on identical nodes."};
    case C::kCudaDriver:
      return {Severity::kWarning, 58,
              "The ranks run different CUDA driver versions: the nodes come from different "
              "images or were not all updated.",
              "Install one driver version on every node of the job (one image), then rerun."};
    case C::kGpuDriver:
      return {Severity::kWarning, 58,
              "The ranks run different NVIDIA driver versions (the kernel driver NVML reports): "
              "the nodes come from different images or were not all updated.",
              "Install one driver version on every node of the job (one image), then rerun."};
    case C::kRdmaTopo:
      return {Severity::kWarning, 64,
              "NVIDIA's `rdma_topo check` (rdma-core), which NCCL 2.32 runs on each rank, judged "
              "the PCI topology between the GPUs and NICs wrong for GPUDirect RDMA on those ranks; "
              "the line quotes the first failing rank's exit code and its first line naming a "
              "failure.",
              "Run `rdma_topo check` as root on a node of those ranks and correct what it names "
              "(PCIe ACS settings, the NIC's DMA functions), then rerun the job."};
    case C::kIommu:
      if (x.what == "DMA remapping")
        return {Severity::kWarning, 60,
                "The IOMMU translates DMA (DMA remapping, not passthrough) for the GPUs and NICs "
                "NCCL uses: GPUDirect RDMA and PCIe peer-to-peer traffic goes through the "
                "IOMMU's translation, which slows it and, with PCIe ACS redirecting peer traffic "
                "to the root complex, can break it.",
                "On bare metal, boot with the IOMMU in passthrough (`iommu=pt`) or off; in a VM "
                "it is the hypervisor's setting. Confirm: `cat /sys/bus/pci/devices/<gpu "
                "bdf>/iommu_group/type` prints `identity` (NCCL reads the same file)."};
      if (x.what == "mismatch")
        return {Severity::kWarning, 55,
                "The GPUs and NICs of this communicator are not all in one IOMMU mode "
                "(disabled, passthrough, DMA remapping): nodes booted with different kernel "
                "options, so GPUDirect RDMA behaves differently across them.",
                "Boot every node with the same IOMMU options (`iommu=pt` on bare metal) and "
                "compare /proc/cmdline across the nodes."};
      return {Severity::kInfo, 35,
              "A GPU and the NIC NCCL pairs with it sit in different IOMMU groups; with the "
              "IOMMU in passthrough or off that does not matter, with DMA remapping their "
              "traffic is translated.",
              "Nothing to fix unless the IOMMU remaps DMA (see the IOMMU mode line)."};
    case C::kAts:
      return {Severity::kInfo, 35,
              "ATS (Address Translation Services) is off on those NICs: where the IOMMU remaps "
              "DMA, each of their DMA requests is translated by the IOMMU, which slows GPUDirect "
              "RDMA; with the IOMMU off or in passthrough it changes nothing.",
              "Where the IOMMU remaps DMA, enable ATS on the NIC (`mlxconfig -d <dev> set "
              "ATS_ENABLED=true`, then a reboot); `lspci -vvv -s <nic bdf>` then shows `ATSCtl: "
              "Enable+`."};
    case C::kPaths:
      return {Severity::kWarning, 50,
              "The ranks do not all reach their peers over the same kinds of path (" + x.detail +
                  "; NAME(k/n) is a path kind only k of the n ranks have, DIS a peer with no "
                  "path): GPUs with a link others lack or miss, so the slowest path sets the "
                  "pace.",
              "Compare `nvidia-smi topo -m` on the nodes of the job; a GPU that reaches peers "
              "over SYS or PHB where others use NVL has lost NVLink (see the NVLink check)."};
    case C::kEnvironment:
      return {Severity::kWarning, 60,
              "The ranks were started with different NCCL_* settings, so they can choose "
              "different transports or protocols and fail to connect or hang.",
              "Set every NCCL_* variable identically on all ranks (mpirun -x, srun --export, "
              "the job's environment), then rerun."};
    default:
      return {Severity::kInfo, 30,
              "NCCL's RAS diagnostics marked this check [INFO] (a check of a later release this "
              "tool does not read by name; NCCL also marks benign results so): the line says "
              "what it saw.",
              "Read the line's ranks and check the nodes that hold them."};
  }
}

// NCCL_* variables that set only what NCCL logs, where, and its own diagnostics: ranks that
// differ in them connect and run alike (a per-rank NCCL_DEBUG_FILE is the usual practice).
bool logging_only(std::string_view var) {
  for (std::string_view p :
       {"NCCL_DEBUG", "NCCL_RAS_", "NCCL_RUN_DIAGNOSTICS", "NCCL_RUN_RAS_DIAGNOSTICS",
        "NCCL_DIAGNOSTICS_", "NCCL_INSPECTOR_", "NCCL_PROFILER_", "NCCL_PROFILE_"})
    if (var.starts_with(p)) return true;
  return false;
}

std::string label(const NcclDiagResult& x) {
  std::string what = x.what;
  if (what == "uncorrected") what = "uncorrected volatile errors";
  if (what == "corrected") what = "corrected volatile errors at or above the threshold";
  if (what == "inactive") what = "inactive links";
  if (what == "inconsistent speeds") what = "inconsistent link speeds";
  if (what == "uneven") what = x.detail;
  return x.check_name + (what.empty() ? std::string() : ": " + what);
}

class NcclDiagRas : public Rule {
 public:
  std::string_view id() const override { return "nccl-diag-ras"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL's RAS diagnostics flagged a fault or a difference across the ranks";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclDiagFacts& g = ctx.nccl_log->diagnostics;
    RuleOutcome o;
    // One finding per check and what it found; the environment's lines (which variable, its
    // values on which ranks) together.
    std::map<std::string, std::vector<const NcclDiagResult*>> by;
    std::vector<const NcclDiagResult*> partial;
    for (const NcclDiagResult& x : g.results) {
      if (x.check == NcclDiagCheck::kP2p || x.check == NcclDiagCheck::kNetBw ||
          x.check == NcclDiagCheck::kXid)
        continue;  // their own rules: nccl-diag-p2p, nccl-diag-net-bw, nccl-diag-xid
      if (x.verdict == NcclDiagVerdict::kFlagged)
        by[x.check == NcclDiagCheck::kEnvironment ? x.check_name : label(x)].push_back(&x);
      else if (x.verdict == NcclDiagVerdict::kIncomplete ||
               x.verdict == NcclDiagVerdict::kUnavailable || x.what == "unread")
        partial.push_back(&x);
    }
    if (g.client_refusal) {
      Finding f = finding("ncclras refused the diagnostics request");
      f.severity = Severity::kInfo;
      f.rank = 20;
      f.evidence.push_back(evidence(*g.client_refusal));
      f.cause =
          "The RAS service answers one diagnostics request at a time and only in text "
          "(src/ras/client_support.cc): another request was in flight, or the client asked "
          "for JSON.";
      f.fix = "Run `ncclras -D` again once the other request finished, without `-f json`.";
      o.findings.push_back(std::move(f));
    }
    for (const auto& [name, xs] : by) {
      Reading r = reading(*xs.front());
      std::string what = name;
      if (xs.front()->check == NcclDiagCheck::kEnvironment) {
        // The variables that differ, those that change what NCCL does first; up to 4 values.
        std::vector<std::string> vars;
        bool behaviour = false;
        for (const NcclDiagResult* x : xs)
          if (!x->detail.empty() && std::find(vars.begin(), vars.end(), x->detail) == vars.end()) {
            vars.push_back(x->detail);
            behaviour = behaviour || !logging_only(x->detail);
          }
        std::string vals;
        std::size_t shown = 0;
        for (const NcclDiagResult* x : xs)
          if (x->what == "values" && shown++ < 4) {
            const std::string& t = x->line.text;
            const std::size_t p = t.find("NCCL environment: ");
            vals += (vals.empty() ? "" : "; ") + (p == std::string::npos ? t : t.substr(p + 18));
          }
        std::string names;
        for (const std::string& v : vars) names += (names.empty() ? "" : ", ") + v;
        what = "NCCL_* settings differ across ranks" + (names.empty() ? "" : " (" + names + ")") +
               (vals.empty() ? "" : ": " + vals);
        if (!vars.empty() && !behaviour) {
          r.severity = Severity::kInfo;
          r.rank = 25;
          r.cause = "Only settings of NCCL's logging and diagnostics differ (" + names +
                    "): they change what NCCL writes and where, not how the ranks connect.";
          r.fix = "Nothing to fix for the run; set them alike if the logs should be comparable.";
        }
      } else if (!xs.front()->ranks.empty()) {
        what += " on rank(s) " + xs.front()->ranks;
      }
      Finding f = finding("NCCL's RAS diagnostics: " + what);
      f.severity = r.severity;
      f.rank = r.rank;
      for (std::size_t i = 0; i < xs.size() && i < 6; ++i)
        f.evidence.push_back(evidence(xs[i]->line));
      f.cause = r.cause;
      f.fix = r.fix;
      o.findings.push_back(std::move(f));
    }
    if (!partial.empty()) {
      Finding f = finding("NCCL's RAS diagnostics could not check everything (" +
                          std::to_string(partial.size()) +
                          " line(s) incomplete, unavailable or in a wording this tool does not "
                          "read)");
      f.severity = Severity::kInfo;
      f.rank = 20;
      for (std::size_t i = 0; i < partial.size() && i < 4; ++i)
        f.evidence.push_back(evidence(partial[i]->line));
      bool pci = false;
      for (const NcclDiagResult* x : partial)
        pci = pci || x->check == NcclDiagCheck::kRdmaTopo || x->check == NcclDiagCheck::kIommu ||
              x->check == NcclDiagCheck::kAts;
      f.cause =
          "A check gathered fewer ranks than the communicator has (the RAS overlay was not "
          "ready on all of them), NVML could not read what it asks for on these GPUs, or a "
          "later release worded a result differently (quoted).";
      f.fix =
          "Rerun `ncclras -D` once every rank is up (the RAS service starts with each "
          "process), and check that NCCL_RAS_ENABLE is not 0 on any rank.";
      if (pci) {
        f.cause +=
            " 2.32's PCI checks run `rdma_topo check` and `lspci -vvv` from each rank: without "
            "the tools, or without root to read the PCI configuration, they report \"needs "
            "root\", \"unavailable\" or \"not usable\".";
        f.fix +=
            " For the PCI checks, run `rdma_topo check` and `lspci -vvv` as root on a node of "
            "the job.";
      }
      o.findings.push_back(std::move(f));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_diag_ras() { return std::make_unique<NcclDiagRas>(); }

}  // namespace trainready
