// `trainready watch`: sample the node while a job trains and say which path its GPUs wait on.
// Live (through --root, "/" by default) or offline from recordings (--replay).
#include <signal.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/judge.h"
#include "cli/output.h"
#include "cli/shared_flags.h"
#include "cli/watch_peers.h"
#include "core/atomic_file.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/root.h"
#include "core/text.h"
#include "core/units.h"
#include "facts/collective_progress.h"
#include "parsers/nccl_ras.h"
#include "report/watch/watch_html.h"
#include "report/watch/watch_prom.h"
#include "watch/live_view.h"
#include "watch/metrics_server.h"
#include "watch/ras_client.h"
#include "watch/recording.h"
#include "watch/sampler.h"
#include "watch/timeline.h"

namespace trainready {
namespace {

using namespace trainready::watch;

struct WatchArgs {
  std::string interval = "1s";
  std::string duration;
  std::vector<int> pids;
  bool all = false;
  std::string root = "/";
  std::string nvml_library;
  std::string dcgm;
  std::string dcgm_library;
  std::string ras_addr;  // empty: NCCL_RAS_ADDR or localhost:28028 on the live node; "off"
  std::string ras_timeout = "5s";
  std::vector<std::string> net;
  std::string record;
  std::vector<std::string> replay;
  std::string prom_file;
  std::string listen;
  std::vector<std::string> job_labels;
  std::string hang_after = "60s";
  std::string html;
  bool explain = false;
  bool quiet = false;
  SharedFlags flags;         // --format/--json, --fail-on, --color, -o: the summary is a report
  std::string peer_timeout;  // default: 5 intervals, at least 5 s
  bool quiet_peers = false;
};

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

std::vector<std::pair<std::string, std::string>> job_labels(const WatchArgs& a) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& kv : a.job_labels) {
    const std::size_t eq = kv.find('=');
    const std::string k = kv.substr(0, eq);
    bool ok = eq != std::string::npos && !k.empty() && !(k[0] >= '0' && k[0] <= '9') &&
              k.rfind("__", 0) != 0;
    for (char c : k) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok)
      throw InputError("--job-label", 0,
                       "'" + kv +
                           "': expected NAME=VALUE with a Prometheus label name "
                           "([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)");
    out.emplace_back(k, kv.substr(eq + 1));
  }
  if (const char* j = std::getenv("SLURM_JOB_ID"); j && *j) out.emplace_back("slurm_job_id", j);
  return out;
}

Thresholds thresholds(const WatchArgs& a) {
  Thresholds t;
  t.hang_after_s = seconds_of("--hang-after", a.hang_after, 0.001, 7 * 86400.0);
  return t;
}

// NCCL's RAS report as rank 0 fetched it (watch/ras_client.h keeps it raw), read by the same
// parser as an ncclras file given to `nccl`, so that when watch saw the job hang the telemetry
// rules (nccl-ranks-behind) name the ranks behind beside the watch rules. A reply that is not a RAS
// report goes to the node's unavailable sources with the reason, never ends a watch.
std::shared_ptr<CollectiveProgressFacts> ras_progress(WatchFacts& facts) {
  auto p = std::make_shared<CollectiveProgressFacts>();
  for (WatchNodeFacts& n : facts.nodes) {
    if (!n.nccl_ras || n.nccl_ras->text.empty()) continue;
    // A running job's ranks differ by the operations in flight when RAS counts them; the counts
    // say who is behind only once the job stopped moving (a hang interval on this node).
    const WatchLabelShare* hang = n.find("hang");
    if (hang == nullptr || hang->intervals == 0) continue;
    const std::string source = "NCCL RAS at " + n.nccl_ras->address;
    if (n.nccl_ras->truncated) {
      n.unavailable.push_back(source + ": the report was cut at its size limit, not read");
      continue;
    }
    try {
      p->ras.push_back(parse_ras_output(n.nccl_ras->text, source));
      p->files.push_back(source);
    } catch (const InputError& e) {
      n.unavailable.push_back(source + ": not read as a RAS report: " + e.what());
    }
  }
  return p->empty() ? nullptr : p;
}

// The end of every watch: the labelled timeline's totals become facts, the watch rules judge
// them, and the report goes out in the chosen format like any other command's.
// Under a launcher, rank 0 adds the job's view (straggler, silent ranks) from its board.
int judge_watch(const WatchArgs& a, const Thresholds& t, const std::string& mode,
                std::vector<WatchNodeFacts> nodes, const WatchPeers* peers = nullptr) {
  auto facts = std::make_shared<WatchFacts>();
  facts->mode = mode;
  facts->hang_after_s = t.hang_after_s;
  facts->nodes = std::move(nodes);
  if (peers && peers->board()) facts->job = peers->board()->facts(peers->launcher());
  Report r = start_report("watch", a.flags);
  r.progress = ras_progress(*facts);
  r.watch = std::move(facts);
  return judge_and_emit(r, a.flags);
}

