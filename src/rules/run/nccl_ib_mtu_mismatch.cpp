// nccl-ib-mtu-mismatch: the InfiniBand / RoCE ports a run's queue pairs use have different
// active MTUs, which NCCL from 2.20 does not reconcile on both ends of a connection.
#include <map>
#include <string>
#include <vector>

#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// The releases whose two sides of a connection can disagree on its MTU when the ports' MTUs
// differ. 2.19 lowered the sender's MTU to the local port's before the receiving queue pair went
// to RTR (src/transport/net_ib.cc:807, :825 @ v2.19.4-1). From 2.20.3 the accept path calls
// ncclIbRtrQp with the remote device's MTU and takes std::min only after (net_ib.cc:1067, :1112
// @ v2.20.3-1; the same order through v2.28.9-1). From 2.29.2 it lowers the local device's
// active_mtu, for every later connection of that device, and uses that (net_ib/connect.cc:837-840
// @ v2.29.2-1, :1240-1243 @ v2.30.7-1 and on the dev branch at 86fa684d, 2026-06-04), while the
// sender takes the minimum of the MTU the peer sent and its own, which an earlier connection may
// have lowered (connect.cc:759 @ v2.30.7-1): NVIDIA/nccl#2135 reports IBV_WC_LOC_LEN_ERR and hangs
// between nodes of MTU 1024 and 4096 on that code.
constexpr const char* kUnreconciled = ">=2.20";

// A QP or completion error the log shows, the way a receiving queue pair with the wrong MTU fails.
const LogLine* ib_failure(const NcclRunFacts& f) {
  for (NcclProblem p : {NcclProblem::kIbCompletionError, NcclProblem::kModifyQpFailed})
    if (const NcclIssue* i = find_issue(f, p); i && !i->examples.empty())
      return &i->examples.front();
  for (const NcclWarning& w : f.warnings)
    if (w.message.find("work queue") != std::string::npos ||
        w.message.find("async fatal event") != std::string::npos ||
        w.message.find("Got async event") != std::string::npos)
      return &w.first;
  return nullptr;
}

std::string ports_text(const std::vector<const NcclIbPortMtu*>& ports) {
  std::string s;
  for (std::size_t i = 0; i < ports.size() && i < 3; ++i)
    s += (i ? ", " : "") + ports[i]->host + " " + ports[i]->port;
  if (ports.size() > 3) s += " and " + std::to_string(ports.size() - 3) + " more";
  return s;
}

class NcclIbMtuMismatch : public Rule {
 public:
  std::string_view id() const override { return "nccl-ib-mtu-mismatch"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "The InfiniBand / RoCE ports of the run have different MTUs";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // No queue-pair lines (NCCL_DEBUG_SUBSYS without NET, or no IB/RoCE): nothing to compare.
    std::map<int, std::vector<const NcclIbPortMtu*>> by_mtu;
    for (const NcclIbPortMtu& p : f.ib_port_mtus) by_mtu[p.mtu_bytes].push_back(&p);
    if (by_mtu.size() < 2) return {};

    // Which releases printed the log: NCCL's own version lines (RCCL numbers its releases after
    // NCCL's but carries its own IB code, so an RCCL log is judged as one of unknown release).
    bool in_window = false, outside = false;
    if (f.rccl_versions.empty())
      for (const auto& v : f.versions)
        (nccl_version_in(v.first, kUnreconciled) ? in_window : outside) = true;
    const LogLine* failed = ib_failure(f);

    std::string what;
    for (auto it = by_mtu.rbegin(); it != by_mtu.rend(); ++it)
      what += (what.empty() ? "" : "; ") + std::to_string(it->first) + " bytes on " +
              ports_text(it->second);
    RuleOutcome o;
    Finding x = finding("Queue pairs of this run use ports with different active MTUs: " + what);
    x.evidence.push_back(evidence(by_mtu.rbegin()->second.front()->line));
    x.evidence.push_back(evidence(by_mtu.begin()->second.front()->line));
    if (failed) x.evidence.push_back(evidence(*failed));
    const std::string printed =
        "NCCL prints each port's active MTU as `mtu N` on its queue-pair lines (the ibv_mtu "
        "number: 3 = 1024, 4 = 2048, 5 = 4096 bytes).";
    const std::string window =
        "From NCCL 2.20 the two ends of a connection between ports of different MTUs can use "
        "different path MTUs: 2.20 to 2.28 give the receiving queue pair the sender's port MTU "
        "before lowering it to its own (the accept path of src/transport/net_ib.cc @ v2.20.3-1 "
        "to v2.28.9-1), and 2.29 and later lower the receiving device's MTU for all its later "
        "connections while a sender uses the smaller of the peer's MTU and its own, which another "
        "connection may have lowered (net_ib/connect.cc @ v2.29.2-1 "
        "to v2.30.7-1). A queue pair that expects other packet sizes than its peer sends fails: "
        "\"local access violation work queue error\" and completion errors from 2.20.3 on, gone "
        "once the two servers' MTUs matched (NVIDIA/nccl#1524); IBV_WC_LOC_LEN_ERR and hangs "
        "between nodes of MTU 1024 and 4096 (NVIDIA/nccl#2135). 2.19 and earlier lowered it "
        "first and ran at the smaller MTU.";
    if (in_window && !outside) {
      x.severity = Severity::kError;
      x.cause = "The log's NCCL release is 2.20 or later. " + window + " " + printed;
    } else if (in_window || (!outside && failed)) {
      x.severity = failed ? Severity::kError : Severity::kWarning;
      x.cause = window + " " + printed;
    } else if (outside) {
      x.cause =
          "NCCL " + f.versions.begin()->first +
          " lowers each connection to the smaller of the two ports' MTUs, so the run works at "
          "that MTU; from 2.20 the two ends can disagree and the connection fails "
          "(NVIDIA/nccl#1524, #2135), so an upgrade turns this into failures. " +
          printed;
    } else {
      x.cause = "The log does not print NCCL's release. " + window + " " + printed;
    }
    x.rank = x.severity == Severity::kError ? (failed ? 82 : 74) : 60;
    x.fix =
        "Give every port of the fabric the same MTU: on RoCE the MTU of the RDMA netdev, the same "
        "on every host and switch port (a netdev MTU of 4200 or more gives an active MTU of 4096, "
        "NVIDIA's RoCE MTU guidance); on InfiniBand the partition's MTU in the subnet manager (OpenSM partitions.conf "
        "`mtu=5` is 4096); no NCCL release from 2.20 to 2.30 reconciles a mismatch. "
        "Confirm: `ibv_devinfo -d <hca> | grep active_mtu` on every host shows one value, and "
        "the queue-pair lines (NCCL_DEBUG_SUBSYS=INIT,NET) print one `mtu` number.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_mtu_mismatch() { return std::make_unique<NcclIbMtuMismatch>(); }

}  // namespace trainready
