// Rank 0's half of `fleet` at scale, without MPI: N nodes' serialised facts (one CBOR message per
// rank, as the ranks send them) are decoded, judged by every node, cluster and fleet rule, grouped
// into the node table and causes, and written as the JSON report, at 512, 4,096 and 16,384 nodes.
// Targets (issues 15 and 35): 4,096 nodes gathered and judged in under 1 s of one core, and their
// JSON report written in under 1 s more; memory linear in nodes. Prints CPU seconds per phase,
// the report's time as a ratio to gather + judge on the same nodes in the same run (the
// reference: the work rank 0 cannot avoid), bytes per node on the wire and resident memory per
// node; exits 1 when 4,096 nodes miss either budget. At 512 nodes the report is also written the
// old way (one nlohmann tree of the whole report, then dump) and must be the same bytes; that
// time is printed as a second reference.
// Then `fleet --bandwidth`'s judgement: a 512 x 512 pair matrix with one slow node (its whole
// row) and one slow link (one cell) classified by the pair-bandwidth rules, also under 1 s; exits
// 1 unless exactly that node and that link are named.
// Last, `watch`'s rank 0: every rank's window judged for stragglers at 512, 4,096 and 16,384
// ranks, against the old every-peer-per-interval judgement at 512 and 4,096 (same windows, same
// run); exits 1 unless both name exactly the idle ranks.
// Usage: fleet_bench [MAX_NODES]   (run it pinned to one core: taskset -c 0)
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/judge.h"
#include "codec/node_facts_json.h"
#include "core/root.h"
#include "facts/pair_bandwidth_facts.h"
#include "fleet/fleet_bundle.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/fleet_message.h"
#include "fleet/fleet_summary.h"
#include "probes/probes.h"
#include "report/json/json_reporter.h"
#include "watch/peer_exchange.h"
#include "watch/timeline.h"

using namespace trainready;

namespace {

// CPU seconds of this process: the machine may be shared, and the target is "on one core".
double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

long rss_kib() {  // resident set now, from /proc/self/statm (pages)
  std::ifstream f("/proc/self/statm");
  long size = 0;
  long resident = 0;
  f >> size >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

// N messages from the bundled ND H100 v5 snapshot: every node its own host name, and every 64th
// one odd in a way a rule names (a port down, another pkey, another driver), as in a real fleet.
std::vector<std::string> synthetic_messages(const NodeFacts& base, int n) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    NodeFacts f = base;
    f.label = "ndh100-" + std::to_string(i);
    if (i % 64 == 7) f.ib.value.devices[1].ports[0].state.value = "DOWN";
    if (i % 64 == 19)
      for (auto& d : f.ib.value.devices) d.ports[0].pkey0.value = "0x8002";
    if (i % 64 == 41) f.gpus.value.driver_version = "550.54.15";
    RankMessage m;
    m.kind = RankMessageKind::kFacts;
    m.rank = i;
    m.host = f.label;
    m.tool_version = "0.1.0";
    m.facts = std::move(f);
    out.push_back(encode_rank_message(m));
  }
  return out;
}

// What a group leader of the two-level gather sends rank 0: its members' messages, as received.
std::vector<std::string> bundles_of(const std::vector<std::string>& msgs, int group) {
  std::vector<std::string> out;
  for (std::size_t first = 0; first < msgs.size(); first += static_cast<std::size_t>(group)) {
    std::vector<BundleEntry> entries;
    for (std::size_t r = first; r < std::min(msgs.size(), first + static_cast<std::size_t>(group));
         ++r)
      entries.push_back({static_cast<int>(r), 0.001, msgs[r]});
    out.push_back(encode_bundle(entries));
  }
  return out;
}

// Rank 0's gather alone, in a child process so that its peak resident memory can be read
// (wait4's ru_maxrss, less an idle child's): one level (every rank's message received and
// decoded) or two (rank 0's own group's messages, then one bundle per other leader). Rank 0
// receives into a buffer per message, as MpiWorld::receive does. Returns {CPU s, peak KiB}.
std::pair<double, long> rank0_gather(const std::vector<std::string>& msgs,
                                     const std::vector<std::string>& bundles, int group,
                                     bool idle) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!idle) {
      FleetGatherer g(static_cast<int>(msgs.size()), "0.1.0");
      std::string buf;
      if (bundles.empty()) {
        for (std::size_t i = 0; i < msgs.size(); ++i) {
          buf = msgs[i];
          g.accept(static_cast<int>(i), buf, 0);
        }
      } else {
        for (int i = 0; i < group; ++i) {
          buf = msgs[static_cast<std::size_t>(i)];
          g.accept(i, buf, 0);
        }
        for (std::size_t b = 1; b < bundles.size(); ++b) {
          buf = bundles[b];
          g.accept_bundle(static_cast<int>(b) * group, group, buf, 0);
        }
      }
      FleetGather gathered = g.finish(0, 60, "bench");
      if (gathered.nodes.size() != msgs.size()) ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {-1, -1};
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  return {cpu, ru.ru_maxrss};
}

