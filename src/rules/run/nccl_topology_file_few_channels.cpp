// nccl-topology-file-few-channels: with a user NCCL_TOPO_FILE / NCCL_GRAPH_FILE, NCCL's search
// built far less bandwidth than it reaches on this VM size when it probes the machine itself.
//
// NCCL's tuning model takes a graph's bus bandwidth as nChannels x per-channel bandwidth
// (graph/tuning.cc, ncclTopoTuneModel: `busBw = graphs[a]->nChannels * bw`, bw = bwIntra on up to
// two nodes, else bwInter). The search prints both numbers ("Pattern 4, crossNic 0, nChannels 2,
// bw 12.000000/12.000000, type PHB/PHB ..."; graph/search.cc ncclTopoPrintGraph). What the same
// VM size reaches without a user file is the catalog's measured ring all-reduce busbw (NVLink
// inside one VM; across VMs the smaller of that and the VM's network), docs/busbw.md.
#include <algorithm>
#include <cstdio>

#include "catalog/vm_network.h"
#include "queries/busbw_expectation.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// Below half of what the size reaches, the file (not noise in the search) is the cause: NCCL's
// own model runs above measured busbw (timezzx 2 x A100 capture: model 12 x 20 = 240 GB/s).
constexpr double kShareBelow = 0.5;

class NcclTopologyFileFewChannels : public Rule {
 public:
  std::string_view id() const override { return "nccl-topology-file-few-channels"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A user topology or graph file left NCCL with few or slow channels";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const EnvSetting* topo = nullptr;
    const EnvSetting* graph = nullptr;
    if (auto it = f.env.find("NCCL_TOPO_FILE"); it != f.env.end()) topo = &it->second;
    if (auto it = f.env.find("NCCL_GRAPH_FILE"); it != f.env.end()) graph = &it->second;
    if (!topo && !graph)
      return RuleOutcome::does_not_apply(
          "the log shows no NCCL_TOPO_FILE or NCCL_GRAPH_FILE set by environment");
    const NcclGraphSearch* ring = f.ring_search();
    if (!ring)
      return RuleOutcome::skip(
          "the log holds no ring search line ('Pattern 4, crossNic ..., nChannels ...'): run "
          "with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV");
    RunOptions defaults;
    const RunOptions& opt = ctx.run_options ? *ctx.run_options : defaults;
    const SkuEntry* sku = nullptr;
    std::string sku_origin;
    if (opt.sku) {
      sku = ctx.catalog->find(*opt.sku);
      if (!sku) return RuleOutcome::skip("VM size '" + *opt.sku + "' is not in the catalog");
      sku_origin = "--sku";
    } else if (ctx.nccl_tests) {
      sku = match_sku_from_devices(*ctx.nccl_tests, *ctx.catalog);
      sku_origin = "the GPUs nccl-tests listed";
    }
    if (!sku)
      return RuleOutcome::skip(
          "VM size unknown: pass --sku to compare the channels with what the size reaches");
    const int nodes = opt.nodes ? *opt.nodes : std::max(1, f.max_comm_nodes());
    std::optional<double> ring_figure = sku->nvlink_ring_allreduce_gbytes_per_s;
    if (!ring_figure) ring_figure = sku->intra_vm_allreduce_gbytes_per_s();
    if (!ring_figure)
      return RuleOutcome::skip("the catalog has no all-reduce figure for " + sku->name);
    double expected = *ring_figure;
    std::string expected_words =
        "the catalog's ring all-reduce busbw inside one " + sku->name + ", " + gbytes(expected);
    if (nodes > 1) {
      const double net = vm_network_gbytes_per_s(*sku, opt.efficiency, opt.ethernet_efficiency);
      if (net > 0 && net < expected) {
        expected = net;
        expected_words = "the network of one " + sku->name + " between VMs, " + gbytes(net);
      }
    }
    // tuning.cc: the per-channel figure NCCL's model uses for this many nodes.
    const double per_channel = nodes <= 2 ? ring->bw_intra : ring->bw_inter;
    const double model = ring->channels * per_channel;
    if (model >= expected * kShareBelow) return {};

    const std::string file = topo ? topo->value : graph->value;
    const std::string which = topo ? "topology file" : "graph file";
    int rings = 0;
    for (const auto& [id, c] : f.comms) rings = std::max(rings, c.ring_channels);
    RuleOutcome o;
    Finding x = finding("NCCL built " + std::to_string(ring->channels) + " channel(s) at " +
                        gbytes(per_channel) + " per channel from the " + which + " " + file +
                        " (NCCL's own estimate " + gbytes(model) +
                        " of bus bandwidth); without "
                        "it, NCCL reaches about " +
                        gbytes(expected) + " on " + sku->name);
    x.evidence.push_back(evidence(topo ? topo->line : graph->line));
    if (topo && graph) x.evidence.push_back(evidence(graph->line));
    x.evidence.push_back(evidence(ring->line));
    x.evidence.push_back({"ring search: " + describe_search(*ring) + "; " +
                              std::to_string(ring->ranks) + " rank(s) printed it",
                          {}});
    if (rings > 0)
      x.evidence.push_back({"rank 0 listed " + std::to_string(rings) + " ring channel(s)", {}});
    char share[16];
    std::snprintf(share, sizeof share, "%.2f", model / expected);
    x.evidence.push_back(
        {"expected without the file: " + expected_words + " (VM size from " + sku_origin + ", " +
             std::to_string(nodes) + " VM(s); catalog source " +
             (sku->nvlink_ring_allreduce_gbytes_per_s ? sku->nvlink_ring_source : sku->source) +
             "); NCCL's estimate is " + share + "x that",
         {}});
    x.cause =
        "NCCL takes the machine's layout (NCCL_TOPO_FILE) or its channels (NCCL_GRAPH_FILE) "
        "from the file instead of probing the VM. A file written for another VM size, or one "
        "that leaves out NVLink or the HCAs, makes the search settle on few channels or a slow "
        "path (" +
        ring->type_intra + "/" + ring->type_inter +
        "): NCCL's model, channels x per-channel bandwidth (graph/tuning.cc), is the bandwidth "
        "a collective can reach.";
    if (!sku->nccl_topo_file.empty() && topo && topo->value != sku->nccl_topo_file)
      x.cause += " The Azure HPC image's file for " + sku->name + " is " + sku->nccl_topo_file +
                 ", not " + topo->value + ".";
    x.fix = "Point " + std::string(topo ? "NCCL_TOPO_FILE" : "NCCL_GRAPH_FILE") + " at the file " +
            "for this VM size" +
            (sku->nccl_topo_file.empty() ? std::string()
                                         : " (" + sku->nccl_topo_file + " on Azure HPC images)") +
            ", or unset it and compare the 'Pattern 4 ... nChannels' line; "
            "NCCL_TOPO_DUMP_FILE=/tmp/topo.xml writes what NCCL probes on its own.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_topology_file_few_channels() {
  return std::make_unique<NcclTopologyFileFewChannels>();
}

}  // namespace trainready