// The live view's lines about the job (rank 0 under a launcher).
std::vector<std::string> job_news(const WatchPeers::News& n, const WatchPeers& peers) {
  std::vector<std::string> out;
  for (const StragglerEvent& e : n.stragglers)
    out.push_back("job: straggler: " + straggler_line(e));
  for (int r : n.silent)
    out.push_back("job: " + peers.board()->node_name(r) +
                  " is silent (no interval summary for --peer-timeout): carrying on without it");
  return out;
}

class SignalScope {
 public:
  SignalScope() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: the sleep returns at once
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

double now_monotonic() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Sleeps until the monotonic deadline; false when a signal asked to stop.
bool sleep_until(double deadline) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(deadline);
  ts.tv_nsec = static_cast<long>((deadline - static_cast<double>(ts.tv_sec)) * 1e9);
  while (!g_stop.load()) {
    const int rc = ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    if (rc == 0) return !g_stop.load();
    if (rc != EINTR) return !g_stop.load();
  }
  return false;
}

// How often rank 0 asks NCCL's RAS service for its report: each STATUS makes every RAS thread
// of the job answer over its network (ras/collectives.cc), so once a minute (trainready's choice),
// the first at the start.
constexpr double kRasEverySeconds = 60;

// The RAS service to ask (rank 0 only): --ras-addr, else on the live node NCCL_RAS_ADDR (what the
// job's NCCL listens on) or NCCL's default localhost:28028; with --root, only when given.
std::unique_ptr<RasPoller> ras_poller(const WatchArgs& a, bool live_root, int rank) {
  if (rank != 0 || a.ras_addr == "off") return nullptr;
  RasQueryOptions o;
  if (!a.ras_addr.empty()) {
    o.address = a.ras_addr;
  } else if (!live_root) {
    return nullptr;
  } else if (const char* env = std::getenv("NCCL_RAS_ADDR"); env && *env) {
    o.address = env;
  }
  o.ras_timeout_s =
      static_cast<int>(std::lround(seconds_of("--ras-timeout", a.ras_timeout, 1, 3600)));
  return std::make_unique<RasPoller>(o, kRasEverySeconds);
}

