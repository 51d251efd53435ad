// nccl-connection-failed: a socket connection between ranks failed or a peer went away.
#include <algorithm>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// Whether the knowledge base reads every line of `i` as a local daemon's socket
// (NcclKbEntry::local_socket): each example ends with a message such a reading explains, and
// those readings explain at least as many lines as `i` counts (the examples are the first few).
bool local_daemon_lines(const NcclRunFacts& f, const NcclIssue& i) {
  std::uint64_t lines = 0;
  std::vector<const std::string*> messages;
  const auto readings = read_nccl_messages(f, NcclKnowledgeBase::builtin());
  for (const NcclMessageReading& r : readings) {
    if (!r.entry->local_socket) continue;
    lines += r.count;
    for (const std::string& m : r.messages) messages.push_back(&m);
  }
  if (lines < i.count) return false;
  return std::all_of(i.examples.begin(), i.examples.end(), [&](const LogLine& l) {
    const std::string_view t = l.text;
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string* m) { return !m->empty() && t.ends_with(*m); });
  });
}

// Every line kept is a send or receive on a connection that was up ("Call to recv from X failed",
// "Call to send to X failed", socketProgress's), none a connect.
bool on_established_connections(const NcclIssue& i) {
  if (i.examples.empty()) return false;
  for (const LogLine& l : i.examples) {
    const bool data = l.text.find("Call to recv") != std::string::npos ||
                      l.text.find("Call to send") != std::string::npos;
    if (!data || l.text.find("Connect to") != std::string::npos) return false;
  }
  return true;
}

class NcclConnectionFailed : public Rule {
 public:
  std::string_view id() const override { return "nccl-connection-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Connections between ranks failed, or a remote process exited";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclIssue* i = find_issue(*ctx.nccl_log, NcclProblem::kConnectionFailed);
    if (!i) return {};
    // A socket the knowledge base knows as a local daemon's (GPUDirect-TCPXO's UNIX socket to its
    // RxDM: "receive() error: 32: Broken pipe") is no connection between ranks: when every line
    // is one - the examples kept are, no peer is named, and those readings hold at least as many
    // lines as the problem counts - the reading of those lines (nccl-message) is the finding.
    if (i->peers.empty() && !i->examples.empty() && local_daemon_lines(*ctx.nccl_log, *i))
      return {};
    RuleOutcome o;
    Finding x = finding("Connection failure(s): " + join_limited(i->details) +
                        (i->peers.empty() ? "" : " (peer " + join_limited(i->peers) + ")"));
    add_issue_evidence(x, *i);
    x.onset = first_onset(i->examples);
    if (i->details.count("Connection refused")) {
      x.cause =
          "Nothing listened at the peer's address: the peer process had already exited "
          "(look for its first error), it listens on another interface than the one "
          "this rank dialled, or a firewall between the hosts rejects the port (NCCL listens "
          "on ephemeral ports, so a firewall that opens only some ports refuses the rest).";
    } else if (i->details.size() == 1 && i->details.count("Connection timed out") &&
               on_established_connections(*i)) {
      // ETIMEDOUT from recv/send: TCP gave up retransmitting on a connection that was up
      // (tcp(7)), not a connect that never reached the peer.
      x.cause =
          "The connection to the peer was up and then stopped carrying data: a send or receive "
          "on it timed out (ETIMEDOUT on an established TCP connection: the peer stopped "
          "acknowledging until TCP gave up retransmitting, tcp(7)) - the peer's host went down "
          "or hung, or the network between the two dropped its packets for minutes (a pod "
          "network, a NIC or link that went down). The address was reachable, so this is not "
          "the interface NCCL picked.";
      x.fix =
          "Find what happened to the peer at that time: its own log, `dmesg` and the node's "
          "state (a reboot, an OOM kill, a hang); check the path between the two hosts (`ip -s "
          "link` and `dmesg` for link resets on both, the pod network's logs).";
    } else if (i->details.count("Connection timed out") || i->details.count("No route to host") ||
               i->details.count("Network is unreachable")) {
      x.cause =
          "The peer's address is not reachable from here: a firewall / network security "
          "group, or NCCL_SOCKET_IFNAME picking an interface the other nodes cannot route "
          "to (docker0, lo, a private bridge).";
    } else {
      x.cause =
          "A peer closed the connection or died mid-run; this rank only reports the "
          "consequence.";
      // What happened to the peer, which failed first: below an earlier failure.
      x.consequence = true;
      // A connection the peer closed or reset was up, so the interface and the firewall are not
      // in question; "remote process exited or there was a network error" (ncclRemoteError)
      // does not say which.
      const bool was_up = std::all_of(i->details.begin(), i->details.end(), [](const auto& d) {
        return d == "Connection closed" || d == "Connection reset" || d == "Broken pipe" ||
               d == "connection closed by remote" || d == "peer shutdown";
      });
      if (was_up) {
        x.general_fix = true;
        x.fix =
            "Find the first error in time across all ranks and in the peer's own log (that "
            "process failed first, or was killed: its host's dmesg and the scheduler's log say "
            "so); this rank's failure follows it.";
      }
    }
    if (x.fix.empty()) {
      x.general_fix = true;
      x.fix =
          "Find the first error in time across all ranks (that host is the cause); set "
          "NCCL_SOCKET_IFNAME to the interface every node shares (eth0 on Azure) and allow "
          "traffic between the nodes.";
    }
    x.rank = 50;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_connection_failed() {
  return std::make_unique<NcclConnectionFailed>();
}

}  // namespace trainready
