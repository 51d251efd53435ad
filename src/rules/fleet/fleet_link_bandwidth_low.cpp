// fleet-link-bandwidth-low: one pair of nodes is slow together while each is fine with every
// other node: the cause is between them (a cable, a switch port, a route), not on either node.
#include "rules/fleet/pair_matrix_view.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetLinkBandwidthLow : public Rule {
 public:
  std::string_view id() const override { return "fleet-link-bandwidth-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A slow link between two nodes that are fine with every other node";
  }
  RuleScope scope() const override { return RuleScope::kPairs; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const PairBandwidthFacts& f = *ctx.pairs;
    const auto judged = judged_matrices(f);
    if (judged.empty()) return RuleOutcome::skip("no pair was measured");
    RuleOutcome o;
    for (const JudgedMatrix& j : judged) {
      if (!j.c.note.empty() && j.c.nodes < 3 && !f.expected_gbytes_per_s)
        o.notes.push_back(j.c.note);
      for (const LinkOutlier& l : j.c.bad_links) {
        const PairCell& cell = j.matrix->at(l.a, l.b);
        const std::string a = node_name(f, l.a);
        const std::string b = node_name(f, l.b);
        const double ref = j.c.cell_median;
        Finding x = finding("link " + a + " <-> " + b + rail_suffix(f, *j.matrix) + ": " +
                            (l.timed_out ? std::string("the exchange timed out")
                                         : gbps(l.gbytes) + ", " + ratio_text(l.gbytes, ref) +
                                               " the " + gbps(ref) + " median of the other pairs") +
                            "; both nodes are fine with every other node");
        // No node label: the finding is about the path, and blames neither node.
        x.evidence.push_back({"measured: " + matrix_provenance(f, *j.matrix) + ", round " +
                                  std::to_string(cell.round + 1) + " of " +
                                  std::to_string(f.rounds),
                              {}});
        if (cell.retested)
          x.evidence.push_back({"re-tested alone with its pair: first " +
                                    gbps(cell.first_gbytes_per_s) + ", again " +
                                    (cell.timed_out ? "timed out" : gbps(cell.gbytes_per_s)),
                                {}});
        for (int n : {l.a, l.b}) {
          for (const NodeOutlier& row : j.c.rows)
            if (row.node == n)
              x.evidence.push_back({node_name(f, n) + ": median " + gbps(row.row_median) +
                                        " over its " + std::to_string(row.cells) + " peers",
                                    {}});
        }
        x.evidence.push_back(
            {"peers: median " + gbps(ref) + ", spread (MAD of ln GB/s) " + fixed2(j.c.cell_mad) +
                 (l.timed_out ? std::string()
                              : ", modified z-score " + std::to_string(l.modified_z).substr(0, 6)),
             {}});
        if (l.low_vs_expected && f.expected_gbytes_per_s)
          x.evidence.push_back({"expected " + f.expected_formula, {}});
        x.cause =
            "Only this pair is slow: each node reaches its other peers at the usual rate, so "
            "the fault is on the path between them — a cable or transceiver, a switch port, "
            "an uplink shared by these two only, or a route or rate limit between their "
            "addresses.";
        x.fix =
            "Check the links and switch ports on this path (ibdiagnet / `ibnetdiscover` and port "
            "counters: symbol errors, link downed, rate), or ask the provider to check the path; "
            "rerun `trainready fleet --bandwidth` on the two nodes to confirm. Neither node needs "
            "to be drained.";
        o.findings.push_back(std::move(x));
      }
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_link_bandwidth_low() {
  return std::make_unique<FleetLinkBandwidthLow>();
}

}  // namespace trainready