int run_live(const WatchArgs& a) {
  const double interval = seconds_of("--interval", a.interval, 0.01, 3600);
  const double duration =
      a.duration.empty() ? 0 : seconds_of("--duration", a.duration, 0.01, 366 * 86400.0);
  const Thresholds t = thresholds(a);
  const auto labels = job_labels(a);
  if (!a.html.empty())
    throw InputError("--html", 0, "needs --replay FILE (the report is drawn from a recording)");
  const double peer_timeout = a.peer_timeout.empty()
                                  ? std::max(5.0, 5 * interval)
                                  : seconds_of("--peer-timeout", a.peer_timeout, 0.01, 86400.0);
  const std::string host = host_name();
  // Under mpirun/srun: one rank per node, rank 0 names the straggler (cli/watch_peers.h).
  std::unique_ptr<WatchPeers> peers = WatchPeers::join(t, interval, peer_timeout, now_monotonic);
  const int rank = peers ? peers->rank() : 0;
  const std::string root_path = expand_rank_placeholders(a.root, rank, host);
  FsRoot root(root_path);
  if (!root.is_live()) require_snapshot_root(root, root_path);
  for (int p : a.pids) {
    if (p <= 0 || !root.read_file("/proc/" + std::to_string(p) + "/stat").ok())
      throw InputError(
          "--pid", 0,
          std::to_string(p) + ": no such process" + (root.is_live() ? "" : " under " + root_path));
  }
  const std::string record = expand_rank_placeholders(a.record, rank, host);
  if (peers && peers->size() > 1 && !record.empty() && record == a.record)
    throw InputError("--record", 0,
                     "'" + a.record + "': under " + peers->launcher() + " with " +
                         std::to_string(peers->size()) +
                         " ranks every rank would append to this one file: put {rank} or {host} "
                         "in its name");
  SamplerOptions so;
  so.pids = a.pids;
  so.all_processes = a.all;
  so.nvml_library = !a.nvml_library.empty() ? a.nvml_library
                    : root.is_live()        ? std::string("libnvidia-ml.so.1")
                                            : std::string();
  so.dcgm = dcgm_options(a.dcgm, a.dcgm_library, root.is_live(), interval);
  std::unique_ptr<MetricsServer> server;
  if (!a.listen.empty()) {
    server = std::make_unique<MetricsServer>(a.listen);
    if (!listen_is_loopback(a.listen))
      std::cerr << "trainready: watch --listen " << terminal_safe(a.listen)
                << ": /metrics is served to every host that can reach this address, without "
                   "authentication\n";
  }
  std::unique_ptr<RecordWriter> rec;
  if (!record.empty()) rec = std::make_unique<RecordWriter>(record, host);
  Sampler sampler(root, so);
  // NCCL RAS in a thread of its own: a query that hangs never holds a sample up.
  std::unique_ptr<RasPoller> ras = ras_poller(a, root.is_live(), rank);
  IntervalOptions io;
  io.net_interfaces = a.net;
  Timeline timeline(io, t);
  timeline.summary().set_node(host);
  const bool text_format = a.flags.chosen_format() == "text";
  // mpirun gives each rank a pseudo-terminal and merges them: plain lines under a launcher.
  const bool tty = ::isatty(STDOUT_FILENO) == 1 && text_format && !peers;
  const bool silenced = peers && peers->rank() != 0 && a.quiet_peers;
  const bool live = !a.quiet && text_format && !silenced;
  std::size_t panel_lines = 0;
  SignalScope signals;
  g_stop.store(false);
  const double start = now_monotonic();
  double next = start;
  std::optional<watch::Verdict> last_verdict;
  for (;;) {
    Sample s = sampler.sample();
    if (ras) s.nccl_ras = ras->take();
    if (rec) rec->append(s);
    auto li = timeline.add(s);
    if (li) last_verdict = li->verdict;
    std::vector<std::string> news;
    if (peers) {
      if (li) peers->publish(*li, now_monotonic());
      if (peers->board()) news = job_news(peers->poll(now_monotonic()), *peers);
    }
    if (!a.prom_file.empty() || server) {
      PromContext pc{labels, last_verdict ? &*last_verdict : nullptr};
      const std::string text = watch_prometheus_text(s, timeline.summary(), pc);
      if (!a.prom_file.empty()) write_file_atomically(a.prom_file, text);
      if (server) server->publish(text);
    }
    if (li && live) {
      if (tty) {
        auto panel = live_panel(li->interval, li->verdict, timeline.summary());
        std::string out;
        if (panel_lines > 0) out += "\x1b[" + std::to_string(panel_lines) + "A\x1b[J";
        for (const std::string& l : panel) out += l + "\n";
        panel_lines = panel.size();
        std::fputs(out.c_str(), stdout);
      } else {
        std::fputs((live_line(li->interval, li->verdict) + "\n").c_str(), stdout);
        for (const std::string& l : news) std::fputs(terminal_safe(l + "\n").c_str(), stdout);
      }
      std::fflush(stdout);
    }
    // The job is over when every watched process has exited.
    if ((!a.pids.empty() || a.all) && s.procs.empty()) break;
    if (duration > 0 && now_monotonic() - start >= duration - 1e-3) break;
    next += interval;
    const double now = now_monotonic();
    if (next < now) next = now;  // a slow sample does not make the next ones burst
    if (duration > 0 && next - start > duration) next = start + duration;
    if (!sleep_until(next)) break;
  }
  if (peers) {
    // The peers close their last intervals up to an interval later; a silent one is not waited
    // for beyond --peer-timeout.
    const auto n = peers->finish(peer_timeout + interval, now_monotonic);
    if (live && !tty)
      for (const std::string& l : job_news(n, *peers))
        std::fputs(terminal_safe(l + "\n").c_str(), stdout);
  }
  if (live) std::fputs("\n", stdout);
  const int rc =
      silenced ? 0 : judge_watch(a, t, "live", {timeline.summary().facts()}, peers.get());
  if (peers) peers->end(rc);
  return rc;
}

int run_replay(const WatchArgs& a) {
  const Thresholds t = thresholds(a);
  IntervalOptions io;
  io.net_interfaces = a.net;
  std::vector<NodeTimeline> nodes;
  const bool keep = a.replay.size() > 1 || !a.html.empty();
  for (const std::string& path : a.replay) {
    Timeline timeline(io, t);
    NodeTimeline node;
    read_recording(
        path,
        [&](const RecordingHeader& h) {
          if (node.node.empty()) node.node = h.host.empty() ? path : h.host + " (" + path + ")";
        },
        [&](const Sample& s, int) {
          auto li = timeline.add(s);
          if (!li) return;
          // Nothing is printed until every line has been read: a bad line exits 2 with no
          // partial output.
          if (keep) node.intervals.push_back(*li);
        });
    node.summary = timeline.summary();
    node.summary.set_node(node.node);
    nodes.push_back(std::move(node));
  }
  mark_stragglers(nodes, t);
  if (!a.html.empty()) {
    write_file_atomically(a.html, watch_html_report(nodes, t));
  }
  std::vector<WatchNodeFacts> facts;
  for (const NodeTimeline& n : nodes) facts.push_back(n.summary.facts());
  return judge_watch(a, t, "replay", std::move(facts));
}

