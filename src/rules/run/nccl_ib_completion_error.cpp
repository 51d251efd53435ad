// nccl-ib-completion-error: an InfiniBand work completion came back with an error status.
#include "knowledge/nccl_link_layer.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// IBV_WC_RETRY_EXC_ERR read for the link layer the log shows: the other layer's causes and fixes
// (Azure's partitions on a RoCE log, GID indexes on InfiniBand) are left out once it is known.
constexpr const char* kRetryCommon =
    "The HCA retried and the peer never acknowledged: the two ports cannot reach each other.";
constexpr const char* kRetryIbCause =
    "different partitions (on Azure, VMs not in one scale set / availability set), a port down "
    "or flapping, routing";
constexpr const char* kRetryRoceCause =
    "a GID index that does not route between the two NICs (NCCL_IB_GID_INDEX: a RoCE v1 or "
    "link-local GID across subnets), no IP route or a VLAN between their addresses, PFC/ECN "
    "setup, or an MTU larger than a switch on the path forwards (the connecting side's queue "
    "pairs, which send the data, take the smaller active_mtu of the two ports, "
    "src/transport/net_ib.cc:1325 and :1144 @ v2.21.5-1; on RoCE active_mtu follows the "
    "interface's MTU, so hosts set to jumbo frames behind a switch hop that does not forward "
    "them lose every full-size packet while small messages pass)";
constexpr const char* kRetryIbFix =
    "Check that the two ports share a partition (`cat /sys/class/infiniband/*/ports/1/pkeys/0` "
    "the same on both nodes) and are ACTIVE (`ibstat`, `trainready doctor` on each) - on Azure, "
    "put every VM of the job in one scale set (singlePlacementGroup=true) or one availability "
    "set";
constexpr const char* kRetryRoceFix =
    "set NCCL_IB_GID_INDEX to the RoCE v2 GID of the interface that routes to the peers "
    "(`show_gids`), check the two NICs' addresses reach each other (ping from that interface; "
    "ib_write_bw -x <gid index> between the hosts), and compare the active_mtu (`ibv_devinfo`) "
    "and the interface MTU (`ip link`) with the switch ports' MTU (`ping -M do -s <MTU - 28>` "
    "between the hosts' RoCE addresses must pass)";

void retry_exceeded_reading(Finding& x, const NcclLinkLayerShown& shown) {
  std::string cause = kRetryCommon, fix;
  switch (shown.layer) {
    case NcclLinkLayer::kRoce:
      cause += std::string(" The log shows RoCE ports: ") + kRetryRoceCause + ".";
      fix = std::string(1, static_cast<char>(kRetryRoceFix[0] - 'a' + 'A')) + (kRetryRoceFix + 1) +
            ".";
      if (shown.roce_line)
        x.evidence.push_back({"RoCE: " + shown.roce_line->text, shown.roce_line->where});
      break;
    case NcclLinkLayer::kInfiniband:
      cause += std::string(" The log shows InfiniBand ports: ") + kRetryIbCause + ".";
      fix = std::string(kRetryIbFix) + ".";
      break;
    default:
      cause +=
          std::string(" On InfiniBand: ") + kRetryIbCause + "; on RoCE: " + kRetryRoceCause + ".";
      fix = std::string(kRetryIbFix) + "; on RoCE " + kRetryRoceFix + ".";
  }
  x.cause += cause;
  x.fix = fix;
}

class NcclIbCompletionError : public Rule {
 public:
  std::string_view id() const override { return "nccl-ib-completion-error"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand completion errors: a peer could not be reached over IB";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclIssue* i = find_issue(*ctx.nccl_log, NcclProblem::kIbCompletionError);
    if (!i) return {};
    RuleOutcome o;
    Finding x = finding("NET/IB completion error(s) (" + join_limited(i->details) +
                        ") talking to " + (i->peers.empty() ? "a peer" : join_limited(i->peers)));
    add_issue_evidence(x, *i);
    x.onset = first_onset(i->examples);
    // ibv_wc_status values (rdma-core, ibv_poll_cq(3)); the first status in time matters.
    struct Decode {
      int status;
      const char* name;
      const char* cause;
      const char* fix;
      int rank;
    };
    static const Decode kDecode[] = {
        {4, "IBV_WC_LOC_PROT_ERR (local protection error)",
         "The HCA could not access the buffer it was given. With GPUDirect RDMA this almost "
         "always means PCIe Access Control Services (ACS) or the IOMMU redirect the NIC's "
         "peer-to-peer reads of GPU memory (a maintainer's reading of error 4 / vendor err 81).",
         "Confirm with NCCL_NET_GDR_LEVEL=0 (GDR off: the error should go away, slower). On bare "
         "metal, disable ACS on the PCIe switches / root ports (`lspci -vvv | grep ACSCtl` "
         "should show SrcValid-) and set the IOMMU to passthrough (iommu=pt), then rerun with "
         "GDR. In a cloud VM (Azure ND) the hypervisor owns the PCIe path and neither can be "
         "changed: check the GPUDirect RDMA path the node uses (nvidia-peermem loaded, or "
         "DMA-BUF: `trainready doctor`), and if it is right, take the node out and report it.",
         84},
        {12, "IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded)", "", "",
         83},  // retry_exceeded_reading()
        {13, "IBV_WC_RNR_RETRY_EXC_ERR (receiver not ready)",
         "The receiver had no buffer posted; the peer process is stuck or gone.",
         "Look at the peer's own log for an earlier error; check its host.", 60},
        {10, "IBV_WC_REM_ACCESS_ERR (remote access error)",
         "The peer rejected the RDMA access: its memory registration or GDR path failed (the "
         "same ACS / IOMMU causes as a local protection error, on the other host).",
         "Check ACS / IOMMU and nvidia-peermem on the peer host; confirm with "
         "NCCL_NET_GDR_LEVEL=0.",
         80},
        {5, "IBV_WC_WR_FLUSH_ERR (work request flushed)",
         "The queue pair was already in error: an earlier error (often on the peer, or a "
         "process that exited) flushed the outstanding requests. Vendor err 249 with it is a "
         "flush after a fatal error on the QP.",
         "Find the first completion error across all ranks (another status), then check that "
         "link (`ibstat`, `trainready doctor`) and the peer's log.",
         55},
    };
    const Decode* d = nullptr;
    for (const Decode& k : kDecode) {
      if (i->details.count("error " + std::to_string(k.status))) {
        d = &k;
        break;  // the table is ordered by how much a status explains
      }
    }
    if (d) {
      x.message += ": " + std::string(d->name);
      x.cause = std::string(d->name) + ": " + d->cause;
      x.fix = d->fix;
      if (d->status == 12) retry_exceeded_reading(x, nccl_link_layer_shown(*ctx.nccl_log));
      x.rank = d->rank;
      // A flushed request reports a queue pair an earlier error already broke (ibv_poll_cq(3)).
      x.consequence = d->status == 5;
    } else {
      x.cause =
          "The HCA reported a failed work request; the status names the failing step "
          "(ibv_poll_cq(3) lists them).";
      x.fix =
          "Find the first completion error across all ranks, then check that link "
          "(`ibstat`, `trainready doctor`) and the peer's log.";
      x.rank = 55;
    }
    x.cause += " (source: rdma-core ibv_poll_cq(3) status table; NCCL troubleshooting guide)";
    x.subsumes = {"cluster-pkey-mismatch", "ib-port-not-active"};
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_completion_error() {
  return std::make_unique<NcclIbCompletionError>();
}

}  // namespace trainready
