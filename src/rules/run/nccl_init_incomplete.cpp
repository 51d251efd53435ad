// nccl-init-incomplete: ranks began communicator init and never finished it (a hang).
#include <algorithm>
#include <map>
#include <set>

#include "facts/nccl_error_trail.h"
#include "facts/nccl_host_label.h"
#include "facts/nccl_init_phase.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclInitIncomplete : public Rule {
 public:
  std::string_view id() const override { return "nccl-init-incomplete"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Ranks started NCCL init and never reached Init COMPLETE";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    bool init_lines = false;
    for (const auto& [id, c] : f.comms)
      init_lines = init_lines || !c.ranks_complete.empty() || !c.ranks_started.empty();
    // Without any "Init START/COMPLETE" line the log does not cover init (an excerpt): no
    // judgement either way, except on the ranks whose last line is a step only init prints and
    // that blocks on the others (NVLS: the multicast bind waits for every GPU of the group).
    std::vector<const NcclStream*> stuck;
    std::set<std::string> hosts;
    std::size_t in_nvls = 0;
    for (const auto& [k, s] : f.streams) {
      if (s.init_started && !s.init_complete) {
        const bool nvls = init_lines ? nccl_nvls_waiting_step(s.last_message)
                                     : nccl_nvls_init_only_step(s.last_message);
        if (!init_lines && !nvls) continue;
        stuck.push_back(&s);
        hosts.insert(s.host);
        if (nvls) ++in_nvls;
      }
    }
    if (!init_lines && in_nvls == 0)
      return RuleOutcome::skip("the log holds no communicator init lines (NCCL_DEBUG=INFO)");
    if (stuck.empty()) return {};
    // A stuck rank whose error trail passes NCCL's init code ("init.cu:593 -> 2", src/init.cc
    // from 2.4), or whose last line is an error trail's ("bootstrap.cu:259 -> 2": it printed
    // nothing after returning the error), failed its init: the others wait on it, nothing hung
    // by itself (horovod#1651: ibv_create_qp failed on one rank; nccl-tests#15: a bootstrap
    // connect timed out). A trail the rank went on from (a fallback) is no such failure.
    std::vector<const NcclStream*> failed_in_init;
    for (const NcclStream* s : stuck) {
      if (s->host == kUnprefixedHost) continue;
      const std::string head = s->host + ":" + std::to_string(s->pid) + ":";
      auto through_init = [&](const LogLine& l) {
        return l.text.starts_with(head) && (l.text.find(" init.cc:") != std::string::npos ||
                                            l.text.find(" init.cu:") != std::string::npos);
      };
      bool own = f.first_error_return && through_init(*f.first_error_return);
      for (const LogLine& l : f.first_error_trail) own = own || through_init(l);
      if (own || nccl_error_trail_line(s->last_message)) failed_in_init.push_back(s);
    }
    RuleOutcome o;
    Finding x = finding(
        std::to_string(stuck.size()) + " rank(s) on " + std::to_string(hosts.size()) +
        " host(s) started NCCL init and never reached Init COMPLETE: " +
        (failed_in_init.empty()
             ? std::string("the job hangs in communicator setup")
             : failed_in_init.front()->host + " pid " +
                   std::to_string(failed_in_init.front()->pid) +
                   (failed_in_init.size() > 1
                        ? " and " + std::to_string(failed_in_init.size() - 1) + " other rank(s)"
                        : std::string()) +
                   " returned an error from init (an error trail on their own lines), and "
                   "ranks waiting on them stop too"));
    for (std::size_t i = 0; i < stuck.size() && i < 6; ++i) {
      const NcclStream& s = *stuck[i];
      x.evidence.push_back({s.host + " pid " + std::to_string(s.pid) + " [" +
                                std::to_string(s.cuda_dev) + "] last said: " + s.last_message,
                            s.last_seen});
    }
    // Ranks of the communicator with no init line at all: often the ones that wait on nobody.
    // In numeric order, runs of ranks as ranges ("0, 2-3, 5, 8-11"); other lines of theirs
    // (bootstrapSplit, NVLS) are not init lines, so they are "printed no Init START", not unseen.
    for (const auto& [id, c] : f.comms) {
      if (c.ranks_started.empty() && c.ranks_complete.empty()) continue;
      // The runs are the gaps between the ranks that printed: work bounded by the log's lines,
      // not by the nranks a line claims (up to 2^24).
      std::set<int> present = c.ranks_started;
      present.insert(c.ranks_complete.begin(), c.ranks_complete.end());
      present.insert(c.nranks);  // the end, past the last rank
      std::string ranges;
      long absent = 0;
      int runs = 0, r = 0;
      for (int next : present) {
        if (next > r) {
          const int e = next - 1;
          absent += e - r + 1;
          if (++runs <= 12)
            ranges += (runs > 1 ? ", " : "") + std::to_string(r) +
                      (e > r ? (e == r + 1 ? ", " : "-") + std::to_string(e) : "");
        }
        r = next + 1;
      }
      if (absent == 0) continue;
      if (runs > 12) ranges += " and " + std::to_string(runs - 12) + " more run(s)";
      x.evidence.push_back({"communicator " + c.id + " (" + std::to_string(c.nranks) +
                                " ranks): " + std::to_string(absent) +
                                " rank(s) printed no Init START or Init COMPLETE: rank " + ranges,
                            c.first_seen});
    }
    x.cause =
        "Init waits for every rank: one rank that is missing, slow or cannot connect "
        "(wrong NCCL_SOCKET_IFNAME, a firewall, IB partition mismatch, a crashed process) "
        "holds all the others. Look first at the hosts whose ranks never appear or stop "
        "earliest: " +
        join_limited(hosts) + ".";
    x.fix =
        "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET on every rank and compare the "
        "last line of each; check that all ranks run and reach each other (same scale set, "
        "same interface), and `trainready doctor` the hosts named here.";
    x.rank = 30;
    // Where the ranks went silent says more than that they did.
    std::size_t after_p2p = 0, after_bootstrap = 0;
    for (const NcclStream* s : stuck) {
      const std::string& m = s->last_message;
      if (m.find("via P2P") != std::string::npos || m.find("P2P/") != std::string::npos)
        ++after_p2p;
      else if (m.rfind("Bootstrap", 0) == 0 || m.rfind("NET/", 0) == 0 ||
               m.rfind("Using network", 0) == 0 || m.find("Init START") != std::string::npos ||
               m.rfind("cudaDriverVersion", 0) == 0 || m.rfind("NCCL version", 0) == 0)
        ++after_bootstrap;
    }
    const bool failed = !f.issues.empty() || !f.timeouts.empty() || !f.lagging.empty();
    // A failure, not only a WARN no rule places: what says an NVLS stop is a hang.
    bool hard_failure = !f.timeouts.empty() || !f.lagging.empty();
    for (const auto& [k, i] : f.issues)
      hard_failure = hard_failure || k != NcclProblem::kOtherWarning;
    for (const LogLine& l : f.last_lines)
      if (x.evidence.size() < 12) x.evidence.push_back({"last lines: " + l.text, l.where});
    if (in_nvls * 2 > stuck.size()) {
      x.message += "; they went silent inside NVLS (NVLink SHARP) setup";
      x.cause =
          "The ranks stopped while NCCL set up NVLS, the NVSwitch multicast of NVLink SHARP: "
          "binding a buffer to the multicast group blocks until every GPU of the group has "
          "joined it (transport/nvls.cc: 'It will block until all ranks have been added to "
          "the Group'), so one GPU that never joins, or an NVSwitch fabric that Fabric Manager "
          "has not set up, holds every rank there (NVIDIA/nccl#1197: a hang with NVLS on that "
          "NCCL_NVLS_ENABLE=0 removes); hosts named: " +
          join_limited(hosts) + ".";
      x.fix =
          "Confirm with NCCL_NVLS_ENABLE=0 (the hang should go away; NVLS off costs some "
          "all-reduce bandwidth). Then check the NVSwitch fabric on the host (`nvidia-smi -q | "
          "grep -A3 Fabric`: State Completed, Status Success; `systemctl status "
          "nvidia-fabricmanager`; IMEX across nodes), that every rank of the communicator was "
          "started, and update NCCL and the driver; keep NCCL_NVLS_ENABLE=0 until the fabric is "
          "repaired.";
      // Only a failure, a timeout or an abort says the job hung: an excerpt that ends here, or a
      // capture of the NVLS subsystem alone (no Init COMPLETE printed), may simply stop here.
      x.rank = hard_failure ? 85 : 40;
    } else if (after_p2p * 2 > stuck.size()) {
      x.message += "; they went silent right after connecting P2P channels";
      x.cause =
          "Silence right after P2P connections is the signature of PCIe peer-to-peer traffic "
          "that never arrives: PCI Access Control Services (ACS) or the IOMMU redirect it "
          "through the root complex (NCCL troubleshooting guide, 'PCI Access Control "
          "Services'); hosts named: " +
          join_limited(hosts) + ".";
      x.fix =
          "Confirm with NCCL_P2P_DISABLE=1 (the hang should go away, slower); then disable ACS "
          "(`lspci -vvv | grep ACSCtl` should show SrcValid-; BIOS or setpci) and set the IOMMU "
          "to passthrough (iommu=pt) or off; in VMs enable ATS.";
      x.rank = 85;
    } else if (after_bootstrap * 2 > stuck.size() && !f.multi_node()) {
      // One host, stopped early: nothing says the job hung rather than the capture stopped.
    } else if (after_bootstrap * 2 > stuck.size()) {
      x.message += "; they went silent during bootstrap / network setup";
      x.cause =
          "Ranks stopped right after bootstrap and network selection: they wait for a peer "
          "they cannot reach (a firewall between hosts, the wrong interface chosen without "
          "NCCL_SOCKET_IFNAME, a rank that never started); hosts named: " +
          join_limited(hosts) + ".";
      x.fix =
          "Check that the hosts reach each other on the interface NCCL printed (open the "
          "ports or the whole subnet between them), set NCCL_SOCKET_IFNAME on every host, and "
          "check that every rank was launched.";
      x.rank = 45;
    }
    const bool nvls_stop = in_nvls * 2 > stuck.size();
    // A communicator of one rank waits for no peer: its init has nobody to be held by.
    const bool alone = std::all_of(stuck.begin(), stuck.end(),
                                   [](const NcclStream* st) { return st->nranks == 1; });
    if (alone && !hard_failure) {
      x.cause =
          "Every rank that stopped is the only rank of its communicator (nranks 1), so its init "
          "waits for no peer: a log that ends there was most likely cut while the job ran. A "
          "one-rank init that really stops is a local step (a CUDA call, the GPU itself): run "
          "it again with NCCL_DEBUG=INFO and see whether Init COMPLETE follows.";
      x.fix =
          "Capture the whole log (to the job's end, or to Init COMPLETE); if it really stops, "
          "look at the rank's own process (py-spy dump / gdb) and `nvidia-smi` on its GPU.";
    }
    if (!failed_in_init.empty()) {
      x.cause =
          "Init did not hang on its own: a rank's init returned an error, and the ranks of its "
          "communicator wait for it. The WARN or error trail on that rank's lines is the cause "
          "(the finding that reads it); the ranks' silence is its consequence.";
      x.fix = "Fix the error that rank printed (its reading above), then rerun.";
      x.rank = std::min(x.rank, 30);
    }
    if (failed_in_init.empty() &&
        (!failed || (nvls_stop && !hard_failure) || (alone && !hard_failure)) && x.rank < 45) {
      // Nothing in the log says the job hung: a log that ends mid-init may be an excerpt or
      // a copy taken while the job still ran.
      x.severity = Severity::kWarning;
      x.message += " (or the capture was cut: the log ends mid-init with no error or timeout)";
      x.cause =
          "The log ends while init was still under way and holds no error, timeout or "
          "abort: either the job hung there or the capture stops early. " +
          x.cause;
    }
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_init_incomplete() { return std::make_unique<NcclInitIncomplete>(); }

}  // namespace trainready
