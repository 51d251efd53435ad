// `trainready stage SRC DST`: copy a dataset onto the fast tier, resumable and verified; `stage
// --verify DST` re-reads a staged copy; `stage --hsm-restore DIR` fills a Lustre HSM import.
// The outcome is a fact (StageFacts) judged by the stage rules, like every other command's.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "bench/feed.h"
#include "bench/mpi_backend.h"
#include "bench/mpi_plugin_loader.h"
#include "bench/storage_facts.h"
#include "cli/commands.h"
#include "cli/judge.h"
#include "core/host_name.h"
#include "core/input_error.h"
#include "core/units.h"
#include "stage/bounds.h"
#include "stage/engine.h"
#include "stage/hsm.h"
#include "stage/journal.h"
#include "stage/replicate.h"
#include "stage/safe_path.h"
#include "stage/shard.h"
#include "stage/source.h"
#include "stage/stage_options.h"
#include "stage/verify.h"

namespace trainready {
namespace {

struct StageArgs {
  stage::StageOptions o;
  SharedFlags flags;
};

std::uint64_t size_of(const std::string& flag, const std::string& v) {
  auto b = parse_bytes(v);
  if (!b || *b < 1 || *b > 1e15)
    throw InputError(flag, 0, "'" + v + "': expected a size such as 64M, 1G (1024-based) or 1GB");
  return static_cast<std::uint64_t>(*b);
}

// --chunk-size: at most stage::kMaxChunkBytes (each worker holds a chunk in memory), refused here
// before a journal records it.
std::uint64_t chunk_size_of(const std::string& v) {
  const std::uint64_t b = size_of("--chunk-size", v);
  if (const std::string why = stage::chunk_size_problem(b); !why.empty())
    throw InputError("--chunk-size", 0, "'" + v + "': " + why);
  return b;
}

bool show_progress(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto")
    throw InputError("--progress", 0, "'" + mode + "': expected auto, always or never");
  return ::isatty(STDERR_FILENO) != 0;
}

// --then-feed: the feed benchmark over the files the journal says are staged; its result is
// judged by storage-feed-short, as `bench storage --feed` is.
void then_feed(Report& r, const stage::StageOptions& o, const std::string& dst,
               const std::string& journal, const SharedFlags& flags) {
  const FeedProfile* p = find_feed_profile(o.profile);
  if (!p)
    throw InputError("--profile", 0,
                     "'" + o.profile + "': not a feed profile (see bench storage --help)");
  const stage::JournalState j = stage::read_journal(journal);
  std::vector<DatasetFile> files;
  for (const auto& [path, id] : j.by_path) {
    const stage::JournalFile& f = j.files.at(id);
    // The feed reads whole records: files smaller than one are not samples of this workload.
    if (f.done && static_cast<double>(f.entry.size) >= p->record_bytes)
      files.push_back({dst + "/" + path, f.entry.size});
  }
  std::sort(files.begin(), files.end(),
            [](const DatasetFile& a, const DatasetFile& b) { return a.path < b.path; });
  if (files.empty())
    throw InputError(dst, 0,
                     "--then-feed: no staged file holds one " + p->name + " record (" +
                         format_bytes_si(p->record_bytes) + ")");
  FeedOptions fo;
  fo.profile = *p;
  int needed = 0;
  std::string origin;
  if (!flags.sku.empty()) {
    const SkuEntry* sku = flags.catalog().find(flags.sku);
    if (!sku) throw InputError("--sku", 0, "'" + flags.sku + "' is not in the catalog");
    needed = sku->gpu_count;
    origin = "--sku " + sku->name + ": " + std::to_string(sku->gpu_count) + " GPUs per VM";
  }
  fo.accelerators = 1;
  auto run = std::make_shared<StorageRun>();
  run->info.path = dst;
  run->info.files = files;
  run->feed_options = fo;
  run->feed = search_accelerators(files, fo, std::max(64, needed));
  r.storage_facts = std::make_shared<StorageBenchFacts>(storage_facts(
      *run, fo.profile, needed > 0 ? needed : 1, needed > 0 ? origin : "default: one"));
  r.storage = std::move(run);
}

bool has_placeholder(const std::string& s) {
  return s.find("{rank}") != std::string::npos || s.find("{host}") != std::string::npos;
}

// {rank} and {host} in a path, for --verify under a launcher (no MPI needed: the launcher's
// environment says the rank, gethostname(2) the host).
std::string expand_without_mpi(const std::string& path) {
  if (!has_placeholder(path)) return path;
  return stage::expand_dst_placeholders(path, stage::launcher_rank().rank, host_name());
}

// Ends MPI after a --replicate run whose report is written: MPI_Finalize when every rank got here
// in time; MPI_Abort when a rank missed a step (its collectives can never complete) — after a
// pause, so the other survivors write their reports too.
int end_replicate(std::unique_ptr<MpiWorld> world, bool broken, int code,
                  std::chrono::milliseconds timeout) {
  if (!broken && world->barrier(timeout)) {
    world.reset();
    mpi_finalize();
    return code;
  }
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  world->abort(code ? code : 1);
  return code ? code : 1;  // not reached: MPI_Abort ends the job
}

int run_stage(const StageArgs& a) {
  a.flags.check();
  const stage::StageOptions& o = a.o;
  auto facts = std::make_shared<StageFacts>();
  std::unique_ptr<MpiWorld> world;
  bool world_broken = false;
  const auto peer_timeout =
      std::chrono::milliseconds(static_cast<long long>(o.peer_timeout * 1000));
  if (!o.replicate && (has_placeholder(o.dst) || has_placeholder(o.manifest)) && o.verify.empty())
    throw InputError("DST", 0,
                     "'" + o.dst +
                         "': {rank} and {host} are replaced only with --replicate or "
                         "--verify");
  if (!o.verify.empty()) {
    stage::VerifyOptions v;
    v.dst = expand_without_mpi(o.verify);
    v.journal = expand_without_mpi(o.manifest);
    *facts = stage::run_stage_verify(v);
  } else if (!o.hsm_restore.empty()) {
    stage::HsmOptions h;
    h.dir = o.hsm_restore;
    h.batch = o.hsm_batch;
    h.poll_seconds = o.hsm_poll;
    h.timeout_seconds = o.hsm_timeout;
    if (show_progress(o.progress))
      h.on_batch = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    *facts = stage::run_hsm_restore(h);
  } else {
    if (o.src.empty() || o.dst.empty())
      throw InputError("stage", 0, "expected SRC and DST (or --verify DST, or --hsm-restore DIR)");
    stage::EngineOptions e;
    e.dst = o.dst;
    e.journal = o.manifest;
    if (!o.max_bw.empty()) e.max_bw = size_of("--max-bw", o.max_bw);
    if (!o.chunk_size.empty()) e.chunk_bytes = chunk_size_of(o.chunk_size);
    e.threads = o.threads;
    e.max_open = o.max_open;
    e.progress = show_progress(o.progress);
    if (!a.flags.sku.empty()) {
      const SkuEntry* sku = a.flags.catalog().find(a.flags.sku);
      if (!sku) throw InputError("--sku", 0, "'" + a.flags.sku + "' is not in the catalog");
      e.nic_bytes_per_s = sku->frontend_nic_gbits_per_s * 1e9 / 8;
    }
    // SRC = DST, DST inside SRC or SRC inside DST: refused before any work (D13).
    if (!o.replicate) stage::check_src_dst_apart(o.src, o.dst);
    stage::SourceOptions so = o.source;
    so.never_enter = o.dst;  // a followed link never copies DST into itself
    auto source = stage::open_source(o.src, so);
    stage::RankInfo rank;
    if (o.shard && o.replicate)
      throw InputError("--replicate", 0,
                       "--shard splits one copy across ranks, --replicate gives each rank the "
                       "whole set: choose one");
    if (o.replicate) {
      try {
        world = load_mpi_layer().world();
      } catch (const std::runtime_error& err) {
        throw InputError("--replicate", 0, std::string("needs MPI: ") + err.what());
      }
      stage::ReplicateOptions ro;
      ro.engine = e;
      ro.engine.dst = stage::expand_dst_placeholders(o.dst, world->rank(), host_name());
      ro.engine.journal = stage::expand_dst_placeholders(o.manifest, world->rank(), host_name());
      stage::check_src_dst_apart(o.src, ro.engine.dst);
      ro.peer_timeout = peer_timeout;
      stage::ReplicateOutcome out = stage::run_stage_replicate(*source, *world, ro);
      if (!out.input_error.empty()) {
        // Every rank got the same error: end MPI alike on all, then exit 2 as a single copy does.
        end_replicate(std::move(world), out.world_broken, 2, peer_timeout);
        throw InputError("--replicate", 0, out.input_error);
      }
      *facts = std::move(out.facts);
      world_broken = out.world_broken;
    } else if (o.shard) {
      rank = stage::launcher_rank();
      if (e.journal.empty())
        e.journal_suffix =
            ".rank-" + std::to_string(rank.rank) + "-of-" + std::to_string(rank.size);
      e.part_tag = "rank-" + std::to_string(rank.rank) + "-";
      // Every rank lists everything, then takes its byte share: no messages, one split.
      auto part = stage::shard_source(*source, rank.rank, rank.size);
      *facts = stage::run_stage_copy(*part, e);
    } else {
      *facts = stage::run_stage_copy(*source, e);
    }
    if (!o.replicate) {
      facts->rank = rank.rank;
      facts->ranks = rank.size;
    }
  }
  Report r = start_report("stage", a.flags);
  if (o.then_feed && facts->mode == "copy" && facts->failed.empty() && !facts->aborted)
    then_feed(r, o, facts->destination, facts->journal, a.flags);
  r.stage = facts;
  const int code = judge_and_emit(r, a.flags);
  if (world) return end_replicate(std::move(world), world_broken, code, peer_timeout);
  return code;
}

}  // namespace

Runner add_stage_command(CLI::App& app) {
  auto a = std::make_shared<StageArgs>();
  stage::StageOptions& o = a->o;
  CLI::App* c = app.add_subcommand(
      "stage",
      "Copy a dataset onto the fast tier: parallel, resumable after a kill, hashed while written");
  c->add_option("src", o.src,
                "A directory (any mount: blobfuse2, NFS, Lustre) or an Azure Blob URL");
  c->add_option("dst", o.dst, "A local directory (NVMe, Lustre); created");
  c->add_option("--blob-endpoint", o.source.blob_endpoint,
                "Blob service endpoint other than ACCOUNT.blob.core.windows.net");
  c->add_flag("--follow-symlinks", o.source.follow_symlinks,
              "Copy what symbolic links in SRC point to, under the link's name, wherever the "
              "target is (outside SRC too); loops are refused. Without it no link is followed and "
              "each is named as not staged (a Hugging Face hub snapshot needs it)");
  c->add_option("--sas-file", o.source.sas_file,
                "A file holding the Blob SAS token (mode 600), so it is not on the command line; "
                "or set AZURE_STORAGE_SAS_TOKEN");
  c->add_option("--manifest", o.manifest,
                "The journal (default beside DST: DST/../.NAME.trainready-stage/journal.jsonl, "
                "outside the dataset); with --verify, the one to check against");
  c->add_option("--max-bw", o.max_bw, "Read at most this many bytes per second (e.g. 200M)");
  c->add_option("--max-open", o.max_open, "Source files open at once (default: the copy workers)")
      ->check(CLI::Range(1, 4096));
  c->add_option("--threads", o.threads, "Copy workers (default 16, or the source's hint)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--chunk-size", o.chunk_size,
                "Big files are copied and hashed in chunks of this size (default 16M, at most 4G; "
                "a resume keeps the journal's)");
  c->add_option("--progress", o.progress, "auto (on a terminal), always or never");
  c->add_option("--verify", o.verify,
                "Re-read this staged DST past the page cache and check every chunk's hash");
  c->add_option("--hsm-restore", o.hsm_restore,
                "Lustre HSM: restore every released file under this directory (lfs hsm_restore)");
  c->add_option("--hsm-batch", o.hsm_batch, "Files per lfs hsm_restore / hsm_state, and the most restores outstanding at the MDS "
                "(default 1000)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--hsm-poll", o.hsm_poll, "Seconds between lfs hsm_state polls (default 5)")
      ->check(CLI::Range(0.0, 3600.0));
  c->add_option("--hsm-timeout", o.hsm_timeout, "Seconds to wait for one batch's restores before giving up (default 3600)")
      ->check(CLI::Range(0.0, 604800.0));
  c->add_flag("--shard", o.shard,
              "Under mpirun/srun: each rank copies its share of the bytes into the shared DST");
  c->add_flag("--replicate", o.replicate,
              "Under mpirun/srun: every rank gets the whole set at its own DST; each byte is read "
              "from SRC by one rank and sent to the others over MPI. DST may hold {rank} and "
              "{host}");
  c->add_option("--peer-timeout", o.peer_timeout,
                "--replicate: seconds an MPI step may take before the rank that did not take "
                "part is named (default 300)")
      ->check(CLI::Range(1.0, 86400.0));
  c->add_flag("--then-feed", o.then_feed,
              "Then run the feed benchmark on the staged files: do they keep the GPUs fed?");
  c->add_option("--profile", o.profile, "Workload for --then-feed (default unet3d-h100)");
  add_shared_flags(c, a->flags, kReportFlags | kRuleFlags | kSkuFlag | kCatalogFlag);
  return [a] { return run_stage(*a); };
}

}  // namespace trainready
