// nccl-inter-node-not-ib: traffic between nodes went over sockets, not InfiniBand.
#include <algorithm>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclInterNodeNotIb : public Rule {
 public:
  std::string_view id() const override { return "nccl-inter-node-not-ib"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Inter-node NCCL traffic is not on InfiniBand (NET/Socket)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const TransportUse* socket = nullptr;
    const TransportUse* ib = nullptr;
    for (const auto& [k, t] : f.transports) {
      if (t.kind == TransportKind::kNetSocket && !socket) socket = &t;
      if (t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetOther) ib = &t;
    }
    const bool socket_net = f.networks.count("Socket") > 0;
    // A log at NCCL_DEBUG=WARN prints no connections, but when libibverbs would not load (or no
    // InfiniBand device was found) and no other network was named, NCCL had only sockets left.
    bool other_net = false;
    for (const auto& n : f.networks) other_net = other_net || n != "Socket";
    const bool ib_unavailable = (f.ibverbs_missing || f.ib_no_device) && !ib && !other_net;
    if (!socket && !socket_net && !ib_unavailable) {
      if (f.networks.empty() && f.transports.empty())
        return RuleOutcome::skip("the log shows neither the network NCCL chose nor any connection");
      return {};
    }
    RuleOutcome o;
    const bool multi = f.multi_node();
    // One host in the log, but a communicator larger than one node's GPUs (8 on an HGX / DGX
    // board and on Azure's ND sizes): a pasted excerpt of one host of a larger job.
    // NCCL's own count says otherwise when it prints "nNodes 1" (a 16-GPU HGX-2 / DGX-2).
    int nranks = 0;
    bool one_node = false;
    for (const auto& [id, c] : f.comms) {
      nranks = std::max(nranks, c.nranks);
      one_node = one_node || c.nnodes == 1;
    }
    const bool larger = !multi && !one_node && nranks > 8;
    Finding x = finding(
        multi    ? "Inter-node traffic went over TCP sockets (NET/Socket), not InfiniBand: expect "
                   "about 1-3 GB/s instead of hundreds"
        : larger ? "NCCL found no InfiniBand and chose sockets; the log shows one host, but a "
                   "communicator of " +
                       std::to_string(nranks) +
                       " ranks is more than one 8-GPU node holds: if its ranks span hosts, their "
                       "traffic goes over TCP (about 1-3 GB/s instead of hundreds)"
                 : "NCCL found no InfiniBand and chose sockets; the log shows one node, where the "
                   "network carries nothing, but across nodes this setup would use TCP");
    if (!multi) x.severity = larger ? Severity::kWarning : Severity::kInfo;
    if (socket) x.evidence.push_back(evidence(socket->example));
    for (const auto& l : f.socket_interfaces) x.evidence.push_back(evidence(l));
    std::string cause;
    std::string fix;
    auto env = [&](const char* k) -> const EnvSetting* {
      auto it = f.env.find(k);
      return it == f.env.end() ? nullptr : &it->second;
    };
    if (f.net_type_mismatch) {
      // Said by the failure itself, whatever else the ranks printed.
      x.evidence.push_back(evidence(*f.net_type_mismatch));
      cause =
          "The ranks chose different networks: a peer connected with NET/IB's socket type (4) "
          "to a NET/Socket listener (3), or the reverse (socketFinalizeAccept, misc/socket.cc; "
          "the types of include/socket.h). InfiniBand works on some hosts and not on others, or "
          "NCCL_IB_DISABLE / NCCL_NET / NCCL_IB_HCA differ between hosts, and NCCL fails the "
          "connection.";
      fix =
          "Make every host choose the same network: compare each host's 'Using network' line "
          "and NCCL_IB_* / NCCL_NET settings; run `trainready doctor` on the hosts that fell "
          "back to sockets (ports, driver, /dev/infiniband in the container), or set "
          "NCCL_IB_DISABLE=1 on every host to run on sockets everywhere.";
    } else if (const EnvSetting* net_env = env("NCCL_NET");
               f.ofi_plugin_warning && !other_net && !ib &&
               !(net_env && net_env->value == "Socket")) {
      // (NCCL_NET=Socket: NCCL still initialises the plugin, netGetState before the name check
      // in ncclNetInit, src/net.cc v2.19.3-1, but the setting, not the plugin, chose sockets.)
      // aws-ofi-nccl loaded and failed: NCCL went on with its own IB (no libibverbs on an EFA
      // host: expected) and then sockets (net.cc's fallback over the plugin list).
      x.evidence.push_back(evidence(*f.ofi_plugin_warning));
      cause =
          "The AWS OFI network plugin (aws-ofi-nccl) loaded and failed, so NCCL fell back to its "
          "internal transports; InfiniBand is not there either (on EFA instances libibverbs' "
          "absence is expected), which left TCP sockets. The plugin's own failure is the cause: "
          "its finding (nccl-known-signature / nccl-message) says why.";
      fix =
          "Fix the plugin's failure, then check that NCCL uses it: its log says 'NET/OFI "
          "Selected Provider is efa' and 'Using network AWS Libfabric' (or 'Libfabric'). Do not "
          "install libibverbs to silence the IB line: EFA is reached through the plugin.";
    } else if (const EnvSetting* e = env("NCCL_IB_DISABLE"); e && e->value != "0") {
      x.evidence.push_back(evidence(e->line));
      cause = "NCCL_IB_DISABLE=" + e->value + " in the job's environment turned InfiniBand off.";
      fix =
          "Remove NCCL_IB_DISABLE from the job environment (launcher, container, ~/.bashrc, "
          "/etc/nccl.conf).";
    } else if (const EnvSetting* n = env("NCCL_NET"); n && n->value == "Socket") {
      x.evidence.push_back(evidence(n->line));
      cause = "NCCL_NET=Socket forces the socket transport.";
      fix = "Remove NCCL_NET=Socket from the job environment.";
    } else if (f.ibverbs_missing) {
      x.evidence.push_back(evidence(*f.ibverbs_missing));
      cause = "NCCL could not load libibverbs, so it cannot use any RDMA device.";
      fix =
          "First check that the nodes have InfiniBand or RoCE at all (`ibv_devinfo` on the host; "
          "`trainready doctor` says which - on Azure only sizes with 'r' in their name, "
          "ND96isr_H100_v5 or NC24rs_v3, do, and no library helps the others). Where they do, "
          "install rdma-core / libibverbs and its provider (or use an HPC image such as "
          "microsoft-dsvm ubuntu-hpc), and make them visible inside the container (the library "
          "and /dev/infiniband).";
    } else if (f.ib_no_device) {
      x.evidence.push_back(evidence(*f.ib_no_device));
      cause =
          "NCCL found no usable InfiniBand device (libibverbs listed none with an active "
          "port): in a container, /dev/infiniband not passed in; otherwise no HCA, the driver "
          "not loaded, every port down, or NCCL_IB_HCA matching nothing.";
      fix =
          "In a container pass /dev/infiniband (and IPC_LOCK, e.g. docker --device "
          "/dev/infiniband --cap-add IPC_LOCK; Slurm/pyxis and Kubernetes device plugins "
          "likewise); on the host run `ibv_devinfo` / `trainready doctor` (ports, driver, HCAs); "
          "on Azure use an InfiniBand size (an 'r' in the name) in one scale set.";
    } else {
      cause =
          "NCCL chose sockets without saying why in this log (run with NCCL_DEBUG=INFO "
          "NCCL_DEBUG_SUBSYS=INIT,NET to see the device probe).";
      fix = "Check NCCL_IB_HCA, NCCL_NET and the node with `trainready doctor`.";
    }
    if (ib) cause += " Some connections did use " + ib->label + ".";
    x.cause = cause;
    x.fix = fix;
    // What on the nodes explains the fallback: one finding, about placement or the HCAs.
    x.subsumes = {"ib-port-not-active",    "ib-hca-missing",
                  "ib-driver-not-loaded",  "nccl-ib-disabled",
                  "vm-size-no-infiniband", "vm-not-in-scale-set",
                  "cluster-pkey-mismatch", "cluster-placement-mismatch"};
    // A run that failed is read for its failure first (an error trail, a problem NCCL's lines
    // name; a WARN no rule reads is not a failure): sockets make a run slow, not fail, unless the
    // failure's own reading says so.
    bool failed = f.first_error_return.has_value();
    for (const auto& [problem, issue] : f.issues)
      failed = failed || problem != NcclProblem::kOtherWarning;
    // Below every reading of the failure itself (nccl-message scales its knowledge-base ranks to
    // 0-45), above only the generic nccl-warnings (ranks under 9): on pytorch/pytorch#23534 (an
    // AWS host with no IB, where sockets are the expected transport) the SHM failure comes first.
    x.rank = failed ? 9 : 75;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_inter_node_not_ib() {
  return std::make_unique<NcclInterNodeNotIb>();
}

}  // namespace trainready
