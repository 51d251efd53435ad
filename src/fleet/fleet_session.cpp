#include "fleet/fleet_session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "bench/mpi_backend.h"
#include "bench/mpi_plugin_loader.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/root.h"
#include "fleet/fleet_faults.h"
#include "fleet/fleet_groups.h"
#include "fleet/fleet_message.h"
#include "fleet/group_judgement.h"
#include "fleet/judged_gatherer.h"
#include "fleet/probe_child.h"
#include "probes/probes.h"

#ifndef TRAINREADY_VERSION
#define TRAINREADY_VERSION "unknown"
#endif

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

// The rank before MPI starts (the probes are forked before MPI_Init): Open MPI's mpirun, Slurm's
// srun, and PMIx/PMI launchers all export it.
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID", "PMI_RANK"}) {
    if (const char* v = env(name)) {
      char* end = nullptr;
      const long r = std::strtol(v, &end, 10);
      if (end != v && *end == '\0' && r >= 0 && r < 1'000'000'000) return static_cast<int>(r);
    }
  }
  return 0;
}

std::string local_host() {
  std::string h = host_name();
  return h.empty() ? "unknown" : h;
}

[[noreturn]] void sleep_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string hello_bytes(int rank, const std::string& host) {
  RankMessage m;
  m.kind = RankMessageKind::kHello;
  m.rank = rank;
  m.host = host;
  m.pid = static_cast<int>(::getpid());
  m.tool_version = TRAINREADY_VERSION;
  return encode_rank_message(m);
}

std::string failed_bytes(int rank, const std::string& host, const std::string& why) {
  RankMessage m;
  m.kind = RankMessageKind::kFailed;
  m.rank = rank;
  m.host = host;
  m.pid = static_cast<int>(::getpid());
  m.tool_version = TRAINREADY_VERSION;
  m.error = why;
  return encode_rank_message(m);
}

// What runs in the probe child: this rank's facts as its message.
std::string probe_to_message(const FleetOptions& opt, int rank, FleetFault fault) {
  if (fault == FleetFault::kProbeHang) sleep_forever();
  if (fault == FleetFault::kProbeExit) ::_exit(3);
  RankMessage m;
  m.kind = RankMessageKind::kFacts;
  m.rank = rank;
  m.host = local_host();
  m.pid = static_cast<int>(::getppid());  // the rank, not this child
  m.tool_version = fault == FleetFault::kVersion ? "0.0.0-test" : TRAINREADY_VERSION;
  if (fault == FleetFault::kFormat) m.format = 99;
  if (opt.roots.empty()) {
    FsRoot root("/");
    m.facts = probe_node(root, opt.probe);
  } else {
    const std::string path = root_for_rank(opt.roots, rank);
    FsRoot root(path);
    require_snapshot_root(root, path);
    m.facts = probe_node(root, opt.probe);
  }
  return encode_rank_message(m);
}

// A group leader of the two-level gather: its own facts (its hello went to rank 0), then every
// message of its members (ranks leader+1 .. leader+K-1) as it arrives, until each has sent its
// facts (or a failure) or kLeaderShare of the deadline has passed; then it judges its members'
// nodes and sends rank 0 the judgement (fleet/group_judgement.h), which rank 0 still has the
// rest of the deadline to take. A member that said hello but sent nothing more ends stalled, one
// that sent nothing silent, as in the one-level gather.
constexpr double kLeaderShare = 0.9;

// The messages of a group as they come: its gatherer, and the facts messages as received when
// the report prints facts (they go to rank 0 with the judgement).
struct GroupGather {
  GroupGather(int first_rank, int count, bool keep)
      : g(count, TRAINREADY_VERSION, first_rank),
        first(first_rank),
        kept(keep ? static_cast<std::size_t>(count) : 0) {}
  void accept(int source, int channel, std::string bytes, double t) {
    const auto i = static_cast<std::size_t>(source - first);
    if (!kept.empty() && channel == kFleetFactsChannel && i < kept.size()) kept[i] = bytes;
    g.accept(source, bytes, t);
  }
  GroupJudgement judge(const FleetOptions& opt, double t, const std::string& launcher) {
    FleetGather done =
        g.finish(t, std::chrono::duration<double>(opt.gather_timeout).count(), launcher);
    std::vector<std::string> facts;
    for (const FleetRank& r : done.fleet.ranks)
      if (r.node >= 0 && !kept.empty())
        facts.push_back(kept[static_cast<std::size_t>(r.rank - first)].value_or(""));
    return judge_group(first, std::move(done), std::move(facts), opt.judge, TRAINREADY_VERSION);
  }
  FleetGatherer g;
  int first;
  std::vector<std::optional<std::string>> kept;
};

