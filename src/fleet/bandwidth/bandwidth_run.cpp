#include "fleet/bandwidth/bandwidth_run.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "fleet/bandwidth/pair_rounds.h"
#include "fleet/bandwidth/pair_schedule.h"
#include "fleet/bandwidth/progress_line.h"
#include "queries/pair_expectation.h"
#include "queries/pair_outliers.h"

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Tags of the phase's control messages; the pair exchanges use kPairTag.. and kRetestTag..
// (16384 each), all under 32767, the least MPI_TAG_UB the standard allows.
constexpr int kHelloTag = 901;
constexpr int kPlanTag = 902;
constexpr int kResultsTag = 903;
constexpr int kRetestPlanTag = 904;
constexpr int kRetestResultsTag = 905;
constexpr int kRoundDoneTag = 910;  // + pass (0 main, 1 re-test); the step travels inside
constexpr int kRoundGoTag = 912;
constexpr int kPairTag = 1000;
constexpr int kRetestTag = 17400;

// NCCL needs a GPU and libnccl.so.2 on every rank; a rank without either would leave the others
// waiting in ncclCommInitRank, so every rank says first and rank 0 decides for all.
bool nccl_possible() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec);
  if (ec || it == std::filesystem::directory_iterator()) return false;
  void* h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return false;
  dlclose(h);
  return true;
}

milliseconds left(Clock::time_point deadline) {
  const auto d = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return d.count() > 0 ? d : milliseconds(0);
}

std::string seconds_text(double s) {
  char b[32];
  if (s < 90)
    std::snprintf(b, sizeof b, "%.0f s", s < 1 ? 1.0 : s);
  else
    std::snprintf(b, sizeof b, "%.0f min", s / 60);
  return b;
}

std::string gb_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g GB/s", v);
  return b;
}

struct Plan {
  bool nccl = false;
  int rails = 1;
  std::vector<PairNode> nodes;
  std::vector<PairRound> rounds;
  bool allreduce = false;
  // GB200-class sizes: every rank sets NCCL_MNNVL_ENABLE=0 so a rail is its HCA, not NVLink.
  bool mnnvl_off = false;
};

nlohmann::json rounds_json(const std::vector<PairRound>& rounds) {
  nlohmann::json j = nlohmann::json::array();
  for (const PairRound& r : rounds) {
    nlohmann::json pairs = nlohmann::json::array();
    for (auto [a, b] : r.pairs) pairs.push_back({a, b});
    j.push_back(pairs);
  }
  return j;
}

std::vector<PairRound> rounds_from(const nlohmann::json& j) {
  std::vector<PairRound> out;
  for (const auto& r : j) {
    PairRound round;
    for (const auto& p : r) round.pairs.emplace_back(p.at(0).get<int>(), p.at(1).get<int>());
    out.push_back(std::move(round));
  }
  return out;
}

std::string plan_text(const Plan& p) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const PairNode& n : p.nodes)
    nodes.push_back({{"host", n.host}, {"ranks", n.ranks}, {"responded", n.responded}});
  return nlohmann::json{{"nccl", p.nccl},           {"rails", p.rails},
                        {"nodes", nodes},           {"rounds", rounds_json(p.rounds)},
                        {"allreduce", p.allreduce}, {"mnnvl_off", p.mnnvl_off}}
      .dump();
}

Plan plan_from(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Plan p;
  p.nccl = j.at("nccl").get<bool>();
  p.rails = j.at("rails").get<int>();
  for (const auto& n : j.at("nodes")) {
    PairNode x;
    x.host = n.at("host").get<std::string>();
    x.ranks = n.at("ranks").get<std::vector<int>>();
    x.responded = n.at("responded").get<bool>();
    p.nodes.push_back(std::move(x));
  }
  p.rounds = rounds_from(j.at("rounds"));
  p.allreduce = j.at("allreduce").get<bool>();
  p.mnnvl_off = j.value("mnnvl_off", false);
  return p;
}