int run_watch(const WatchArgs& a) {
  a.flags.check();
  if (a.explain) {
    std::fputs(explain_rules(thresholds(a)).c_str(), stdout);
    return 0;
  }
  if (!a.replay.empty()) {
    if (!a.pids.empty() || a.all || !a.record.empty() || !a.listen.empty() || !a.prom_file.empty())
      throw InputError("--replay", 0,
                       "reads recordings offline: --pid, --all, --record, --listen and --prom-file "
                       "belong to a live watch");
    return run_replay(a);
  }
  return run_live(a);
}

}  // namespace

Runner add_watch_command(CLI::App& app) {
  auto a = std::make_shared<WatchArgs>();
  CLI::App* c = app.add_subcommand(
      "watch",
      "Watch a running job: GPU, InfiniBand, network, storage and data-loader counters, and "
      "which path the GPUs wait on");
  c->add_option("--interval", a->interval, "Time between samples (default 1s; 100ms = 10 Hz)");
  c->add_option("--duration", a->duration,
                "Stop after this long (default: until Ctrl-C or the "
                "watched processes exit)");
  c->add_option("--pid", a->pids,
                "A process of the job (repeatable); its child processes "
                "(data-loader workers) are watched too");
  c->add_flag("--all", a->all, "Watch every process of the node");
  c->add_option("--root", a->root,
                "Read /proc and /sys under this directory (default /); {rank} becomes the MPI "
                "rank, {host} the host name");
  c->add_option("--nvml-library", a->nvml_library,
                "NVML library to load (default libnvidia-ml.so.1 on the live node, none with "
                "--root)");
  c->add_option("--dcgm", a->dcgm,
                "Attach to the DCGM host engine at HOST:PORT for SM/tensor activity and NVLink "
                "(default 127.0.0.1:5555 on the live node; off: never)");
  c->add_option("--dcgm-library", a->dcgm_library,
                "DCGM library to load (default libdcgm.so.4, then .3, on the live node; none with "
                "--root)");
  c->add_option("--ras-addr", a->ras_addr,
                "NCCL RAS service to ask for its report, rank 0 only (default NCCL_RAS_ADDR or "
                "localhost:28028 on the live node, none with --root; off: never)");
  c->add_option(
      "--ras-timeout", a->ras_timeout,
      "How long NCCL's RAS waits for its peers (sent as TIMEOUT; default 5s, NCCL's own); "
      "the report must come within 1s + twice this");
  c->add_option("--net", a->net,
                "Network interface to count (repeatable; default every one "
                "but lo)");
  c->add_option("--record", a->record,
                "Append every sample to FILE (JSONL, flushed per sample); {rank} and {host} "
                "name each rank's file under mpirun/srun");
  c->add_option("--replay", a->replay,
                "Read recordings instead of the node (repeatable: one per node of a job finds "
                "the straggler)");
  c->add_option("--prom-file", a->prom_file,
                "Write the metrics to FILE atomically each sample (node_exporter textfile "
                "collector)");
  c->add_option("--listen", a->listen,
                "Serve /metrics over HTTP at HOST:PORT; :PORT serves 127.0.0.1 only, "
                "0.0.0.0:PORT (or [::]:PORT) every address of the node (no authentication)");
  c->add_option("--job-label", a->job_labels,
                "NAME=VALUE on the trainready_job_info series (repeatable)");
  c->add_option("--hang-after", a->hang_after,
                "Quiet this long with the processes alive is a hang (default 60s)");
  c->add_option("--html", a->html, "With --replay: write an HTML report of the recording");
  c->add_flag("--explain", a->explain, "Print each label's rule, thresholds and counters");
  c->add_flag("--quiet", a->quiet, "No live view: only the summary");
  // A format other than text prints no live view: stdout is the report alone.
  add_shared_flags(c, a->flags, kReportFlags);
  c->add_option("--peer-timeout", a->peer_timeout,
                "Under mpirun/srun: a rank whose interval summaries stop this long is reported "
                "silent and no longer waited for (default 5 intervals, at least 5s)");
  c->add_flag("--quiet-peers", a->quiet_peers,
              "Under mpirun/srun: ranks other than 0 print nothing (rank 0 shows the job)");
  return [a] { return run_watch(*a); };
}

}  // namespace trainready
