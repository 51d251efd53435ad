// nccl-ranks-behind: NCCL's RAS operation counts or PyTorch's Flight Recorder sequence numbers
// say some ranks have not reached the collective the others are in. Names the ranks behind (not
// the ones ahead, which RAS lists when they are fewer: NVIDIA/nccl#1911), their node, the
// communicator and the collective, and what the node's snapshot or recording says of its paths.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"
#include "rules/run/telemetry_localise.h"

namespace trainready {
namespace {

constexpr const char* kDumpBehind = "dump of a rank behind";

std::string rank_list(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > 8) s += ", ...";
  return s;
}

class NcclRanksBehind : public Rule {
 public:
  std::string_view id() const override { return "nccl-ranks-behind"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Ranks behind the others in a collective (NCCL RAS, Flight Recorder)";
  }
  RuleScope scope() const override { return RuleScope::kTelemetry; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const CollectiveProgressFacts& f = *ctx.progress;
    if (f.ras.empty() && f.flight_recorder.empty())
      return RuleOutcome::does_not_apply(
          "no ncclras report or Flight Recorder dump given (only these count operations per "
          "rank)");
    const Localisation loc = localise(f);
    const HostNames names = host_names(f);
    RuleOutcome o;
    // RAS and the Flight Recorder often name the same ranks: one finding, both as evidence.
    std::map<std::vector<int>, std::size_t> by_ranks;
    for (const BehindGroup& g : loc.behind) {
      std::vector<int> key;
      for (const BehindGroup::Rank& r : g.behind) key.push_back(r.rank);
      std::sort(key.begin(), key.end());
      Finding x = behind(g, names, ctx);
      auto it = key.empty() || static_cast<int>(key.size()) != g.behind_count ? by_ranks.end()
                                                                              : by_ranks.find(key);
      if (it != by_ranks.end()) {
        // The second source's view of the same ranks; the node's paths are there already.
        Finding& first = o.findings[it->second];
        first.evidence.push_back({x.message.substr(0, x.message.find(" — ")), {}});
        for (const Evidence& e : x.evidence)
          if (e.text.rfind(g.source + ":", 0) == 0 || e.text == kDumpBehind)
            first.evidence.push_back(e);
        continue;
      }
      if (!key.empty() && static_cast<int>(key.size()) == g.behind_count)
        by_ranks[key] = o.findings.size();
      o.findings.push_back(std::move(x));
    }
    if (!loc.silent.empty()) o.findings.push_back(silent(loc.silent, names, ctx));
    if (o.findings.empty() && loc.ras_all_ok) {
      // NVIDIA/nccl#1730: RAS said RUNNING/OK while PyTorch's watchdog timed out.
      const bool timed_out = ctx.nccl_log && !ctx.nccl_log->timeouts.empty();
      if (timed_out || !loc.stuck_inside.empty()) o.findings.push_back(all_agree(loc, ctx));
    }
    return o;
  }

 private:
  Finding behind(const BehindGroup& g, const HostNames& names, const RuleContext& ctx) const {
    // The ranks behind with their node, and the paths the node's facts show.
    std::vector<std::string> who;
    std::set<std::string> hosts;
    std::vector<Evidence> paths;  // what a node's facts show wrong
    std::vector<Evidence> quiet;  // nodes whose facts were given and show nothing wrong
    for (const BehindGroup::Rank& r : g.behind) {
      const std::string host =
          display_host(names, r.host, g.source == "Flight Recorder" ? r.rank : -1);
      std::string w = "rank " + std::to_string(r.rank);
      if (!host.empty()) w += " on " + host;
      if (r.gpu >= 0) w += " (GPU " + std::to_string(r.gpu) + ")";
      if (!r.last.empty()) w += " [last entered " + r.last + "]";
      if (who.size() < 8) who.push_back(w);
      if (!host.empty() && hosts.insert(host).second) {
        std::string which;
        std::vector<std::string> p = node_paths(host, ctx.nodes, ctx.watch, which);
        if (!p.empty()) {
          std::string line = host + ": ";
          for (std::size_t i = 0; i < p.size() && i < 4; ++i) line += (i ? "; " : "") + p[i];
          paths.push_back({line, {which, 0}});
        } else if (!which.empty()) {
          quiet.push_back({host + ": " + which +
                               " shows no IB port down, NVLink, ECC, Xid or watch label on it",
                           {which, 0}});
        }
      }
    }
    std::string names_text;
    for (std::size_t i = 0; i < who.size(); ++i) names_text += (i ? ", " : "") + who[i];
    if (g.behind_count > static_cast<int>(g.behind.size())) {
      const int rest = g.behind_count - static_cast<int>(g.behind.size());
      names_text += (names_text.empty() ? "" : " and ") + std::to_string(rest) +
                    (g.behind.empty() ? " rank(s)" : " more") +
                    (g.unnamed.empty() ? "" : " (" + g.unnamed + ")");
    }
    const bool fr = g.source == "Flight Recorder";
    std::string msg = std::to_string(g.behind_count) + " rank(s) behind in " + g.collective +
                      " of " + (fr ? "" : "communicator ") + g.comm + ": " + names_text;
    if (!paths.empty()) msg += " — " + paths.front().text;
    Finding x = finding(msg);
    x.evidence.push_back(
        {g.source + ": " + std::to_string(g.ahead_count) + " rank(s)" +
             (g.ahead_ranks.empty() ? "" : " (" + rank_list(g.ahead_ranks) + ")") +
             (fr ? " entered " + g.collective + " #" + std::to_string(g.ahead_at)
                 : " launched " + std::to_string(g.ahead_at) + " " + g.collective + " operations") +
             "; the rank(s) behind " + (fr ? "entered up to #" : "launched ") +
             std::to_string(g.behind_at),
         g.where.empty() ? Provenance{} : g.where.front()});
    for (std::size_t i = 1; i < g.where.size() && i < 4; ++i)
      x.evidence.push_back({kDumpBehind, g.where[i]});
    for (const Evidence& e : paths) x.evidence.push_back(e);
    for (const Evidence& e : quiet) x.evidence.push_back(e);
    x.cause =
        "A collective completes only when every rank of its communicator has joined it. The "
        "ranks ahead are waiting inside " +
        g.collective + " for the ranks named here, which have not " +
        (fr ? "entered it" : "launched it") +
        ": they are still computing (a slow GPU, input or CPU), stuck before the call (I/O, a "
        "lock, a Python exception on that rank), or the program issues collectives in a "
        "different order there.";
    if (!paths.empty())
      x.cause += " The node's own facts point at a path: " + paths.front().text + ".";
    x.fix =
        "Look at the ranks behind first: their stack (py-spy dump --pid), their node (`trainready "
        "doctor` on it, `trainready watch` beside the job), their last Flight Recorder entries. "
        "The ranks ahead are victims, not culprits.";
    x.rank = 30;
    return x;
  }

