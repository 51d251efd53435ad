// nccl-tests-busbw-low: busbw at the largest size is below what the hardware should give.
#include <cstdint>
#include <cstdio>

#include "core/units.h"
#include "queries/busbw_expectation.h"
#include "queries/busbw_from_log.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

constexpr double kErrorBelow = 0.75;
constexpr double kWarnBelow = 0.90;
constexpr std::uint64_t kGiB = 1ull << 30;

// What in the run's NCCL log says NVLink SHARP was off, or "" when nothing does.
std::string nvls_off_in_log(const NcclRunFacts* log) {
  if (!log) return "";
  if (auto it = log->env.find("NCCL_NVLS_ENABLE"); it != log->env.end() && it->second.value == "0")
    return "the log shows NCCL_NVLS_ENABLE=0";
  for (const auto& [v, line] : log->versions) {
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) == 2 &&
        (major < 2 || (major == 2 && minor < 17)))
      return "the log shows NCCL " + v + ", older than 2.17 (the first with NVLS)";
  }
  return "";
}

class NcclTestsBusbwLow : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-busbw-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Bus bandwidth below what this hardware should reach";
  }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    const NcclTestsRow* big = t.largest();
    if (!big) return RuleOutcome::skip("the table has no busbw values");
    RunOptions defaults;
    const RunOptions& opt = ctx.run_options ? *ctx.run_options : defaults;
    BusbwExpectation e = expected_busbw(t, *ctx.catalog, opt);
    if (!e.known) return RuleOutcome::skip("expected busbw unknown: " + e.why_unknown);
    const double got = *big->busbw();
    const double ratio = got / e.expected_gbytes;
    // On one VM the figure is the pass line of Azure's node health check (AzNHC fails a node
    // below it): below it is an error, not a tolerance band, at the message size the check
    // runs (the catalog's nccl_allreduce_message: 16G, 8G on some sizes; 1 GiB if unsaid).
    const double line_bytes =
        parse_bytes(e.sku->nccl_allreduce_message).value_or(static_cast<double>(kGiB));
    const bool health_line = e.nodes == 1 && e.collective == "all_reduce" &&
                             static_cast<double>(big->size_bytes) >= line_bytes;
    // Levels published in two steps (ND GB300 v6): below Warn a warning, below GHR an error, at
    // the message size they were measured at or larger.
    const bool published =
        e.warn_below_gbytes && e.error_below_gbytes &&
        static_cast<double>(big->size_bytes) >= parse_bytes(e.threshold_message).value_or(0);
    if (published ? got >= *e.warn_below_gbytes
                  : (health_line ? ratio >= 1.0 : ratio >= kWarnBelow))
      return {};
    RuleOutcome o;
    char r[16];
    // Two significant digits below 0.1, so 0.002x never reads as "0.00x".
    std::snprintf(r, sizeof r, ratio < 0.1 ? "%.2g" : "%.2f", ratio);
    Finding x = finding("busbw " + gbytes(got) + " at " + std::to_string(big->size_bytes) +
                        " B is " + r + "x the " + gbytes(e.expected_gbytes) + " expected");
    if (published)
      x.severity = got < *e.error_below_gbytes ? Severity::kError : Severity::kWarning;
    else if (!health_line && ratio >= kErrorBelow)
      x.severity = Severity::kWarning;
    x.evidence.push_back(
        {"largest size: " + std::to_string(big->size_bytes) + " B, busbw " + gbytes(got),
         big->where});
    x.evidence.push_back({"expected: " + e.formula + " (size from " + e.sku_origin + "; VMs from " +
                              e.nodes_origin + ")",
                          {}});
    if (big->size_bytes < kGiB)
      x.evidence.push_back(
          {"the largest size is under 1 GiB: part of the gap may be latency; "
           "run with -e 8G or more",
           big->where});
    const double frontend = e.sku->frontend_nic_gbits_per_s / 8.0;
    const NcclRunFacts* log = ctx.nccl_log;
    // What the run's log says of this bandwidth: channels x per-channel bandwidth NCCL built,
    // its algorithm at this size, the transports.
    BusbwFromLog from_log;
    if (log) from_log = explain_busbw_from_log(t, *log);
    for (const auto& l : from_log.lines) x.evidence.push_back({"NCCL log: " + l, {}});
    bool log_socket = false;
    bool log_no_gdr = false;
    if (log) {
      for (const auto& [k, tr] : log->transports) {
        log_socket = log_socket || tr.kind == TransportKind::kNetSocket;
        log_no_gdr = log_no_gdr ||
                     ((tr.kind == TransportKind::kNetIb || tr.kind == TransportKind::kNetOther) &&
                      !tr.gdrdma);
      }
    }
    if (e.nodes > 1 && e.nodes <= e.sku->nvlink_domain_vms && !log_socket) {
      // VMs of one NVLink rack (GB200/GB300): the usual shortfall is NCCL not using multi-node
      // NVLink and falling back to InfiniBand (NCCL troubleshooting guide, "MNNVL").
      x.cause =
          "These VMs share one NVLink rack and should talk over multi-node NVLink (MNNVL); a "
          "shortfall there is most often NCCL not using MNNVL and falling back to InfiniBand: "
          "the nvidia-imex service not running, no IMEX channel, a GPU not registered with the "
          "NVLink fabric, NCCL older than 2.25.2, or NCCL_MNNVL_ENABLE=0. Otherwise an NVLink "
          "or GPU fault on one VM.";
      x.fix =
          "Run `trainready doctor` on each VM (imex-not-running, imex-channel-missing, "
          "mnnvl-fabric-not-ready), check the NCCL version, and rerun with NCCL_DEBUG=INFO: the "
          "log says 'MNNVL disabled: ...' with the reason when NCCL does not use it.";
    } else if (e.nodes > 1 && (log_socket || (frontend > 0 && got <= frontend * 1.2))) {
      x.cause =
          "Ethernet-class bandwidth: inter-node traffic is not on InfiniBand (NCCL fell "
          "back to sockets on the front-end NIC, " +
          gbytes(frontend) + " at most).";
      x.fix =
          "Give the NCCL log (--nccl-log) or run `trainready doctor`: NCCL_IB_DISABLE, "
          "missing libibverbs, ports down or VMs outside one scale set.";
      x.subsumes = {"nccl-inter-node-not-ib"};
    } else if (e.nodes > 1 && (log_no_gdr || (ratio > 0.35 && ratio < 0.65))) {
      x.cause =
          "About half the expected: typical of GPUDirect RDMA being off (data staged "
          "through host memory), a wrong or missing NCCL_TOPO_FILE (NCCL pairs GPUs with "
          "far HCAs), or only half the HCAs in use.";
      x.fix =
          "Check nvidia-peermem, NCCL_TOPO_FILE and NCCL_IB_HCA on every node; the NCCL log "
          "should show 'via NET/IB/<n>/GDRDMA' on every inter-node channel.";
      x.subsumes = {"nccl-gdrdma-off"};
    } else if (from_log.model_gbytes > 0 && got <= from_log.model_gbytes * 1.1 &&
               from_log.model_gbytes < e.expected_gbytes * 0.5) {
      x.cause = "NCCL itself built too little bandwidth: its graph search settled on " +
                gbytes(from_log.model_gbytes) +
                " (channels x per-channel bandwidth, NCCL's own model), and the run reached "
                "what that graph allows. " +
                (log->env.count("NCCL_TOPO_FILE") || log->env.count("NCCL_GRAPH_FILE")
                     ? std::string("The log shows a user topology or graph file: the search "
                                   "used its layout, not the VM's.")
                     : std::string("The search saw slow paths: NVLink or the HCAs missing from "
                                   "the topology, or channels capped by NCCL_MAX_NCHANNELS."));
      x.fix =
          "Check NCCL_TOPO_FILE / NCCL_GRAPH_FILE (the file must be this VM size's), "
          "NCCL_MIN/MAX_NCHANNELS and `nvidia-smi topo -m`; the 'Pattern 4 ... nChannels' "
          "line should show NVL paths inside the VM.";
    } else if (e.nodes == 1 && e.sku->nvlink_ring_allreduce_gbytes_per_s &&
               (!nvls_off_in_log(log).empty() ||
                (got >= e.ring_gbytes * 0.9 && got <= e.ring_gbytes * 1.05))) {
      const std::string seen = nvls_off_in_log(log);
      x.cause = "All-reduce ran without NVLink SHARP (NVLS): " +
                (seen.empty() ? "busbw " + gbytes(got) + " is at the ring-only level, about " +
                                    gbytes(e.ring_gbytes) + " on this NVLink"
                              : seen) +
                ". The " + gbytes(e.intra_gbytes) +
                " line assumes NVLS, which needs NCCL 2.17 or later, NCCL_NVLS_ENABLE unset or 1, "
                "and NVIDIA Fabric Manager running.";
      x.fix =
          "Check these first, before suspecting a GPU: `nvidia-smi -q | grep -i fabric` "
          "(State Completed), `systemctl status nvidia-fabricmanager`, the NCCL version, and "
          "NCCL_NVLS_ENABLE / NCCL_ALGO in the environment; then rerun all_reduce_perf -b 16G "
          "-e 16G.";
    } else if (e.nodes == 1) {
      x.cause =
          "Inside one VM the GPUs are not getting their NVLink bandwidth: a GPU or NVLink "
          "fault, another job on the GPUs, NCCL_P2P_DISABLE / NCCL_ALGO settings, or "
          "clocks throttled.";
      x.fix =
          "Run `nvidia-smi nvlink -s` and `nvidia-smi -q -d PERFORMANCE`, check NCCL_* "
          "variables, and compare with the size's health check (`trainready doctor`).";
    } else {
      x.cause =
          "Below the expected bandwidth: a slow or degraded link on some node, HCAs at a "
          "lower rate, congestion from other jobs, or NCCL settings (NCCL_ALGO, "
          "NCCL_IB_HCA) that leave links unused.";
      x.fix =
          "Test pairs of nodes to find the slow one, check port rates (`trainready "
          "doctor`), and unset tuning variables.";
    }
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_busbw_low() { return std::make_unique<NcclTestsBusbwLow>(); }

}  // namespace trainready