// One level against two (groups of 64) on the same messages: rank 0's CPU time and peak memory
// for the gather, and at 512 nodes the same ranks and nodes either way. False on a difference.
bool two_level_bench(const std::vector<std::string>& msgs) {
  const int n = static_cast<int>(msgs.size());
  const int group = kDefaultGatherGroup;
  const std::vector<std::string> bundles = bundles_of(msgs, group);
  const long idle = rank0_gather(msgs, {}, group, true).second;
  const auto one = rank0_gather(msgs, {}, group, false);
  const auto two = rank0_gather(msgs, bundles, group, false);
  const auto one_again = rank0_gather(msgs, {}, group, false);  // A B A: the machine is shared
  std::printf(
      "        gather at rank 0, one level (%d messages) / two levels (%d + %zu bundles of %d): "
      "CPU %.3f s (%.3f) / %.3f s, peak +%.1f MiB (%.1f) / +%.1f MiB\n",
      n, group, bundles.size() - 1, group, one.first, one_again.first, two.first,
      static_cast<double>(one.second - idle) / 1024,
      static_cast<double>(one_again.second - idle) / 1024,
      static_cast<double>(two.second - idle) / 1024);
  if (one.first < 0 || two.first < 0) return false;
  if (n != 512) return true;
  FleetGatherer a(n, "0.1.0"), b(n, "0.1.0");
  for (int i = 0; i < n; ++i) a.accept(i, msgs[static_cast<std::size_t>(i)], 0.001);
  for (int i = 0; i < group; ++i) b.accept(i, msgs[static_cast<std::size_t>(i)], 0.001);
  for (std::size_t k = 1; k < bundles.size(); ++k)
    b.accept_bundle(static_cast<int>(k) * group, group, bundles[k], 0.001);
  const FleetGather ga = a.finish(0, 60, "bench"), gb = b.finish(0, 60, "bench");
  bool same = ga.nodes.size() == gb.nodes.size() && ga.fleet.ranks.size() == gb.fleet.ranks.size();
  for (std::size_t i = 0; same && i < ga.fleet.ranks.size(); ++i)
    same = ga.fleet.ranks[i].state == gb.fleet.ranks[i].state &&
           ga.fleet.ranks[i].bytes == gb.fleet.ranks[i].bytes &&
           ga.fleet.ranks[i].node == gb.fleet.ranks[i].node;
  for (std::size_t i = 0; same && i < ga.nodes.size(); ++i) {
    std::string x, y;
    write_node_facts_json(x, ga.nodes[i], 0);
    write_node_facts_json(y, gb.nodes[i], 0);
    same = x == y;
  }
  if (!same) std::fprintf(stderr, "FAIL: the two-level gather's nodes differ from one level's\n");
  return same;
}

// `fleet --bandwidth` on n nodes, as the sources leave it: one rail, one size, every pair
// measured once (both cells of a pair hold its value) at 24 GB/s +-3 % of deterministic noise,
// except every cell of node `bad_node` at 40 % and the one link bad_a <-> bad_b at 30 %.
PairBandwidthFacts synthetic_pairs(int n, int bad_node, int bad_a, int bad_b) {
  PairBandwidthFacts f;
  f.transport = "synthetic (fleet_bench)";
  f.rounds = n - 1;
  f.iterations = 3;
  f.repeats = 1;
  for (int i = 0; i < n; ++i)
    f.nodes.push_back(PairNode{"ndh100-" + std::to_string(i), {i}, true, {}});
  PairMatrix m;
  m.size_bytes = 4u << 20;
  m.nodes = n;
  m.cells.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  std::uint32_t seed = 12345;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      seed = seed * 1664525u + 1013904223u;  // Numerical Recipes' LCG: reproducible noise
      double v = 24.0 * (0.97 + 0.06 * (seed >> 8) / 16777216.0);
      if (a == bad_node || b == bad_node) v *= 0.4;
      if ((a == bad_a && b == bad_b) || (a == bad_b && b == bad_a)) v *= 0.3;
      for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        PairCell& c = m.at(x, y);
        c.measured = true;
        c.gbytes_per_s = v;
        c.repeats_gbytes = {v};
        c.round = (a + b) % (n - 1);
      }
    }
  }
  f.matrices.push_back(std::move(m));
  return f;
}