// Rank 0: ranks grouped by host, in the order their first rank appears; rails = the fewest
// ranks any answering node has (a rank beyond that has no partner of its rail everywhere).
Plan make_plan(const std::vector<std::string>& hosts, const std::vector<bool>& answered,
               bool all_nccl, const BandwidthOptions& o, const std::vector<std::string>& why) {
  Plan p;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    auto it = std::find_if(p.nodes.begin(), p.nodes.end(),
                           [&](const PairNode& n) { return n.host == hosts[r]; });
    if (it == p.nodes.end()) {
      p.nodes.emplace_back();
      it = std::prev(p.nodes.end());
      it->host = hosts[r];
    }
    it->ranks.push_back(static_cast<int>(r));
    if (!answered[r]) {
      it->responded = false;
      if (it->why_not.empty()) it->why_not = why[r];
    }
  }
  std::vector<int> active;
  int rails = 0;
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    if (!p.nodes[i].responded) continue;
    active.push_back(static_cast<int>(i));
    const int k = static_cast<int>(p.nodes[i].ranks.size());
    rails = rails == 0 ? k : std::min(rails, k);
  }
  p.rails = std::max(rails, 1);
  // The schedule is over the nodes that answered; a silent node is not waited for N-1 times.
  for (PairRound r : round_robin_schedule(static_cast<int>(active.size()))) {
    for (auto& [a, b] : r.pairs) {
      a = active[static_cast<std::size_t>(a)];
      b = active[static_cast<std::size_t>(b)];
    }
    if (r.bye >= 0) r.bye = active[static_cast<std::size_t>(r.bye)];
    p.rounds.push_back(std::move(r));
  }
  const bool everyone = std::all_of(answered.begin(), answered.end(), [](bool b) { return b; });
  p.allreduce = o.run_allreduce && everyone && hosts.size() > 1;
  p.nccl = everyone && (o.transport == "nccl" || (o.transport == "auto" && all_nccl));
  return p;
}

// Ends the job when the all-reduce outlives its bound: MPI and NCCL cannot cancel a collective,
// and a rank that died inside one would otherwise leave the others waiting forever.
class Watchdog {
 public:
  Watchdog(MpiWorld& world, milliseconds bound, std::string what)
      : thread_([this, &world, bound, what] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (cv_.wait_for(lock, bound, [this] { return done_; })) return;
          std::fprintf(stderr,
                       "trainready fleet: rank %d: %s did not finish within %lld s: a rank hung "
                       "or died inside it, and MPI cannot cancel a collective; ending the job\n",
                       world.rank(), what.c_str(),
                       static_cast<long long>(
                           std::chrono::duration_cast<std::chrono::seconds>(bound).count()));
          std::fflush(stderr);
          world.abort(1);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

bool receive_from_root(MpiWorld& world, int tag, std::string& text, milliseconds timeout) {
  int source = 0;
  int channel = tag;
  return world.receive(source, channel, text, timeout);
}

// Rounds in lock step through rank 0, point to point: every rank says "step k done", rank 0
// waits for them (up to what one pair may take: every exchange at its timeout) and answers "go"
// with the nodes that did not report, which everyone skips from then on. Without it a pair that
// runs long (a slow link) leaves its nodes' next partners waiting, their first exchange times
// out, and the delay cascades round after round; with it the N/2 pairs of a round really run
// together, and a node that dies mid-phase costs one round's wait, once.
RoundSync round_sync(MpiWorld& world, const Plan& plan, const BandwidthOptions& o, int pass,
                     PairBandwidthFacts& facts) {
  const milliseconds bound =
      o.step_timeout * (std::max(1, o.pair_warmup) + o.pair_iterations * o.pair_repeats + 1);
  return [&world, &plan, &facts, bound, pass, o](int step, std::set<int>& dead) {
    const std::string tag = std::to_string(pass) + ":" + std::to_string(step);
    if (world.rank() != 0) {
      if (!world.send(tag, 0, kRoundDoneTag + pass, o.step_timeout)) return false;
      std::string text;
      int source = 0;
      int channel = kRoundGoTag + pass;
      // Rank 0 may wait a whole bound for the slowest rank before it answers.
      if (!world.receive(source, channel, text, bound * 2)) return false;
      try {
        const auto j = nlohmann::json::parse(text);
        if (j.at("step").get<std::string>() != tag) return false;
        for (int n : j.at("dead").get<std::vector<int>>()) dead.insert(n);
      } catch (const nlohmann::json::exception&) {
        return false;
      }
      return true;
    }
    const auto deadline = Clock::now() + bound;
    std::vector<int> waiting;
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
      const PairNode& n = plan.nodes[i];
      if (!n.responded || !facts.nodes[i].responded || dead.count(static_cast<int>(i))) continue;
      for (int g = 0; g < plan.rails && g < static_cast<int>(n.ranks.size()); ++g)
        if (n.ranks[static_cast<std::size_t>(g)] != 0)
          waiting.push_back(n.ranks[static_cast<std::size_t>(g)]);
    }
    for (int r : waiting) {
      std::string text;
      int source = r;
      int channel = kRoundDoneTag + pass;
      bool ok = world.receive(source, channel, text, left(deadline));
      // A late "done" of an earlier step is not this one: take the next.
      while (ok && text != tag) {
        source = r;
        channel = kRoundDoneTag + pass;
        ok = world.receive(source, channel, text, left(deadline));
      }
      if (ok) continue;
      for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        const auto& ranks = plan.nodes[i].ranks;
        if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) continue;
        dead.insert(static_cast<int>(i));
        PairNode& fn = facts.nodes[i];
        fn.responded = false;
        if (fn.why_not.empty())
          fn.why_not = "rank " + std::to_string(r) + " stopped answering during the pairs (step " +
                       std::to_string(step) + ")";
      }
    }
    const std::string go =
        nlohmann::json{{"step", tag}, {"dead", std::vector<int>(dead.begin(), dead.end())}}.dump();
    for (int r : waiting) {
      bool alive = true;
      for (int n : dead) {
        const auto& ranks = plan.nodes[static_cast<std::size_t>(n)].ranks;
        alive = alive && std::find(ranks.begin(), ranks.end(), r) == ranks.end();
      }
      if (alive) world.send(go, r, kRoundGoTag + pass, o.step_timeout);
    }
    return true;
  };
}