void lead_group(const FleetSession& s, const FleetOptions& opt, Clock::time_point t0,
                std::string facts) {
  const int first = s.rank + 1;
  const int end = std::min(s.rank + s.gather_group, s.size);
  GroupGather group(s.rank, end - s.rank, opt.judge.forward_facts);
  group.accept(s.rank, kFleetFactsChannel, std::move(facts), seconds_since(t0));
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(opt.gather_timeout) * kLeaderShare);
  while (!group.g.complete()) {
    int source = MpiWorld::kAnyRank;
    int channel = MpiWorld::kAnyChannel;
    std::string bytes;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    // Past the deadline (its own probes may have taken most of it): only what has arrived.
    const auto wait = std::clamp(left, milliseconds(0), milliseconds(100));
    if (!s.world->receive(source, channel, bytes, wait)) {
      if (left <= milliseconds(0)) break;
      continue;
    }
    if (source < first || source >= end) continue;
    if (channel != kFleetHelloChannel && channel != kFleetFactsChannel) continue;
    group.accept(source, channel, std::move(bytes), seconds_since(t0));
  }
  const std::string judgement =
      encode_group_judgement(group.judge(opt, seconds_since(t0), s.launcher));
  const auto left =
      std::chrono::duration_cast<milliseconds>(t0 + opt.gather_timeout - Clock::now());
  s.world->send(judgement, 0, kFleetJudgementChannel, std::max(left, milliseconds(1000)));
}

// Rank 0 of a two-level gather: the leader of group 0, and the one that takes every other
// leader's hello and judgement.
JudgedFleet gather_judged(FleetSession& s, const FleetOptions& opt, Clock::time_point t0,
                          std::string mine) {
  const int k = s.gather_group;
  GroupGather group(0, std::min(k, s.size), opt.judge.forward_facts);
  JudgedGatherer fleet(s.size, k, TRAINREADY_VERSION, node_rule_ids(opt.judge.selection));
  group.accept(0, kFleetFactsChannel, std::move(mine), seconds_since(t0));
  bool judged = false;
  auto judge_own = [&] {
    fleet.add(group.judge(opt, seconds_since(t0), s.launcher));
    judged = true;
  };
  const auto deadline = t0 + opt.gather_timeout;
  while (Clock::now() < deadline) {
    if (!judged && group.g.complete()) judge_own();
    if (fleet.complete()) break;
    int source = MpiWorld::kAnyRank;
    int channel = MpiWorld::kAnyChannel;
    std::string bytes;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!s.world->receive(source, channel, bytes, std::min(left, milliseconds(100)))) continue;
    if ((channel == kFleetHelloChannel || channel == kFleetFactsChannel) && source < k)
      group.accept(source, channel, std::move(bytes), seconds_since(t0));
    else if (channel == kFleetHelloChannel && source % k == 0)
      fleet.accept_hello(source, bytes, seconds_since(t0));
    else if (channel == kFleetJudgementChannel && source > 0 && source % k == 0)
      fleet.accept_judgement(source, bytes, seconds_since(t0));
  }
  if (!judged) judge_own();
  JudgedFleet out = fleet.finish(
      seconds_since(t0), std::chrono::duration<double>(opt.gather_timeout).count(), s.launcher);
  s.all_answered =
      std::all_of(out.fleet.ranks.begin(), out.fleet.ranks.end(), [](const FleetRank& r) {
        return r.state != FleetRankState::kSilent && r.state != FleetRankState::kStalled;
      });
  return out;
}

}  // namespace

std::string fleet_launcher() {
  if (env("OMPI_COMM_WORLD_SIZE")) return "mpirun";
  if (env("SLURM_STEP_ID") && env("SLURM_PROCID")) return "srun";
  if (env("PMIX_RANK") || env("PMI_RANK")) return "mpi";
  return "none";
}

std::string root_for_rank(const std::vector<std::string>& roots, int rank) {
  if (roots.empty()) throw InputError("--root", 0, "a snapshot directory");
  std::string p = roots[static_cast<std::size_t>(rank) % roots.size()];
  const std::string r = std::to_string(rank);
  for (std::size_t at = p.find("%r"); at != std::string::npos; at = p.find("%r", at + r.size()))
    p.replace(at, 2, r);
  return p;
}