// Classifies the planted matrix through the rules; false unless exactly the planted node and
// link are found.
bool pair_matrix_bench(int n, const SharedFlags& flags) {
  const int bad_node = 77, bad_a = 200, bad_b = 301;
  auto pairs = std::make_shared<PairBandwidthFacts>(synthetic_pairs(n, bad_node, bad_a, bad_b));
  const double c0 = cpu_s();
  Report r = start_report("fleet", flags);
  r.pairs = pairs;
  r.evaluation = run_rules(r, flags);
  finish_report(r, Severity::kError);
  const double c1 = cpu_s();
  std::vector<std::string> nodes, links;
  for (const Finding& x : r.evaluation.findings) {
    if (x.rule_id == "fleet-node-bandwidth-low") nodes.push_back(x.node);
    if (x.rule_id == "fleet-link-bandwidth-low") links.push_back(x.message);
  }
  const std::string want_node = "ndh100-" + std::to_string(bad_node);
  const std::string want_link =
      "link ndh100-" + std::to_string(bad_a) + " <-> ndh100-" + std::to_string(bad_b) + ":";
  const bool found = nodes == std::vector<std::string>{want_node} && links.size() == 1 &&
                     links[0].rfind(want_link, 0) == 0;
  std::printf("\npair matrix %d x %d (%zu cells measured), judged by the pair-bandwidth rules\n", n,
              n, static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1));
  std::printf("%12s %11s %s\n", "judge_s", "ratio_to_1s", "found");
  std::printf("%12.3f %11.3f bad nodes [%s], bad links [%s]\n", c1 - c0, (c1 - c0) / 1.0,
              nodes.empty() ? "" : nodes[0].c_str(), links.empty() ? "" : links[0].c_str());
  if (!found) {
    std::fprintf(stderr,
                 "FAIL: expected exactly node %s and link %s <-> %s (%zu nodes, %zu links)\n",
                 want_node.c_str(), ("ndh100-" + std::to_string(bad_a)).c_str(),
                 ("ndh100-" + std::to_string(bad_b)).c_str(), nodes.size(), links.size());
    return false;
  }
  if (c1 - c0 >= 1.0) {
    std::printf("MISSED: pair matrix %.3f s\n", c1 - c0);
    return false;
  }
  return true;
}