  Finding silent(const std::vector<SilentRank>& s, const HostNames& names,
                 const RuleContext& ctx) const {
    // One process can be both "considered dead" and a communicator's missing rank.
    std::map<std::pair<std::string, long>, std::string> procs;
    bool dead = false;
    for (const SilentRank& r : s) {
      const std::string host = display_host(names, r.host, -1);
      std::string& w = procs[{r.host, r.pid}];
      if (w.empty() || r.rank >= 0)
        w = (r.rank >= 0 ? "rank " + std::to_string(r.rank) + " " : "") + "process " +
            std::to_string(r.pid) + (host.empty() ? "" : " on " + host);
      dead = dead || r.dead;
    }
    std::set<std::string> who;
    for (const auto& [k, w] : procs) who.insert(w);
    Finding x = finding("RAS got no data from " + std::to_string(who.size()) + " process(es)" +
                        (dead ? ", some considered dead" : "") + ": " + join_limited(who));
    for (std::size_t i = 0; i < s.size() && i < 6; ++i) {
      std::string which;
      const std::string host = display_host(names, s[i].host, -1);
      std::vector<std::string> p = node_paths(host, ctx.nodes, ctx.watch, which);
      // RAS's job-level "Process N on node H managing GPU G" names no rank.
      x.evidence.push_back({(s[i].rank >= 0 ? "rank " + std::to_string(s[i].rank) + " " : "") +
                                "process " + std::to_string(s[i].pid) + " on " + host +
                                (p.empty() ? "" : ": " + p.front()),
                            s[i].where});
    }
    x.cause =
        "RAS reaches every NCCL process over its own TCP mesh; a process it cannot reach has "
        "exited, hung hard (not scheduling its RAS thread), or lost its network. The other ranks "
        "wait for it in their next collective.";
    x.fix =
        "Check that process and its node first (is it alive, dmesg, `trainready doctor` there).";
    x.rank = 31;
    return x;
  }

  Finding all_agree(const Localisation& loc, const RuleContext& ctx) const {
    std::string msg =
        "RAS says every rank launched the same operations, yet the job " +
        std::string(ctx.nccl_log && !ctx.nccl_log->timeouts.empty() ? "timed out" : "stopped") +
        ": the hang is inside a collective all ranks entered";
    Finding x = finding(msg);
    x.severity = Severity::kWarning;
    for (const std::string& s : loc.stuck_inside) x.evidence.push_back({s, {}});
    if (ctx.nccl_log)
      for (std::size_t i = 0; i < ctx.nccl_log->timeouts.size() && i < 2; ++i)
        x.evidence.push_back(evidence(ctx.nccl_log->timeouts[i].line));
    x.cause =
        "RAS counts operations each rank *launched* (NVIDIA/nccl#1730): equal counts mean no "
        "rank is missing from the collective, so the collective itself does not finish: a "
        "network path that stalls (an IB link down or flapping, a PKey or routing problem), a "
        "GPU that stopped (Xid), or a transport deadlock. A rank can also be stuck outside NCCL "
        "in a communicator RAS does not list (a gloo group).";
    x.fix =
        "Look at the paths of every node (`trainready doctor`, `trainready watch`: a GPU at full "
        "utilisation with no bytes moving is spinning in that collective), and at the Flight "
        "Recorder dumps of all ranks for the last collective each completed.";
    x.rank = 29;
    return x;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ranks_behind() { return std::make_unique<NcclRanksBehind>(); }

}  // namespace trainready
