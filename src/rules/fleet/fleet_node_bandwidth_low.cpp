// fleet-node-bandwidth-low: a node slow with all (or most) of its peers, or absent from the
// bandwidth phase: the cause is on the node, whichever peer it talks to.
#include <algorithm>

#include "rules/fleet/pair_matrix_view.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetNodeBandwidthLow : public Rule {
 public:
  std::string_view id() const override { return "fleet-node-bandwidth-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A node slow with its peers in the pairwise test (or absent from it)";
  }
  RuleScope scope() const override { return RuleScope::kPairs; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const PairBandwidthFacts& f = *ctx.pairs;
    RuleOutcome o;
    for (const PairNode& n : f.nodes) {
      if (n.responded) continue;
      Finding x = finding(n.host + " did not take part in the bandwidth phase: " + n.why_not);
      x.node = n.host;
      std::string ranks;
      for (int r : n.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
      x.evidence.push_back({"ranks " + ranks + "; each step waits " +
                                std::to_string(static_cast<int>(f.step_timeout_s)) + " s",
                            {}});
      x.cause =
          "The node's rank died, hung, or cannot reach rank 0 over the MPI transport (a dead "
          "network path, a firewall, a process stuck in the kernel).";
      x.fix =
          "Look at that rank's stderr and the node's kernel log, run `trainready doctor` on it, "
          "and drain it until it answers.";
      o.findings.push_back(std::move(x));
    }
    const auto judged = judged_matrices(f);
    if (judged.empty() && o.findings.empty()) return RuleOutcome::skip("no pair was measured");
    for (const JudgedMatrix& j : judged) {
      for (int node : j.c.bad_nodes) {
        const auto row = std::find_if(j.c.rows.begin(), j.c.rows.end(),
                                      [&](const NodeOutlier& r) { return r.node == node; });
        if (row == j.c.rows.end()) continue;
        const std::string name = node_name(f, node);
        const bool dead = row->timed_out == row->cells;
        Finding x = finding(
            name + rail_suffix(f, *j.matrix) + ": " +
            (dead ? "every exchange with its " + std::to_string(row->cells) + " peers timed out"
                  : "median " + gbps(row->row_median) + " with its " + std::to_string(row->cells) +
                        " peers, " + ratio_text(row->row_median, j.c.node_median) +
                        " the fleet's " + gbps(j.c.node_median)));
        x.node = name;
        x.evidence.push_back({"measured: " + matrix_provenance(f, *j.matrix), {}});
        std::string cells;
        for (int b = 0; b < j.matrix->nodes; ++b) {
          if (b == node || !j.matrix->at(node, b).measured) continue;
          const PairCell& c = j.matrix->at(node, b);
          cells += (cells.empty() ? "" : "; ") + node_name(f, b) + " " +
                   (c.timed_out ? std::string("timed out") : gbps(c.gbytes_per_s));
        }
        x.evidence.push_back({"with each peer: " + cells, {}});
        if (row->low_vs_expected && f.expected_gbytes_per_s)
          x.evidence.push_back({"expected " + f.expected_formula, {}});
        else
          x.evidence.push_back({"row medians of all nodes: median " + gbps(j.c.node_median) +
                                    ", spread (MAD of ln GB/s) " + fixed2(j.c.node_mad),
                                {}});
        x.cause = dead ? "The node stopped answering during the pairwise test: its rank hung "
                         "or died, or its network path is down."
                       : "Every path through this node is slow, so the fault is on the node: "
                         "an HCA or port at a lower rate or down, a PCIe link trained narrow, "
                         "a missing driver (traffic on a slower fallback), or another job "
                         "loading its network.";
        x.fix = "Run `trainready doctor` on " + name +
                " (port states and rates, PCIe width, GPUDirect RDMA), compare with a good node, "
                "and drain it from the scheduler until it is fixed.";
        o.findings.push_back(std::move(x));
      }
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_node_bandwidth_low() {
  return std::make_unique<FleetNodeBandwidthLow>();
}

}  // namespace trainready
