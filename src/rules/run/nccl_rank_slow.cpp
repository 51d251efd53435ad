// nccl-rank-slow: NCCL Inspector bus bandwidth per communicator. Communicators of one shape (same
// collective, message size, ranks and nodes: the data-parallel groups of one job) should move
// bytes at one speed; one that is well below its peers runs over a slower path, and the node it
// has that the fast ones lack is where to look. Within one communicator the ranks' own busbw does
// not localise: every rank waits for the slowest inside the kernel, and a rank that arrives late
// times the shortest kernel.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"
#include "rules/run/telemetry_localise.h"

namespace trainready {
namespace {

// At least 25 % below the peers' median, as the fleet pair-bandwidth outliers
// (src/queries/pair_outliers.h, min_drop).
constexpr double kMaxShareOfMedian = 0.75;
constexpr std::uint64_t kMinOps = 3;  // operations per communicator before its speed counts

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct CommSpeed {
  std::string id;
  std::string name;
  double busbw = 0;  // median over its ranks' medians, GB/s
  std::uint64_t ops = 0;
  std::set<std::string> hosts;
  Provenance where;
};

class NcclRankSlow : public Rule {
 public:
  std::string_view id() const override { return "nccl-rank-slow"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A communicator well below its peers' bus bandwidth (NCCL Inspector)";
  }
  RuleScope scope() const override { return RuleScope::kTelemetry; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const CollectiveProgressFacts& f = *ctx.progress;
    if (f.inspector.empty()) return RuleOutcome::does_not_apply("no NCCL Inspector output given");
    // shape -> communicator -> its ranks' medians
    using Shape = std::tuple<std::string, std::uint64_t, int, int>;
    std::map<Shape, std::map<std::string, CommSpeed>> shapes;
    std::map<Shape, std::map<std::string, std::vector<double>>> samples;
    for (const InspectorSeries& s : f.inspector) {
      if (s.busbw_median_gbs <= 0) continue;
      Shape k{s.collective, s.msg_size_bytes, s.nranks, s.nnodes};
      CommSpeed& c = shapes[k][s.comm_id];
      c.id = s.comm_id;
      c.name = s.comm_name;
      c.ops = std::max(c.ops, s.count);
      if (!s.host.empty()) c.hosts.insert(s.host);
      if (c.where.source.empty()) c.where = s.where;
      samples[k][s.comm_id].push_back(s.busbw_median_gbs);
    }
    RuleOutcome o;
    bool compared = false;
    for (auto& [shape, comms] : shapes) {
      std::vector<double> speeds;
      for (auto& [id, c] : comms) {
        c.busbw = median_of(samples[shape][id]);
        if (c.ops >= kMinOps) speeds.push_back(c.busbw);
      }
      if (speeds.size() < 2) continue;
      compared = true;
      const double med = median_of(speeds);
      std::set<std::string> fast_hosts;
      std::vector<const CommSpeed*> slow;
      for (const auto& [id, c] : comms) {
        if (c.ops < kMinOps) continue;
        if (c.busbw < kMaxShareOfMedian * med)
          slow.push_back(&c);
        else
          fast_hosts.insert(c.hosts.begin(), c.hosts.end());
      }
      for (const CommSpeed* c : slow)
        o.findings.push_back(slow_comm(*c, shape, med, speeds.size(), fast_hosts, ctx));
    }
    if (!compared && o.findings.empty())
      return RuleOutcome::does_not_apply(
          "no two communicators of one shape (collective, message size, ranks, nodes) with " +
          std::to_string(kMinOps) + "+ operations each to compare");
    return o;
  }

 private:
  Finding slow_comm(const CommSpeed& c, const std::tuple<std::string, std::uint64_t, int, int>& k,
                    double med, std::size_t peers, const std::set<std::string>& fast_hosts,
                    const RuleContext& ctx) const {
    const auto& [coll, bytes, nranks, nnodes] = k;
    std::set<std::string> only_here;
    for (const std::string& h : c.hosts)
      if (!fast_hosts.count(h)) only_here.insert(h);
    const std::set<std::string>& suspects = only_here.empty() ? c.hosts : only_here;
    std::vector<Evidence> paths;
    for (const std::string& h : suspects) {
      std::string which;
      std::vector<std::string> p = node_paths(h, ctx.nodes, ctx.watch, which);
      if (!p.empty()) paths.push_back({h + ": " + p.front(), {which, 0}});
    }
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s of %s moves %.1f GB/s, %.0f %% of the %.1f GB/s median of %zu "
                  "communicators like it",
                  coll.c_str(),
                  c.name.empty() || c.name == "unknown" ? c.id.c_str() : c.name.c_str(), c.busbw,
                  med > 0 ? 100 * c.busbw / med : 0.0, med, peers);
    std::string msg = buf;
    msg += only_here.empty() ? "; its nodes: " + join_limited(c.hosts)
                             : "; node(s) only it uses: " + join_limited(only_here);
    if (!paths.empty()) msg += " — " + paths.front().text;
    Finding x = finding(msg);
    std::snprintf(buf, sizeof buf,
                  "NCCL Inspector: %s, %llu bytes, %d ranks on %d node(s), %llu operation(s), "
                  "median busbw %.1f GB/s",
                  coll.c_str(), static_cast<unsigned long long>(bytes), nranks, nnodes,
                  static_cast<unsigned long long>(c.ops), c.busbw);
    x.evidence.push_back({buf, c.where});
    for (const Evidence& e : paths) x.evidence.push_back(e);
    x.cause =
        "Communicators of the same size and message size run the same algorithm over the same "
        "kind of links; one that is 25 % or more below the others runs over a slower path "
        "(a degraded or down IB port, NVLink errors, a NIC on the wrong NUMA node) on one of its "
        "nodes. The whole communicator moves at its slowest link's speed.";
    x.fix =
        "Run `trainready doctor` (or `collect`) on the node(s) named and compare their IB ports "
        "and GPUs with a node of a fast communicator; `trainready fleet --bandwidth` measures "
        "each pair.";
    x.rank = 20;
    return x;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_rank_slow() { return std::make_unique<NcclRankSlow>(); }

}  // namespace trainready
