#include "cli/fleet_bandwidth_flags.h"

#include <cmath>
#include <cstdio>

#include "bench/collective_facts.h"
#include "bench/mpi_plugin_loader.h"
#include "fleet/bandwidth/bandwidth_run.h"
#include "queries/node_digest.h"

namespace trainready {

void add_bandwidth_flags(CLI::App* c, BandwidthFlags& b) {
  c->add_flag("--bandwidth", b.bandwidth,
              "After the facts: an all-reduce over every rank, then every pair of nodes in N-1 "
              "rounds of N/2 concurrent pairs; a slow node or link is a finding");
  CLI::Option* quick =
      c->add_flag("--quick", b.quick,
                  "--bandwidth with small messages and one repeat: a health check for a prolog");
  c->add_flag("--full", b.full,
              "--bandwidth with messages up to 8 GiB and five repeats: acceptance of a new "
              "cluster")
      ->excludes(quick);
  c->add_option("--step-timeout", b.step_timeout_s,
                "Seconds each bandwidth step (one exchange, one message to rank 0) may take "
                "before it is reported as timed out (default: 15 quick, 30, 120 full)")
      ->check(CLI::Range(0.1, 86400.0));
  c->add_option("--transport", b.transport,
                "Bandwidth phase transport: auto (NCCL when every rank has a GPU and "
                "libnccl.so.2), nccl, mpi")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}));
}

void run_bandwidth_flags(const BandwidthFlags& b, const SharedFlags& flags, MpiWorld* world,
                         Report* report) {
  if (!b.wanted()) return;
  if (!world) {
    std::fprintf(stderr,
                 "trainready fleet: --bandwidth needs two or more ranks (run it under mpirun or "
                 "srun); nothing measured\n");
    return;
  }
  BandwidthOptions o = bandwidth_profile(b.quick ? "quick" : b.full ? "full" : "default");
  if (b.step_timeout_s > 0)
    o.step_timeout =
        std::chrono::milliseconds(static_cast<long long>(std::llround(b.step_timeout_s * 1000)));
  o.transport = b.transport;
  const RunOptions run = flags.run_options();
  // The VM size: --sku, else what IMDS said on the first node (rank 0 only judges).
  const SkuEntry* sku = nullptr;
  if (report) {
    ClusterNodes own;  // a fleet judged by group leaders has no facts, only what they compare
    const ClusterNodes* nodes = report->cluster_nodes.get();
    if (!nodes) {
      own = cluster_nodes_of(report->nodes, &run);
      nodes = &own;
    }
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      const DigestValue& size = nodes->digest(i)[DigestKey::kVmSize];
      if (size.known) {
        sku = flags.catalog().find(size.value);
        break;
      }
    }
    if (!sku && run.sku) sku = flags.catalog().find(*run.sku);
  }
  BandwidthPhase phase = run_bandwidth_phase(load_mpi_layer(), *world, o, sku, run, stderr);
  if (!report) return;
  report->pairs = std::make_shared<PairBandwidthFacts>(std::move(phase.facts));
  // On GPUs the all-reduce is an nccl-tests sweep like `bench allreduce` and is judged by the
  // same rule against the same expectation. On host memory it is not: the catalog's figures
  // are GPU collectives, and a CPU run would read as far below them.
  if (phase.allreduce && phase.allreduce->backend.rfind("NCCL", 0) == 0)
    report->nccl_tests =
        std::make_shared<NcclTestsFacts>(collective_facts(*phase.allreduce, o.allreduce));
}

}  // namespace trainready