FleetSession gather_fleet(const FleetOptions& opt) {
  FleetSession s;
  s.launcher = fleet_launcher();
  const int env_rank = s.launcher == "none" ? 0 : launcher_rank();
  const FleetFault fault = fleet_fault_for(env_rank);
  // Forked before MPI_Init: the child shares no MPI state with the rank.
  ProbeChild child([&] { return probe_to_message(opt, env_rank, fault); });
  if (s.launcher != "none") {
    s.world = load_mpi_layer().world();
    s.rank = s.world->rank();
    s.size = s.world->size();
    if (s.rank != env_rank)
      throw std::runtime_error("the launcher said rank " + std::to_string(env_rank) +
                               " and MPI says rank " + std::to_string(s.rank));
  }
  const std::string host = s.world ? s.world->host() : local_host();
  s.gather_group = gather_group_size(opt.gather_group, s.size);
  const int leader = gather_leader(s.rank, s.gather_group);
  const auto t0 = Clock::now();
  if (fault == FleetFault::kSilent) sleep_forever();
  // A leader says hello to rank 0 itself: if it then hangs, rank 0 names it stalled.
  if (s.rank != 0)
    s.world->send(hello_bytes(s.rank, host), leader == s.rank ? 0 : leader, kFleetHelloChannel,
                  milliseconds(0));
  if (fault == FleetFault::kHang) sleep_forever();

  std::string mine;
  std::string why;
  if (!child.wait(opt.probe_timeout, mine, why)) mine = failed_bytes(s.rank, host, why);
  if (fault == FleetFault::kGarbage) mine = std::string("\xff\x00garbage from a test hook", 25);

  if (s.rank != leader) {
    // Buffered or taken: either way this rank has said what it knows.
    s.world->send(mine, leader, kFleetFactsChannel, opt.gather_timeout);
    return s;
  }
  if (s.rank != 0) {
    lead_group(s, opt, t0, mine);
    return s;
  }
  if (s.gather_group > 1) {
    s.judged = gather_judged(s, opt, t0, std::move(mine));
    return s;
  }
  FleetGatherer g(s.size, TRAINREADY_VERSION);
  g.accept(0, mine, seconds_since(t0));
  const auto deadline = t0 + opt.gather_timeout;
  while (!g.complete() && Clock::now() < deadline) {
    int source = MpiWorld::kAnyRank;
    int channel = MpiWorld::kAnyChannel;
    std::string bytes;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!s.world->receive(source, channel, bytes, std::min(left, milliseconds(100)))) continue;
    if (channel == kFleetHelloChannel || channel == kFleetFactsChannel)
      g.accept(source, bytes, seconds_since(t0));
  }
  s.all_answered = g.complete();
  s.gathered = g.finish(seconds_since(t0),
                        std::chrono::duration<double>(opt.gather_timeout).count(), s.launcher);
  return s;
}

void release_ranks(FleetSession& s, bool run_phases, milliseconds timeout) {
  if (!s.world || s.rank != 0 || (!s.gathered && !s.judged)) return;
  const std::string word = run_phases ? "run" : "stop";
  const FleetFacts& fleet = s.judged ? s.judged->fleet : s.gathered->fleet;
  for (const FleetRank& r : fleet.ranks) {
    if (r.rank == 0 || r.state == FleetRankState::kSilent || r.state == FleetRankState::kStalled)
      continue;
    s.world->send(word, r.rank, kFleetReleaseChannel, timeout);
  }
}

bool await_release(FleetSession& s, milliseconds timeout) {
  if (!s.world || s.rank == 0) return s.all_answered;
  int source = 0;
  int channel = kFleetReleaseChannel;
  std::string word;
  s.all_answered = s.world->receive(source, channel, word, timeout) && word == "run";
  return s.all_answered;
}

void end_fleet(FleetSession& s, int exit_code) {
  if (!s.world) std::exit(exit_code);
  if (s.all_answered && s.world->barrier(milliseconds(60000))) {
    s.world.reset();
    mpi_finalize();
    std::exit(s.rank == 0 ? exit_code : 0);
  }
  // A rank is missing and may never return: rank 0 (its report written) ends the job; the
  // others wait for that, since leaving first would make the launcher end rank 0 early.
  if (s.rank == 0) s.world->abort(exit_code);
  std::this_thread::sleep_for(std::chrono::minutes(10));
  std::_Exit(0);
}

}  // namespace trainready