// `watch` under a launcher: rank 0's judgement of every rank's window (4 intervals per rank, one
// rank in 64 idle while the others compute, busy shares spread over many distinct values), at 512,
// 4,096 and 16,384 ranks, with the old way (every peer asked at every interval's middle,
// mark_stragglers_direct) on the same windows at 512 and 4,096 ranks as the reference. Linear: 8x
// the ranks costs about 8x; the old way 64x. False when a size's stragglers are not exactly the
// idle ranks or the sweep disagrees.
bool watch_judge_bench(int max_ranks) {
  using namespace trainready::watch;
  std::printf("\nwatch: rank 0 judges every rank's window (4 intervals each)\n");
  std::printf("%7s %9s %11s %13s %11s\n", "ranks", "judge_s", "s/1k_ranks", "direct_s",
              "direct/new");
  for (int ranks : {512, 4096, 16384}) {
    if (ranks > max_ranks) break;
    std::vector<NodeTimeline> nodes(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      NodeTimeline& n = nodes[static_cast<std::size_t>(r)];
      n.node = "ndh100-" + std::to_string(r);
      for (int i = 0; i < 4; ++i) {
        LabelledInterval li;
        li.interval.start = 1.7e9 + i + 0.001 * (r % 100);
        li.interval.end = li.interval.start + 1;
        li.interval.seconds = 1;
        li.interval.gpus = 8;
        // Every rank's share its own (distinct values, as NVML reports them over a window).
        const double frac = static_cast<double>((r * 7919 + i * 104729) % 1000) / 1000;
        li.interval.gpu_busy = r % 64 == 5 ? 0.3 * frac : 0.9 + 0.1 * frac;
        li.verdict.label = r % 64 == 5 ? Label::kIdle : Label::kCompute;
        n.intervals.push_back(li);
      }
    }
    std::vector<NodeTimeline> direct = nodes;
    const double c0 = cpu_s();
    mark_stragglers(nodes, Thresholds{});
    const double c1 = cpu_s();
    int stragglers = 0;
    bool right = true;
    for (int r = 0; r < ranks; ++r)
      for (const LabelledInterval& li : nodes[static_cast<std::size_t>(r)].intervals) {
        const bool s = li.verdict.label == Label::kStraggler;
        stragglers += s ? 1 : 0;
        right = right && s == (r % 64 == 5);
      }
    double d = -1;
    if (ranks <= 4096) {
      const double d0 = cpu_s();
      mark_stragglers_direct(direct, Thresholds{});
      d = cpu_s() - d0;
      for (std::size_t r = 0; r < nodes.size(); ++r)
        for (std::size_t i = 0; i < nodes[r].intervals.size(); ++i)
          right =
              right && nodes[r].intervals[i].verdict.label == direct[r].intervals[i].verdict.label;
    }
    std::printf("%7d %9.3f %11.4f %13s %11s\n", ranks, c1 - c0, (c1 - c0) * 1000.0 / ranks,
                d < 0 ? "-" : std::to_string(d).substr(0, 7).c_str(),
                d < 0 ? "-" : std::to_string(d / (c1 - c0)).substr(0, 7).c_str());
    if (!right || stragglers != ranks / 64 * 4) {
      std::fprintf(stderr, "FAIL: %d ranks: %d straggler intervals, want %d\n", ranks, stragglers,
                   ranks / 64 * 4);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_nodes = argc > 1 ? std::atoi(argv[1]) : 4096;
  FsRoot root(std::string(TR_EXAMPLES) + "/nd-h100-healthy");
  const NodeFacts base = probe_node(root, ProbeOptions{});
  SharedFlags flags;
  std::printf("%7s %9s %9s %9s %9s %11s %12s %9s %9s %13s %11s\n", "nodes", "decode_s", "judge_s",
              "gather+", "report_s", "report/ref", "wall_total_s", "wire_KiB", "B/node",
              "rss_KiB/node", "report_KiB");
  double judged_4096 = -1, report_4096 = -1;
  for (int n : {512, 4096, 16384}) {
    if (n > max_nodes) break;
    std::vector<std::string> msgs = synthetic_messages(base, n);
    if (!two_level_bench(msgs)) return 1;
    std::size_t wire = 0;
    for (const auto& m : msgs) wire += m.size();
    const long rss0 = rss_kib();
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_s();
    FleetGatherer g(n, "0.1.0");
    for (int i = 0; i < n; ++i) g.accept(i, msgs[static_cast<std::size_t>(i)], 0);
    FleetGather gathered = g.finish(0, 60, "bench");
    const double c1 = cpu_s();
    Report r = start_report("fleet", flags);
    r.nodes = std::move(gathered.nodes);
    r.fleet = std::make_shared<FleetFacts>(std::move(gathered.fleet));
    r.evaluation = run_rules(r, flags);
    r.fleet_summary = std::make_shared<FleetSummary>(summarize_fleet(r));
    finish_report(r, Severity::kError);
    const double c2 = cpu_s();
    const std::string json = render_json(r);
    const double c3 = cpu_s();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const long rss1 = rss_kib();
    const double judged = c2 - c0;  // decode + judge: the reference
    std::printf("%7d %9.3f %9.3f %9.3f %9.3f %11.2f %12.3f %9zu %9zu %13.1f %11zu\n", n, c1 - c0,
                c2 - c1, judged, c3 - c2, (c3 - c2) / judged, secs, wire / 1024,
                wire / static_cast<std::size_t>(n), static_cast<double>(rss1 - rss0) / n,
                json.size() / 1024);
    if (r.evaluation.findings.empty()) {
      std::fprintf(stderr, "FAIL: the odd nodes were not found\n");
      return 1;
    }
    if (n == 512) {
      const double o0 = cpu_s();
      const std::string tree =
          report_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      const double o1 = cpu_s();
      std::printf(
          "        512 nodes written the old way (one tree, then dump): %.3f s, "
          "%.2fx the time of the report above\n",
          o1 - o0, (o1 - o0) / (c3 - c2));
      if (tree != json) {
        std::fprintf(stderr, "FAIL: the streamed report differs from the tree's dump\n");
        return 1;
      }
    }
    if (const char* keep = std::getenv("FLEET_BENCH_JSON"); keep != nullptr && n == 512)
      std::ofstream(keep) << json;
    if (n == 4096) {
      judged_4096 = judged;
      report_4096 = c3 - c2;
    }
  }
  std::printf(
      "decode_s / judge_s / report_s: CPU seconds of this process (the machine may be shared); "
      "gather+ = decode + judge + node table (the reference); report/ref = report_s / gather+\n"
      "targets: 4096 nodes gathered and judged in < 1 s of one core (issue 15), their JSON report "
      "in < 1 s more (issue 35)\n");
  const bool missed = judged_4096 >= 1.0 || report_4096 >= 1.0;
  if (missed)
    std::printf("MISSED: 4096 nodes: gather + judge %.3f s, report %.3f s\n", judged_4096,
                report_4096);
  const bool pairs = pair_matrix_bench(512, flags);
  const bool watch = watch_judge_bench(max_nodes);
  return !missed && pairs && watch ? 0 : 1;
}