// Every other participating rank's records, each within what is left of one deadline.
void collect_records(MpiWorld& world, const Plan& plan, int tag, Clock::time_point deadline,
                     std::vector<PairRecord>& records, PairBandwidthFacts& facts) {
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    const PairNode& n = plan.nodes[i];
    if (!n.responded || !facts.nodes[i].responded) continue;  // silent, or dead mid-phase
    for (int g = 0; g < plan.rails && g < static_cast<int>(n.ranks.size()); ++g) {
      const int r = n.ranks[static_cast<std::size_t>(g)];
      if (r == world.rank()) continue;
      std::string text;
      int source = r;
      int channel = tag;
      bool ok = world.receive(source, channel, text, left(deadline));
      if (ok) {
        try {
          auto recs = pair_records_from_json(text);
          records.insert(records.end(), recs.begin(), recs.end());
        } catch (const std::exception&) {
          ok = false;
        }
      }
      if (!ok) {
        PairNode& fn = facts.nodes[i];
        fn.responded = false;
        if (fn.why_not.empty())
          fn.why_not = "rank " + std::to_string(r) + " sent no pair results in time";
      }
    }
  }
}

}  // namespace

BandwidthPhase run_bandwidth_phase(MpiLayer& layer, MpiWorld& world, const BandwidthOptions& o,
                                   const SkuEntry* sku, const RunOptions& run_options,
                                   std::FILE* progress_out) {
  const auto started = Clock::now();
  const int rank = world.rank();
  const int size = world.size();
  ProgressLine progress(rank == 0 ? progress_out : nullptr);
  BandwidthPhase out;
  PairBandwidthFacts& f = out.facts;
  f.mode = o.mode;
  f.iterations = o.pair_iterations;
  f.repeats = o.pair_repeats;
  f.warmup = o.pair_warmup;
  f.step_timeout_s = std::chrono::duration<double>(o.step_timeout).count();

  // 1-2. Hello and plan.
  const bool my_nccl = nccl_possible();
  Plan plan;
  if (rank == 0) {
    std::vector<std::string> hosts(static_cast<std::size_t>(size));
    std::vector<bool> answered(static_cast<std::size_t>(size), true);
    std::vector<std::string> why(static_cast<std::size_t>(size));
    hosts[0] = world.host();
    bool all_nccl = my_nccl;
    const auto deadline = Clock::now() + o.step_timeout;
    for (int r = 1; r < size; ++r) {
      std::string text;
      const auto i = static_cast<std::size_t>(r);
      int source = r;
      int channel = kHelloTag;
      if (world.receive(source, channel, text, left(deadline))) {
        try {
          const auto j = nlohmann::json::parse(text);
          hosts[i] = j.at("host").get<std::string>();
          all_nccl = all_nccl && j.at("nccl").get<bool>();
          continue;
        } catch (const nlohmann::json::exception&) {
          why[i] = "rank " + std::to_string(r) + " sent a hello that is not valid JSON";
        }
      } else {
        why[i] = "rank " + std::to_string(r) + " did not answer the bandwidth phase's start";
      }
      answered[i] = false;
      hosts[i] = "rank " + std::to_string(r) + " (no answer)";
      all_nccl = false;
    }
    plan = make_plan(hosts, answered, all_nccl, o, why);
    // The user's own NCCL_MNNVL_ENABLE (other than 0) is left alone and the cells say so.
    plan.mnnvl_off =
        mnnvl_for(sku, plan.nccl, std::getenv("NCCL_MNNVL_ENABLE")) == Mnnvl::kDisabled;
    const std::string text = plan_text(plan);
    for (int r = 1; r < size; ++r)
      if (answered[static_cast<std::size_t>(r)]) world.send(text, r, kPlanTag, o.step_timeout);
  } else {
    world.send(nlohmann::json{{"host", world.host()}, {"nccl", my_nccl}}.dump(), 0, kHelloTag,
               o.step_timeout);
    std::string text;
    // Rank 0 may wait a whole step for a silent rank before it sends the plan.
    if (!receive_from_root(world, kPlanTag, text, o.step_timeout * 2)) return out;
    try {
      plan = plan_from(text);
    } catch (const std::exception&) {
      return out;
    }
  }
  f.nodes = plan.nodes;
  f.rails = plan.rails;
  f.rounds = static_cast<int>(plan.rounds.size());
  int my_node = -1;
  int my_rail = -1;
  for (std::size_t i = 0; i < plan.nodes.size(); ++i)
    for (std::size_t g = 0; g < plan.nodes[i].ranks.size(); ++g)
      if (plan.nodes[i].ranks[g] == rank) {
        my_node = static_cast<int>(i);
        my_rail = static_cast<int>(g);
      }

  // The transport, and what a cell should reach.
  std::unique_ptr<CommBackend> backend;
  std::string nccl_why;
  // Before NCCL starts: inside a GB200 rack NCCL would carry a pair over multi-node NVLink and
  // the rail matrix would measure NVLink, not the HCA (NCCL troubleshooting guide, MNNVL).
  if (plan.nccl && plan.mnnvl_off) ::setenv("NCCL_MNNVL_ENABLE", "0", 1);
  if (plan.nccl) backend = layer.make_nccl_backend(nccl_why);
  if (!backend) backend = layer.make_mpi_backend();
  f.transport = backend->name() + (plan.nccl ? ", GPU memory" : ", host memory");
  f.rail_meaning =
      plan.nccl ? "rail g = local rank g on each node, one GPU each: GPU g pairs with GPU g of "
                  "the other node through its own HCA (per-rail on Azure ND sizes)"
                : "rail g = local rank g on each node; with MPI on host memory the MPI library "
                  "picks the NICs of a message (pin one per local rank, e.g. UCX_NET_DEVICES, "
                  "for per-HCA rails)";
  const Mnnvl mnnvl = plan.mnnvl_off ? Mnnvl::kDisabled
                                     : mnnvl_for(sku, plan.nccl, std::getenv("NCCL_MNNVL_ENABLE"));
  if (mnnvl == Mnnvl::kDisabled)
    f.rail_meaning +=
        "; NCCL_MNNVL_ENABLE=0 on every rank, so pairs inside an NVLink rack use their HCAs "
        "(InfiniBand), not multi-node NVLink";
  else if (mnnvl == Mnnvl::kEnabled)
    f.rail_meaning +=
        "; NCCL_MNNVL_ENABLE is set other than 0: pairs inside an NVLink rack run over NVLink, "
        "not IB";
  const std::uint64_t largest_pair =
      o.pair_sizes.empty() ? 0 : *std::max_element(o.pair_sizes.begin(), o.pair_sizes.end());
  const PairExpectation e =
      pair_expectation(sku, plan.nccl, plan.rails, run_options, largest_pair, mnnvl);
  f.expected_gbytes_per_s = e.gbytes_per_s;
  f.expected_formula = e.formula;
  f.expected_why_unknown = e.why_unknown;
  const int active_nodes = static_cast<int>(std::count_if(
      plan.nodes.begin(), plan.nodes.end(), [](const PairNode& n) { return n.responded; }));
  progress.note("fleet bandwidth (" + o.mode + ", " + f.transport +
                "): " + bandwidth_work(o, active_nodes, plan.rails));
  if (e.gbytes_per_s)
    progress.note("  pairs: about " +
                  seconds_text(pairwise_seconds(o, active_nodes, *e.gbytes_per_s)) + " at the " +
                  gb_text(*e.gbytes_per_s) + " a rail should reach");
  progress.note("  every step gives up after " + seconds_text(f.step_timeout_s) +
                " (pairs at most " + seconds_text(pairwise_worst_seconds(o, active_nodes)) +
                " if every step did)");

  // 3. The all-reduce over every rank.
  if (!plan.allreduce) {
    f.allreduce_skipped = size < 2 ? "one rank: nothing to reduce across"
                                   : "not every rank answered, and a collective needs them all";
  } else if (my_node >= 0) {
    const std::size_t sizes = sweep_sizes(o.allreduce).size();
    const auto bound = o.step_timeout * static_cast<long>(sizes + 1);
    progress.note("  all-reduce: " + std::to_string(sizes) + " sizes on " + std::to_string(size) +
                  " ranks");
    HarnessResult r;
    {
      Watchdog dog(world, bound, "the all-reduce");
      r = run_collective_harness(*backend, o.allreduce);
    }
    f.allreduce_backend = r.backend;
    for (const SizeResult& s : r.sizes)
      f.allreduce.push_back({s.size_bytes, s.out_of_place.time.median_us, s.out_of_place.busbw,
                             s.out_of_place.wrong});
    if (rank == 0) {
      if (!r.sizes.empty() && !e.gbytes_per_s) {
        const double bw = r.sizes.back().out_of_place.busbw;
        progress.note("  all-reduce busbw " + gb_text(bw) + " at the largest size; pairs: about " +
                      seconds_text(pairwise_seconds(o, active_nodes, bw)) + " at that rate");
      }
      out.allreduce = std::move(r);
    }
  }

  // 4. The rounds.
  if (my_node < 0 || my_rail >= plan.rails) return out;
  out.participated = true;
  auto report = [&](int done, int total) { progress.update("  pairs: step", done, total); };
  std::vector<PairRecord> mine =
      run_pair_rounds(*backend, plan.nodes, my_node, my_rail, plan.rounds, o.pair_sizes, o,
                      kPairTag, report, round_sync(world, plan, o, 0, f));
  progress.finish();
  if (rank != 0) {
    world.send(pair_records_to_json(mine), 0, kResultsTag, o.step_timeout);
  } else {
    collect_records(world, plan, kResultsTag, Clock::now() + o.step_timeout * 2, mine, f);
    merge_pair_records(f, mine, false);
  }

  // 5. Re-test what looks low, at the largest size, before it is reported.
  std::vector<PairRound> retest;
  if (rank == 0) {
    PairOutlierOptions oo = o.outliers;
    oo.expected_gbytes = f.expected_gbytes_per_s;
    std::vector<std::pair<int, int>> pairs;
    for (const PairMatrix& m : f.matrices) {
      if (m.size_bytes != f.largest_size()) continue;  // the size the rules judge
      for (auto p : classify_pairs(m, oo).suspicious)
        if (std::find(pairs.begin(), pairs.end(), p) == pairs.end()) pairs.push_back(p);
    }
    if (static_cast<int>(pairs.size()) > o.max_retests)
      pairs.resize(static_cast<std::size_t>(o.max_retests));
    retest = rounds_for_pairs(pairs);
    const std::string text = rounds_json(retest).dump();
    for (const PairNode& n : f.nodes)  // those still answering after the main pass
      for (int g = 0; n.responded && g < plan.rails; ++g)
        if (n.ranks[static_cast<std::size_t>(g)] != 0)
          world.send(text, n.ranks[static_cast<std::size_t>(g)], kRetestPlanTag, o.step_timeout);
    if (!pairs.empty())
      progress.note("  re-testing " + std::to_string(pairs.size()) + " suspicious pair" +
                    (pairs.size() == 1 ? "" : "s") + " in " + std::to_string(retest.size()) +
                    " round" + (retest.size() == 1 ? "" : "s"));
  } else {
    std::string text;
    // Rank 0 may spend two steps collecting results before it sends this.
    if (!receive_from_root(world, kRetestPlanTag, text, o.step_timeout * 3)) return out;
    try {
      retest = rounds_from(nlohmann::json::parse(text));
    } catch (const std::exception&) {
      return out;
    }
  }
  if (!retest.empty()) {
    const std::vector<std::uint64_t> largest = {
        *std::max_element(o.pair_sizes.begin(), o.pair_sizes.end())};
    std::vector<PairRecord> again =
        run_pair_rounds(*backend, plan.nodes, my_node, my_rail, retest, largest, o, kRetestTag, {},
                        round_sync(world, plan, o, 1, f));
    if (rank != 0) {
      world.send(pair_records_to_json(again), 0, kRetestResultsTag, o.step_timeout);
    } else {
      collect_records(world, plan, kRetestResultsTag, Clock::now() + o.step_timeout * 2, again, f);
      merge_pair_records(f, again, true);
    }
  }
  f.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (rank == 0) progress.note("  bandwidth phase done in " + seconds_text(f.seconds));
  return out;
}

}  // namespace trainready
