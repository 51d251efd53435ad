// nccl-hosts-taken-as-one: NCCL before 2.5 connected ranks of two machines over P2P / SHM, which
// cannot cross machines, because the machines share the name NCCL told hosts apart by
// (NcclRunFacts::host_device_clash, parsers/nccl_ring_claims.h; NVIDIA/nccl#187).
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclHostsTakenAsOne : public Rule {
 public:
  std::string_view id() const override { return "nccl-hosts-taken-as-one"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "NCCL took two machines for one host and connected them over P2P / shared memory";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    if (!f.host_device_clash) return {};
    const NcclHostDeviceClash& c = *f.host_device_clash;
    RuleOutcome o;
    Finding x =
        finding("A rank on " + c.host + " reached rank " + std::to_string(c.peer) +
                " over an intra-node transport on CUDA device " + std::to_string(c.dev) +
                ", which rank " + std::to_string(c.holder) + " of " + c.host + " holds: rank " +
                std::to_string(c.peer) + " is on another machine NCCL took for this one");
    x.evidence.push_back(evidence(c.holder_line));
    x.evidence.push_back(evidence(c.peer_line));
    if (!f.versions.empty())
      x.evidence.push_back(
          {"NCCL version " + f.versions.begin()->first, f.versions.begin()->second.where});
    x.rank = 90;
    // NCCL 2.3 - 2.4: the device numbers on these lines are what the parser reads; the host
    // hash is getHostHash in misc/utils.cu (v2.4.2-1) and misc/utils.cc (v2.4.6-1, v2.5.6-1).
    x.cause =
        "P2P (CUDA IPC) and shared-memory connections only join ranks NCCL counts as one host, "
        "and NCCL before 2.5 counts machines as one host when their hostnames agree: through "
        "2.4.2 only the part before the first '.' counts (node1.rack1 and node1.rack2 are one "
        "host), from 2.4.6 the whole name; the namespace links it also hashes (uts, from 2.4.6 mnt "
        "too) are the same for processes outside containers on every machine. The ranks of this "
        "host each print a device of their own, so a second rank on "
        "one of those devices is not one of them: it is on a second machine of the same name. NCCL "
        "then opens a CUDA IPC handle or a shared-memory "
        "segment of another machine: 'unhandled cuda error', 'unhandled system error' or a "
        "hang follow.";
    x.fix =
        "Give every machine of the job a distinct hostname (for NCCL 2.4.2 and older, distinct "
        "before the first '.'), or run NCCL 2.5 or newer, which adds the kernel's boot id "
        "(/proc/sys/kernel/random/boot_id) to the host hash. To confirm: `hostname` and "
        "`hostname -s` on each machine; two that print the same name are the pair.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_hosts_taken_as_one() {
  return std::make_unique<NcclHostsTakenAsOne>();
}

}  // namespace trainready
