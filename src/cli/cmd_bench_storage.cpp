// `trainready bench storage PATH`: can this storage path keep N GPUs fed? Raw reads (fio-like) or,
// with --feed, emulated accelerators and their AU.
#include <memory>
#include <string>

#include "bench/dataset_files.h"
#include "bench/feed.h"
#include "bench/raw_read.h"
#include "bench/storage_facts.h"
#include "cli/commands.h"
#include "cli/judge.h"
#include "core/input_error.h"
#include "core/units.h"

namespace trainready {
namespace {

struct StorageArgs {
  std::string path;
  int create = 0;
  bool replace = false;
  std::string file_size;  // default 256M; with --feed one record of the profile
  std::string rw = "read";
  std::string bs = "1M";
  int iodepth = 32;
  int jobs = 1;
  int direct = 1;
  std::string engine = "io_uring";
  double runtime = 0;
  bool no_evict = false;
  bool feed = false;
  std::string profile = "unet3d-h100";
  int accelerators = 0;  // 0: one, or --sku's GPUs per VM
  int max_accelerators = 64;
  int steps = 10;
  int prefetch = 2;
  int batch = 0;
  std::string record_bytes;
  double compute_time = -1;
  int read_threads = 0;
  double au = -1;
  SharedFlags flags;
};

std::uint64_t bytes_of(const std::string& flag, const std::string& v) {
  auto b = parse_bytes(v);
  if (!b || *b < 1 || *b > 1e15)
    throw InputError(flag, 0, "'" + v + "': expected a size such as 4K, 1M (1024-based) or 1GB");
  return static_cast<std::uint64_t>(*b);
}

FeedOptions feed_options(const StorageArgs& a) {
  FeedOptions o;
  const FeedProfile* p = find_feed_profile(a.profile);
  if (!p) {
    std::string names;
    for (const FeedProfile& f : feed_profiles()) names += (names.empty() ? "" : ", ") + f.name;
    throw InputError("--profile", 0, "'" + a.profile + "': expected one of " + names);
  }
  o.profile = *p;
  if (a.batch > 0) o.profile.batch = a.batch;
  if (!a.record_bytes.empty())
    o.profile.record_bytes = static_cast<double>(bytes_of("--record-bytes", a.record_bytes));
  if (a.compute_time >= 0) o.profile.compute_seconds = a.compute_time;
  if (a.read_threads > 0) o.profile.read_threads = a.read_threads;
  if (a.au >= 0) {
    if (a.au > 1) throw InputError("--au", 0, "expected a fraction from 0 to 1");
    o.profile.au_threshold = a.au;
  }
  if (a.batch > 0 || !a.record_bytes.empty() || a.compute_time >= 0)
    o.profile.name += " (modified)";
  o.accelerators = std::max(1, a.accelerators);
  o.steps = a.steps;
  o.prefetch = a.prefetch;
  o.direct = a.direct != 0;
  o.evict = !a.no_evict;
  if (a.feed && a.max_accelerators < o.accelerators)
    throw InputError("--max-accelerators", 0, "must be at least --accelerators");
  return o;
}

// How many accelerators the path must feed, and who said so: --accelerators, else the GPUs of
// one VM of --sku; 0 when neither was given.
std::pair<int, std::string> accelerators_needed(const StorageArgs& a) {
  if (a.accelerators > 0) return {a.accelerators, "--accelerators"};
  if (a.flags.sku.empty()) return {0, ""};
  const SkuEntry* sku = a.flags.catalog().find(a.flags.sku);
  if (!sku) throw InputError("--sku", 0, "'" + a.flags.sku + "' is not in the catalog");
  return {sku->gpu_count,
          "--sku " + sku->name + ": " + std::to_string(sku->gpu_count) + " GPUs per VM"};
}

int run_storage(const StorageArgs& a) {
  a.flags.check();
  auto run = std::make_shared<StorageRun>();
  StorageRunInfo& info = run->info;
  info.path = a.path;
  // Options are checked before anything is written.
  RawReadOptions raw;
  std::optional<FeedOptions> feed;
  const auto [needed, needed_origin] = accelerators_needed(a);
  FeedOptions workload = feed_options(a);  // the profile, for the demand in both modes
  if (a.feed) {
    feed = workload;
  } else {
    if (a.rw != "read" && a.rw != "randread")
      throw InputError("--rw", 0, "'" + a.rw + "': expected read or randread");
    raw.random = a.rw == "randread";
    raw.block_size = bytes_of("--bs", a.bs);
    raw.iodepth = a.iodepth;
    raw.jobs = a.jobs;
    raw.direct = a.direct != 0;
    raw.engine = a.engine;
    raw.runtime_s = a.runtime;
    raw.evict = !a.no_evict;
  }
  if (a.create > 0) {
    std::uint64_t size = 256ull << 20;
    if (!a.file_size.empty())
      size = bytes_of("--file-size", a.file_size);
    else if (feed)
      size = static_cast<std::uint64_t>(feed->profile.record_bytes);
    const CreateResult c = create_dataset(a.path, a.create, size, a.replace);
    info.created =
        std::to_string(c.files.size()) + " file(s) of " +
        format_bytes_si(static_cast<double>(size)) +
        (c.reused ? " (" + std::to_string(c.reused) + " already there)" : "") +
        (c.bytes ? ", " + format_bytes_si(static_cast<double>(c.bytes)) + " written at " +
                       format_rate_si(c.seconds > 0 ? c.bytes / c.seconds : 0)
                 : "");
    info.files = c.files;
  } else {
    info.files = list_dataset(a.path);
  }
  Report r = start_report("bench storage", a.flags);
  if (feed) {
    run->feed_options = *feed;
    run->feed = search_accelerators(info.files, *feed, std::max(a.max_accelerators, needed));
  } else {
    run->raw_options = raw;
    run->raw = run_raw_read(info.files, raw);
  }
  r.storage_facts = std::make_shared<StorageBenchFacts>(
      storage_facts(*run, workload.profile, needed > 0 ? needed : (a.feed ? 1 : 0),
                    needed > 0 ? needed_origin : (a.feed ? "default: one" : "")));
  r.storage = std::move(run);
  return judge_and_emit(r, a.flags);
}

}  // namespace

void add_bench_storage_command(CLI::App* bench, const std::shared_ptr<Runner>& chosen) {
  auto a = std::make_shared<StorageArgs>();
  CLI::App* c = bench->add_subcommand(
      "storage",
      "Can this storage path keep N GPUs fed? Raw reads like fio (io_uring, O_DIRECT), or --feed: "
      "emulated accelerators and their utilization (AU), as MLPerf Storage");
  c->add_option("path", a->path,
                "A file, or a directory of files (with --create: where to write them)")
      ->required();
  c->add_option("--create", a->create,
                "Write N files of --file-size first (never leaves partial files)")
      ->check(CLI::Range(0, 1000000));
  c->add_flag("--replace", a->replace,
              "With --create: write over a data-NNNNNN.bin already there with another size "
              "(default: refuse, naming it; one of the right size is read as it is)");
  c->add_option("--file-size", a->file_size,
                "Size of each created file (default 256M; with --feed, one record of the profile)");
  c->add_option("--rw", a->rw, "read (sequential) or randread");
  c->add_option("--bs", a->bs, "Block size (default 1M)");
  c->add_option("--iodepth", a->iodepth, "Reads in flight per job (io_uring; default 32)")
      ->check(CLI::Range(1, 4096));
  c->add_option("--numjobs", a->jobs, "Reader threads (default 1)")->check(CLI::Range(1, 1024));
  c->add_option("--direct", a->direct,
                "1: O_DIRECT where the file system takes it (default); 0: buffered")
      ->check(CLI::Range(0, 1));
  c->add_option("--ioengine", a->engine, "io_uring (default; registered buffers) or psync");
  c->add_option("--runtime", a->runtime, "Seconds to keep reading (default: the file set once)")
      ->check(CLI::Range(0.0, 604800.0));
  c->add_flag("--no-evict", a->no_evict, "Keep the page cache (measure it warm or hot)");
  c->add_flag("--feed", a->feed,
              "Emulate accelerators reading the dataset; find how many stay at the AU threshold");
  c->add_option("--profile", a->profile,
                "unet3d-h100 (default), unet3d-a100, resnet50-h100/-a100, cosmoflow-h100/-a100");
  c->add_option("--accelerators", a->accelerators,
                "Accelerators the path must feed (default: one, or --sku's GPUs per VM); feed "
                "mode starts its search there")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--max-accelerators", a->max_accelerators, "Largest count to try (default 64)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--steps", a->steps,
                "Steps per accelerator per trial (default 10; the first is not counted)")
      ->check(CLI::Range(2, 1000000));
  c->add_option("--prefetch", a->prefetch, "Batches queued per accelerator (default 2)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--batch", a->batch, "Records per step (default: the profile's)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--record-bytes", a->record_bytes, "Bytes per record (default: the profile's)");
  c->add_option("--compute-time", a->compute_time,
                "Seconds of compute per step (default: the profile's)")
      ->check(CLI::Range(0.0, 3600.0));
  c->add_option("--read-threads", a->read_threads,
                "Read threads per accelerator (default: the profile's)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--au", a->au, "AU threshold, 0-1 (default: the profile's, 0.90 or 0.70)")
      ->check(CLI::Range(0.0, 1.0));
  add_shared_flags(c, a->flags, kReportFlags | kRuleFlags | kSkuFlag | kCatalogFlag);
  c->callback([chosen, a] { *chosen = [a] { return run_storage(*a); }; });
}

}  // namespace trainready
