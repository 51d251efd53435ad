// nccl-ib-mtu-mismatch: the InfiniBand / RoCE ports a run's queue pairs use have different
// active MTUs, which NCCL from 2.20 does not reconcile on both ends of a connection. The release
// history, with the source lines, is in docs/rules/nccl-ib-mtu-mismatch.md.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// From 2.20.3 the receiving queue pair of a connection takes the sender's port MTU (the accept
// path's ncclIbRtrQp before any min: net_ib.cc:1067 @ v2.20.3-1, :1815 @ v2.28.9-1,
// net_ib/connect.cc:840 @ v2.29.2-1); from 2.30.3 it takes the device MTU that earlier accepts
// lowered (connect.cc:1240-1243 @ v2.30.7-1, the same on the dev branch at 86fa684d), on which
// NVIDIA/nccl#2135 (a pull request, not merged) reports LOC_LEN_ERR and hangs. 2.19 took the
// min first (net_ib.cc:807, :825 @ v2.19.4-1).
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
    std::map<int, std::set<std::string>> names;    // MTU -> "host IbDev 0 Port 1"
    std::map<std::string, std::set<int>> by_port;  // "IbDev 1 Port 1" -> its MTUs on all hosts
    for (const NcclIbPortMtu& p : f.ib_port_mtus) {
      by_mtu[p.mtu_bytes].push_back(&p);
      names[p.mtu_bytes].insert(p.host + " " + p.port);
      by_port[p.port].insert(p.mtu_bytes);
    }
    if (by_mtu.size() < 2) return {};
    // Each port number with one MTU on every host: the MTUs differ between rails, and only a
    // connection that crosses rails meets the mismatch.
    bool between_rails = by_port.size() > 1;
    for (const auto& [port, mtus] : by_port) between_rails = between_rails && mtus.size() == 1;

    // The log's releases: NCCL's version lines. RCCL's IB transport is not judged by release.
    const bool rccl = !f.rccl_versions.empty();
    bool in_window = false, older = false;
    if (!rccl)
      for (const auto& v : f.versions)
        (nccl_version_in(v.first, kUnreconciled) ? in_window : older) = true;
    const LogLine* failed = ib_failure(f);

    std::string what;
    for (auto it = by_mtu.rbegin(); it != by_mtu.rend(); ++it)
      what += (what.empty() ? "" : "; ") + std::to_string(it->first) + " bytes on " +
              join_limited(names[it->first], 3);
    if (f.ib_ports_folded > 0)
      what += " (" + std::to_string(f.ib_ports_folded) + " or more ports past the first " +
              std::to_string(f.ib_port_mtus.size()) + " not listed)";
    RuleOutcome o;
    Finding x = finding("Queue pairs of this run use ports with different active MTUs: " + what);
    x.evidence.push_back(evidence(by_mtu.rbegin()->second.front()->line));
    x.evidence.push_back(evidence(by_mtu.begin()->second.front()->line));
    if (failed) x.evidence.push_back(evidence(*failed));

    const std::string history =
        "From NCCL 2.20 the receiving queue pair of a connection takes the sender's port MTU "
        "(2.20 to 2.29), or an MTU that earlier connections lowered (2.30), while the sender uses "
        "the smaller of the two, so a queue pair can expect packets of another size than its peer "
        "sends and fail: \"local access violation work queue error\" and completion errors from "
        "2.20.3, gone once the two servers' MTUs matched (NVIDIA/nccl#1524); LOC_LEN_ERR and hangs "
        "between nodes of MTU 1024 and 4096 (pull request NVIDIA/nccl#2135). NCCL 2.19 and "
        "earlier lowered both ends to the smaller MTU. The source lines per release: `trainready "
        "explain nccl-ib-mtu-mismatch`.";
    std::string who;
    if (rccl) {
      who = "The log is RCCL's (" + f.rccl_versions.begin()->first +
            "), whose IB transport this check does not follow by release; NCCL's is as follows. ";
      x.severity = failed ? Severity::kError : Severity::kWarning;
    } else if (in_window && !older) {
      who = "The log's NCCL release is 2.20 or later. ";
      x.severity = Severity::kError;
    } else if (in_window) {
      who = "The log shows NCCL releases before and from 2.20. ";
      x.severity = failed ? Severity::kError : Severity::kWarning;
    } else if (older) {
      who = "NCCL " + f.versions.begin()->first +
            " runs each connection at the smaller MTU, so this run works; an upgrade to 2.20 or "
            "later turns the mismatch into failures. ";
    } else {
      who = "The log does not print NCCL's release. ";
      x.severity = failed ? Severity::kError : Severity::kWarning;
    }
    if (between_rails) {
      who +=
          "Each port number has one MTU on every host, so the MTUs differ between rails: "
          "connections that stay on a rail are not affected, only those that cross rails "
          "(NCCL_CROSS_NIC). ";
      if (!failed) x.severity = Severity::kWarning;
    }
    x.cause = who + history +
              " NCCL prints each port's active MTU as `mtu N` on its queue-pair lines (the "
              "ibv_mtu number: 3 = 1024, 4 = 2048, 5 = 4096 bytes).";
    x.rank = x.severity == Severity::kError ? (failed ? 82 : 74) : 60;
    x.fix =
        "Give every port of the fabric the same MTU: on RoCE the MTU of the RDMA netdev, the same "
        "on every host and switch port (a netdev MTU of 4200 or more gives an active MTU of 4096, "
        "NVIDIA's RoCE MTU guidance); on InfiniBand the partition's MTU in the subnet manager "
        "(OpenSM partitions.conf `mtu=5` is 4096); no NCCL release from 2.20 to 2.30 reconciles a "
        "mismatch. Confirm: `ibv_devinfo -d <hca> | grep active_mtu` on every host shows one "
        "value, "
        "and the queue-pair lines (NCCL_DEBUG_SUBSYS=INIT,NET) print one `mtu` number.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_mtu_mismatch() { return std::make_unique<NcclIbMtuMismatch>(); }

}  // namespace trainready
