#include "fleet/fleet_session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <thread>

#include "bench/mpi_backend.h"
#include "bench/mpi_plugin_loader.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/root.h"
#include "fleet/fleet_bundle.h"
#include "fleet/fleet_faults.h"
#include "fleet/fleet_message.h"
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
// facts (or a failure) or kLeaderShare of the deadline has passed; then one bundle to rank 0,
// which still has the rest of the deadline to take it. A member that said hello but sent nothing
// more ends stalled at rank 0, one that sent nothing silent, as in the one-level gather.
constexpr double kLeaderShare = 0.9;

void lead_group(const FleetSession& s, const FleetOptions& opt, Clock::time_point t0,
                std::string facts) {
  const int first = s.rank + 1;
  const int end = std::min(s.rank + s.gather_group, s.size);
  std::deque<std::string> held;  // stable storage for the entries' views
  std::vector<BundleEntry> entries;
  auto keep = [&](int rank, std::string bytes, double t) {
    held.push_back(std::move(bytes));
    entries.push_back({rank, t, held.back()});
  };
  keep(s.rank, std::move(facts), seconds_since(t0));
  std::vector<bool> done(static_cast<std::size_t>(std::max(end - first, 0)), false);
  std::size_t answered = 0;
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(opt.gather_timeout) * kLeaderShare);
  while (answered < done.size()) {
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
    const auto i = static_cast<std::size_t>(source - first);
    if (channel == kFleetFactsChannel && !done[i]) {
      done[i] = true;
      ++answered;
    }
    keep(source, std::move(bytes), seconds_since(t0));
  }
  const auto left =
      std::chrono::duration_cast<milliseconds>(t0 + opt.gather_timeout - Clock::now());
  s.world->send(encode_bundle(entries), 0, kFleetBundleChannel, std::max(left, milliseconds(1000)));
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
  FleetGatherer g(s.size, TRAINREADY_VERSION);
  g.accept(0, mine, seconds_since(t0));
  const auto deadline = t0 + opt.gather_timeout;
  while (!g.complete() && Clock::now() < deadline) {
    int source = MpiWorld::kAnyRank;
    int channel = MpiWorld::kAnyChannel;
    std::string bytes;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!s.world->receive(source, channel, bytes, std::min(left, milliseconds(100)))) continue;
    // Its own group's messages, and every leader's hello.
    const bool mine_to_hear = gather_leader(source, s.gather_group) == 0 ||
                              (channel == kFleetHelloChannel && source % s.gather_group == 0);
    if ((channel == kFleetHelloChannel || channel == kFleetFactsChannel) && mine_to_hear)
      g.accept(source, bytes, seconds_since(t0));
    else if (channel == kFleetBundleChannel && s.gather_group > 1 && source > 0 &&
             source % s.gather_group == 0)
      g.accept_bundle(source, s.gather_group, bytes, seconds_since(t0));
  }
  s.all_answered = g.complete();
  s.gathered = g.finish(seconds_since(t0),
                        std::chrono::duration<double>(opt.gather_timeout).count(), s.launcher);
  return s;
}

void release_ranks(FleetSession& s, bool run_phases, milliseconds timeout) {
  if (!s.world || s.rank != 0 || !s.gathered) return;
  const std::string word = run_phases ? "run" : "stop";
  for (const FleetRank& r : s.gathered->fleet.ranks) {
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
